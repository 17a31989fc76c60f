package domain

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/seal"
)

// Continuity limits (CONTRACT §4, §11).
const (
	MaxBackupsPerCitizen = 20
	MaxEncryptionKeyLen  = 1024
)

// BackupType is what a backup holds; a closed set.
type BackupType string

// The backup types; Full is the default.
const (
	BackupContext BackupType = "context"
	BackupMemory  BackupType = "memory"
	BackupFull    BackupType = "full"
)

// Backup is a continuity backup: metadata in clear, content sealed under
// the citizen's passphrase (which is never kept).
type Backup struct {
	ID        string
	Owner     string
	Type      BackupType
	SizeBytes int64
	CreatedAt time.Time
	ExpiresAt *time.Time
	Sealed    seal.Sealed
}

// Live reports whether the backup is still kept at now.
func (b Backup) Live(now time.Time) bool { return b.ExpiresAt == nil || !Expired(*b.ExpiresAt, now) }

// ParseBackupType reads backup_type; empty means full, anything unknown is 400.
func ParseBackupType(s string) (BackupType, error) {
	switch t := BackupType(s); t {
	case "":
		return BackupFull, nil
	case BackupContext, BackupMemory, BackupFull:
		return t, nil
	}
	return "", problem.Invalid(fmt.Sprintf("backup_type %q is unknown", truncate(s, 40)),
		"backup_type is context, memory or full (default full)")
}

// ValidateEncryptionKey checks the caller's passphrase: required, at most
// MaxEncryptionKeyLen code points. It is never stored.
func ValidateEncryptionKey(key string) error {
	hint := "send the passphrase the content is sealed with; you need the same one to restore"
	if key == "" {
		return problem.Invalid("encryption_key is required", hint)
	}
	if n := utf8.RuneCountInString(key); n > MaxEncryptionKeyLen {
		return problem.Validation(
			fmt.Sprintf("encryption_key is %d characters long, the limit is %d", n, MaxEncryptionKeyLen), hint)
	}
	return nil
}

// DecodeBackupContent decodes a backup's strict base64 content: an empty
// backup is 400 (CONTRACT §11), over 5 MiB decoded is 413.
func DecodeBackupContent(s string) ([]byte, error) {
	if s == "" {
		return nil, problem.Invalid("content is required: an empty backup saves nothing", base64Hint)
	}
	return DecodeContent(s, MaxBackupBytes)
}

// ParseExpiry reads the optional expires_at: an ISO 8601 timestamp after now.
// A zero time means the backup does not expire.
func ParseExpiry(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, problem.Invalid("expires_at is not an ISO 8601 timestamp",
			"send a UTC timestamp like 2026-11-22T09:15:03.127Z, or leave expires_at out")
	}
	if !t.After(now) {
		return time.Time{}, problem.Validation("expires_at is not in the future",
			"send a time after now, or leave expires_at out to keep the backup until deleted")
	}
	return clock.Stored(t), nil
}

// Expired reports whether a backup with expiry at is gone by now.
func Expired(at, now time.Time) bool { return !at.IsZero() && !now.Before(at) }

// BackupLimitReached is the 409 for the 21st backup (CONTRACT §11).
func BackupLimitReached() error {
	return problem.Conflict(
		fmt.Sprintf("you already keep %d backups, the limit", MaxBackupsPerCitizen),
		"delete an old backup with DELETE /api/world/continuity/<backup_id> first")
}

// BackupNotFound is the 404 for an unknown, malformed, expired or foreign
// backup id: another citizen's backup is indistinguishable from none.
func BackupNotFound() error {
	return problem.NotFound("no such backup", "GET /api/world/continuity/list shows your backups")
}

// NewBackupID returns a random UUIDv4 in its canonical lowercase form.
func NewBackupID() string { return uuid.NewString() }

// ValidBackupID reports whether id is a canonical lowercase UUIDv4.
func ValidBackupID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return id[14] == '4' && (id[19] == '8' || id[19] == '9' || id[19] == 'a' || id[19] == 'b')
}
