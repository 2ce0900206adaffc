package maintext

import (
	"strings"
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// Thresholds of DetectLanguage.
const (
	// minLetters is the fewest letters a text needs for a guess.
	minLetters = 40
	// minWords is the fewest words a text needs for a guess.
	minWords = 6
	// sampleBytes is how much of a long text is looked at.
	sampleBytes = 1 << 10
	// shortLetters is the length below which a guess needs more confidence.
	shortLetters = 200
)

// unspaced are the scripts written without spaces between words.
var unspaced = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// DetectLanguage guesses the language of a text and returns its ISO 639-1
// code ("en", "tr"; ISO 639-3 for the few languages without one), or "",
// false when it is not sure. Texts with fewer than 40 letters or 6 words
// (each letter of Chinese, Japanese, Thai and other scripts written
// without spaces counting as a word) are not guessed; neither are those
// whose best two candidates are close.
//
// Detection is by whatlanggo (github.com/abadojack/whatlanggo), which
// compares the text's character trigrams with profiles of 84 languages
// after telling its script; it needs no model files and takes about 100 µs
// for the first KiB of text, the most that is looked at.
func DetectLanguage(text string) (string, bool) {
	sample := text
	if len(sample) > sampleBytes {
		sample = sample[:sampleBytes]
		for len(sample) > 0 && sample[len(sample)-1]&0xc0 == 0x80 {
			sample = sample[:len(sample)-1] // do not cut a character
		}
		if len(sample) > 0 && sample[len(sample)-1] >= 0xc0 {
			sample = sample[:len(sample)-1]
		}
	}
	letters, words, inWord := 0, 0, false
	for _, r := range sample {
		if unicode.IsLetter(r) {
			letters++
			if !inWord {
				words++
			}
			// In scripts written without spaces between words (Chinese,
			// Japanese, Thai, ...) a run of letters is a clause or a
			// sentence: each letter counts as a word.
			inWord = r < 0x0e00 || !unicode.In(r, unspaced...)
		} else {
			inWord = false
		}
	}
	if letters < minLetters || words < minWords {
		return "", false
	}
	info := whatlanggo.Detect(sample)
	need := whatlanggo.ReliableConfidenceThreshold
	if letters < shortLetters {
		need = 0.95
	}
	if info.Confidence <= need {
		return "", false
	}
	code := info.Lang.Iso6391()
	if code == "" {
		code = info.Lang.Iso6393()
	}
	code = strings.ToLower(code)
	return code, code != ""
}
