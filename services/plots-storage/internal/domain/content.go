package domain

import (
	"encoding/base64"
	"fmt"

	"sharedworld.dev/pkg/problem"
)

// Size limits for decoded content (CONTRACT §4).
const (
	MiB             = 1 << 20
	GiB             = 1 << 30
	MaxFileBytes    = 1 * MiB
	MaxBackupBytes  = 5 * MiB
	PlotQuotaBytes  = 10 * MiB
	MaxFilesPerPlot = 1000
)

const base64Hint = "content is standard base64 (RFC 4648: A-Z a-z 0-9 + /) with = padding " +
	"and no spaces or line breaks; an empty string is an empty file"

// DecodeContent decodes strict base64: the standard alphabet with padding,
// no whitespace and no stray bits, so every accepted string is the one
// canonical encoding of its bytes. Bad base64 is 400; content that would
// decode to more than limit bytes is 413, judged before decoding.
func DecodeContent(s string, limit int) ([]byte, error) {
	if len(s)%4 != 0 {
		return nil, problem.Invalid(
			fmt.Sprintf("content is not valid base64: length %d is not a multiple of 4", len(s)), base64Hint)
	}
	for i := 0; i < len(s); i++ {
		if !base64Char(s[i]) {
			return nil, problem.Invalid(
				fmt.Sprintf("content is not valid base64: byte %d is %s", i, describeByte(s[i])), base64Hint)
		}
	}
	if base64.StdEncoding.DecodedLen(len(s))-padding(s) > limit {
		return nil, tooLarge(limit)
	}
	// The standard decoder skips \r and \n even in strict mode; the loop
	// above has already refused them.
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, problem.Invalid("content is not valid base64: "+err.Error(), base64Hint)
	}
	return b, nil
}

func tooLarge(limit int) error {
	return problem.TooLarge(
		fmt.Sprintf("content decodes to more than %s", humanBytes(int64(limit))),
		fmt.Sprintf("keep the decoded content at or under %d bytes", limit))
}

func padding(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && i >= len(s)-2 && s[i] == '='; i-- {
		n++
	}
	return n
}

func base64Char(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' ||
		b == '+' || b == '/' || b == '='
}

func describeByte(b byte) string {
	switch {
	case b == ' ' || b == '\t' || b == '\r' || b == '\n':
		return "whitespace"
	case b == '-' || b == '_':
		return fmt.Sprintf("%q, from the URL-safe alphabet", rune(b))
	case b < 0x20 || b >= 0x7f:
		return fmt.Sprintf("the byte 0x%02x", b)
	default:
		return fmt.Sprintf("%q", rune(b))
	}
}

// humanBytes writes a size the way the limits are stated (1 MiB, 10 MiB,
// 2 GiB).
func humanBytes(n int64) string {
	if n >= GiB && n%GiB == 0 {
		return fmt.Sprintf("%d GiB", n/GiB)
	}
	if n >= MiB && n%MiB == 0 {
		return fmt.Sprintf("%d MiB", n/MiB)
	}
	return fmt.Sprintf("%d bytes", n)
}
