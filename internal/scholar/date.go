package scholar

import (
	"strconv"
	"strings"
	"time"
)

// Years outside [minYear, maxYear] are taken for noise, not dates.
const (
	minYear = 1400
	maxYear = 2100
)

// monthNames maps month names and their usual abbreviations, in English
// and Turkish (lower case, Turkish with and without diacritics), to 1-12.
var monthNames = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
	"ocak": 1, "şubat": 2, "subat": 2, "mart": 3, "nisan": 4, "mayıs": 5, "mayis": 5,
	"haziran": 6, "temmuz": 7, "ağustos": 8, "agustos": 8, "eylül": 9, "eylul": 9,
	"ekim": 10, "kasım": 11, "kasim": 11, "aralık": 12, "aralik": 12,
}

// parseDate reads a publication date as metadata states it and returns it
// as "2006-01-02", "2006-01" or "2006" with its year. It accepts ISO 8601
// dates and date-times, year-first dates with "-", "/" or "." ("2016/05/21",
// Highwire's form), "20160521", day-first dates with "." or "-"
// ("21.05.2016"), day-first or month-first dates with "/" when the day is
// above 12, month names in English or Turkish ("21 May 2016", "May 21,
// 2016", "Mayıs 2016"), and otherwise a lone year somewhere in the text
// ("Spring 2016", "2016-2017" gives 2016). Impossible dates (month 13,
// 31 April) are cut to what is certain: "2016-04-31" gives "2016-04".
func parseDate(s string) (string, int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return "", 0, false
	}
	// Drop a time part: "2016-05-21T10:00:00Z", "2016-05-21 10:00",
	// "2016/05/21 10:00", "21.05.2016 10:00".
	if d := s[:min(len(s), 10)]; len(s) > 10 && isDigit(s[0]) && strings.IndexByte("Tt ", s[10]) >= 0 &&
		(strings.Count(d, "-") == 2 || strings.Count(d, "/") == 2 || strings.Count(d, ".") == 2) {
		s = s[:10]
	}
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == ',' || r == '-' || r == '/' || r == '.' || r == '\t'
	})
	nums := make([]int, 0, 3)
	widths := make([]int, 0, 3)
	month := 0
	allNumeric := true
	for _, f := range fields {
		if n, err := strconv.Atoi(f); err == nil && n >= 0 {
			nums = append(nums, n)
			widths = append(widths, len(f))
			continue
		}
		if m, ok := monthNames[strings.TrimSuffix(f, ".")]; ok && month == 0 {
			month = m
		}
		allNumeric = false
	}
	if len(fields) == 1 && len(fields[0]) == 8 && len(nums) == 1 {
		// 20160521
		f := fields[0]
		y, _ := strconv.Atoi(f[:4])
		m, _ := strconv.Atoi(f[4:6])
		d, _ := strconv.Atoi(f[6:])
		return formatDate(y, m, d)
	}
	if allNumeric && len(nums) >= 1 && len(nums) <= 3 && len(fields) <= 4 {
		switch {
		case widths[0] == 4:
			// Year first: Y, Y-M, Y-M-D.
			y, m, d := nums[0], 0, 0
			if len(nums) > 1 {
				m = nums[1]
			}
			if len(nums) > 2 {
				d = nums[2]
			}
			if len(nums) == 2 && widths[1] == 4 {
				m = 0 // a range of years: "2016-2017"
			}
			return formatDate(y, m, d)
		case len(nums) == 3 && widths[2] == 4:
			// Day or month first: D.M.Y, D-M-Y, M/D/Y.
			a, b, y := nums[0], nums[1], nums[2]
			slash := strings.Contains(s, "/")
			switch {
			case !slash || a > 12:
				return formatDate(y, b, a)
			case b > 12:
				return formatDate(y, a, b)
			default:
				return formatDate(y, 0, 0) // 05/06/2016 is ambiguous
			}
		case len(nums) == 2 && widths[1] == 4:
			// M/Y or M.Y
			return formatDate(nums[1], nums[0], 0)
		}
	}
	if month != 0 {
		y, d := 0, 0
		for i, n := range nums {
			switch {
			case widths[i] == 4 && y == 0:
				y = n
			case widths[i] <= 2 && d == 0:
				d = n
			}
		}
		if y != 0 {
			return formatDate(y, month, d)
		}
	}
	// A lone year anywhere.
	for i, n := range nums {
		if widths[i] == 4 && n >= minYear && n <= maxYear {
			return formatDate(n, 0, 0)
		}
	}
	return "", 0, false
}

// formatDate formats the parts that are valid: a year alone if the month is
// not, a year and month if the day is not.
func formatDate(y, m, d int) (string, int, bool) {
	if y < minYear || y > maxYear {
		return "", 0, false
	}
	ys := strconv.Itoa(y)
	if m < 1 || m > 12 {
		return ys, y, true
	}
	ym := ys + "-" + pad2(m)
	if d < 1 || d > daysIn(y, m) {
		return ym, y, true
	}
	return ym + "-" + pad2(d), y, true
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// daysIn is the number of days of month m of year y.
func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
