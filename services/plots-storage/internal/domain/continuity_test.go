package domain

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestParseBackupType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want BackupType
		kind problem.Kind
	}{
		{"§4 continuity: absent is full", "", BackupFull, accepted},
		{"§4 continuity: context", "context", BackupContext, accepted},
		{"§4 continuity: memory", "memory", BackupMemory, accepted},
		{"§4 continuity: full", "full", BackupFull, accepted},
		{"§1 invalid: unknown enum value is 400", "everything", "", problem.KindInvalid},
		{"§1 invalid: enum values are case-sensitive", "Full", "", problem.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseBackupType(tc.in)
			checkKind(t, err, tc.kind)
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateEncryptionKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		key  string
		want problem.Kind
	}{
		{"§4 continuity: any non-empty key", "k", accepted},
		{"§11 length: 1024 code points", strings.Repeat("é", 1024), accepted},
		{"§11 missing: empty key is 400", "", problem.KindInvalid},
		{"§11 length: 1025 code points is 422", strings.Repeat("a", 1025), problem.KindValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, ValidateEncryptionKey(tc.key), tc.want)
		})
	}
}

func TestDecodeBackupContent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want problem.Kind
	}{
		{"§11 continuity: an empty backup is 400", "", problem.KindInvalid},
		{"§4 continuity: bad base64 is 400", "not base64!", problem.KindInvalid},
		{"§4 continuity: exactly 5 MiB", base64.StdEncoding.EncodeToString(make([]byte, MaxBackupBytes)), accepted},
		{"§4 continuity: over 5 MiB is 413", base64.StdEncoding.EncodeToString(make([]byte, MaxBackupBytes+1)), problem.KindTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeBackupContent(tc.in)
			checkKind(t, err, tc.want)
		})
	}
}

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.UTC)
	cases := []struct {
		name string
		in   string
		want time.Time
		kind problem.Kind
	}{
		{"§4 continuity: absent never expires", "", time.Time{}, accepted},
		{"§1 timestamps: milliseconds and Z", "2026-11-23T00:00:00.000Z", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), accepted},
		{"§1 timestamps: an offset is normalised to UTC", "2026-11-23T02:00:00+02:00", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), accepted},
		{"§1 timestamps: stored to the millisecond", "2026-11-23T00:00:00.123456Z", time.Date(2026, 11, 23, 0, 0, 0, 123e6, time.UTC), accepted},
		{"§1 invalid: not a timestamp is 400", "tomorrow", time.Time{}, problem.KindInvalid},
		{"§1 invalid: a date alone is 400", "2026-11-23", time.Time{}, problem.KindInvalid},
		{"§4 continuity: now is not in the future, 422", "2026-11-22T09:15:03.127Z", time.Time{}, problem.KindValidation},
		{"§4 continuity: the past is 422", "2020-01-01T00:00:00Z", time.Time{}, problem.KindValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseExpiry(tc.in, now)
			checkKind(t, err, tc.kind)
			if !got.Equal(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExpired(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		at   time.Time
		want bool
	}{
		{"§4 continuity: no expiry", time.Time{}, false},
		{"§4 continuity: expiring later", now.Add(time.Millisecond), false},
		{"§4 continuity: expiring now is gone", now, true},
		{"§4 continuity: expired earlier", now.Add(-time.Hour), true},
	} {
		if got := Expired(tc.at, now); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBackupIDs(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := NewBackupID()
		if !ValidBackupID(id) {
			t.Fatalf("§1 ids: generated %q is not a canonical UUIDv4", id)
		}
		if seen[id] {
			t.Fatalf("§1 ids: %q repeated", id)
		}
		seen[id] = true
	}
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"6f1c2a1e-8d4b-4c3a-9e2f-0123456789ab", true},
		{"6F1C2A1E-8D4B-4C3A-9E2F-0123456789AB", false}, // canonical form is lower case
		{"6f1c2a1e-8d4b-1c3a-9e2f-0123456789ab", false}, // version 1
		{"6f1c2a1e-8d4b-4c3a-7e2f-0123456789ab", false}, // wrong variant
		{"6f1c2a1e8d4b4c3a9e2f0123456789ab", false},
		{"{6f1c2a1e-8d4b-4c3a-9e2f-0123456789ab}", false},
		{"../../etc/passwd", false},
		{"", false},
	} {
		if got := ValidBackupID(tc.id); got != tc.want {
			t.Errorf("§11 continuity: ValidBackupID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
