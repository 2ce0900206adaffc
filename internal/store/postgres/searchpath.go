package postgres

import (
	"strings"
	"unicode/utf8"
)

// firstSchema is the schema a search_path setting names first, as the
// server reads the setting (SplitIdentifierString): a double-quoted name
// as written, with "" for a quote, or an unquoted one folded to lower
// case, blanks around it dropped, cut to the server's 63 bytes. ok is
// false for an empty or malformed setting and for "$user" (quoted or
// not), the schema named as the session's user.
func firstSchema(searchPath string) (name string, ok bool) {
	s := strings.TrimLeft(searchPath, " \t\n\r\f")
	if rest, quoted := strings.CutPrefix(s, `"`); quoted {
		var b strings.Builder
		for {
			i := strings.IndexByte(rest, '"')
			if i < 0 {
				return "", false // unterminated
			}
			b.WriteString(rest[:i])
			rest = rest[i+1:]
			if !strings.HasPrefix(rest, `"`) {
				break
			}
			b.WriteByte('"')
			rest = rest[1:]
		}
		if rest = strings.TrimLeft(rest, " \t\n\r\f"); rest != "" && rest[0] != ',' {
			return "", false
		}
		if name = clipName(b.String()); name == "" || name == "$user" {
			return "", false
		}
		return name, true
	}
	if i := strings.IndexByte(s, ','); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " \t\n\r\f")
	if s == "$user" || strings.ContainsAny(s, " \t\n\r\f") {
		return "", false
	}
	if name = clipName(asciiLower(s)); name == "" {
		return "", false
	}
	return name, true
}

// maxNameBytes is the longest name the server keeps (NAMEDATALEN - 1).
const maxNameBytes = 63

// clipName cuts a name as the server does: to maxNameBytes, at the start
// of a character.
func clipName(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	n := maxNameBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// asciiLower folds the ASCII letters of s to lower case, as the server
// folds an unquoted identifier (other letters keep their case).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
