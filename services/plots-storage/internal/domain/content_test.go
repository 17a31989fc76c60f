package domain

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestDecodeContent(t *testing.T) {
	t.Parallel()
	exactlyMax := base64.StdEncoding.EncodeToString(make([]byte, MaxFileBytes))
	oneOver := base64.StdEncoding.EncodeToString(make([]byte, MaxFileBytes+1))
	cases := []struct {
		name    string
		in      string
		want    problem.Kind
		decoded string
	}{
		{"§11 storage: empty string is an empty file", "", accepted, ""},
		{"§4 base64: two padding characters", "aGk=", accepted, "hi"},
		{"§4 base64: one padding character", "aGV5IQ==", accepted, "hey!"},
		{"§4 base64: no padding needed", "aGV5", accepted, "hey"},
		{"§4 base64: + and / of the standard alphabet", "+/+/", accepted, "\xfb\xff\xbf"},
		{"§4 base64: missing padding is 400", "aGk", problem.KindInvalid, ""},
		{"§4 base64: too much padding is 400", "aGk===", problem.KindInvalid, ""},
		{"§4 base64: padding in the middle is 400", "aG==aGk=", problem.KindInvalid, ""},
		{"§4 base64: only padding is 400", "====", problem.KindInvalid, ""},
		{"§4 base64: a line break is 400", "aGV5\naGV5", problem.KindInvalid, ""},
		{"§4 base64: CRLF is 400", "aGV5\r\n", problem.KindInvalid, ""},
		{"§4 base64: a space is 400", "aGV5 aGV5", problem.KindInvalid, ""},
		{"§4 base64: a tab is 400", "\taGV5", problem.KindInvalid, ""},
		{"§4 base64: URL-safe - is 400", "-_-_", problem.KindInvalid, ""},
		{"§4 base64: non-zero trailing bits are 400", "aGl=", problem.KindInvalid, ""},
		{"§4 base64: non-ASCII is 400", "aGV5é===", problem.KindInvalid, ""},
		{"§4 base64: NUL is 400", "aGV\x00", problem.KindInvalid, ""},
		{"§4 base64: a data URL is 400", "data:text/plain;base64,aGk=", problem.KindInvalid, ""},
		{"§4 storage: exactly 1 MiB decoded", exactlyMax, accepted, "\x00"},
		{"§4 storage: 1 MiB + 1 byte is 413", oneOver, problem.KindTooLarge, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeContent(tc.in, MaxFileBytes)
			checkKind(t, err, tc.want)
			if err != nil {
				return
			}
			if tc.in == exactlyMax {
				if len(got) != MaxFileBytes {
					t.Fatalf("decoded %d bytes, want %d", len(got), MaxFileBytes)
				}
				return
			}
			if !bytes.Equal(got, []byte(tc.decoded)) {
				t.Fatalf("decoded %q, want %q", got, tc.decoded)
			}
		})
	}
}

func TestDecodeContentJudgesSizeBeforeDecoding(t *testing.T) {
	t.Parallel()
	// 8 MiB of 'A' is valid base64 of 6 MiB of zeros: over the file limit
	// and over the 5 MiB backup limit too.
	huge := strings.Repeat("A", 8*MiB)
	_, err := DecodeContent(huge, MaxFileBytes)
	checkKind(t, err, problem.KindTooLarge)
	_, err = DecodeContent(huge, MaxBackupBytes)
	checkKind(t, err, problem.KindTooLarge)
	// Padding counts: 4 characters with == are 1 byte, within a 1-byte limit.
	_, err = DecodeContent("AA==", 1)
	checkKind(t, err, accepted)
	_, err = DecodeContent("AAA=", 1)
	checkKind(t, err, problem.KindTooLarge)
}
