package app

import (
	"context"
	"errors"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// BackupRequest is a backup as decoded; Content and EncryptionKey are nil when absent.
type BackupRequest struct {
	Content       *string
	EncryptionKey *string
	BackupType    string
	ExpiresAt     string
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// aad binds a sealed backup to its id and owner: a record copied to another
// id or citizen does not open.
func aad(backupID, owner string) []byte { return []byte(backupID + "|" + owner) }

// Backup seals content under the citizen's key and keeps it. The key is
// used for the derivation and dropped; it is never stored or logged.
func (a *App) Backup(ctx context.Context, who domain.Agent, req BackupRequest) (domain.Backup, error) {
	key := deref(req.EncryptionKey)
	if err := domain.ValidateEncryptionKey(key); err != nil {
		return domain.Backup{}, err
	}
	plain, err := domain.DecodeBackupContent(deref(req.Content))
	if err != nil {
		return domain.Backup{}, err
	}
	typ, err := domain.ParseBackupType(req.BackupType)
	if err != nil {
		return domain.Backup{}, err
	}
	now := clock.Stored(a.Clock.Now())
	expiry, err := domain.ParseExpiry(req.ExpiresAt, now)
	if err != nil {
		return domain.Backup{}, err
	}
	b := domain.Backup{ID: domain.NewBackupID(), Owner: who.ID, Type: typ, SizeBytes: int64(len(plain)), CreatedAt: now}
	if !expiry.IsZero() {
		b.ExpiresAt = &expiry
	}
	sealed, err := a.Sealer.Seal(plain, key, aad(b.ID, b.Owner))
	if err != nil {
		return domain.Backup{}, err
	}
	b.Sealed = sealed
	err = a.Backups.Insert(ctx, b)
	if errors.Is(err, domain.ErrBackupSlotsFull) {
		// Expired backups no longer count: clear them and try once more.
		purged, perr := a.Backups.PurgeExpired(ctx, who.ID, now)
		if perr != nil {
			return domain.Backup{}, perr
		}
		if purged > 0 {
			err = a.Backups.Insert(ctx, b)
		}
	}
	if errors.Is(err, domain.ErrBackupSlotsFull) {
		return domain.Backup{}, domain.BackupLimitReached()
	}
	return b, err
}

// ownBackup finds the citizen's live backup; anything else is 404.
func (a *App) ownBackup(ctx context.Context, owner, id string) (domain.Backup, error) {
	if !domain.ValidBackupID(id) {
		return domain.Backup{}, domain.BackupNotFound()
	}
	b, err := a.Backups.Get(ctx, id, owner)
	if errors.Is(err, domain.ErrNotFound) {
		return b, domain.BackupNotFound()
	}
	if err != nil {
		return b, err
	}
	if !b.Live(a.Clock.Now()) {
		return b, domain.BackupNotFound()
	}
	return b, nil
}

// Restore opens a backup with the key it was sealed under; a wrong key is 403.
func (a *App) Restore(ctx context.Context, who domain.Agent, backupID string, key *string) (domain.Backup, []byte, error) {
	if backupID == "" {
		return domain.Backup{}, nil, domain.Required("backup_id", `send {"backup_id": "<id from backup>", "encryption_key": "..."}`)
	}
	if err := domain.ValidateEncryptionKey(deref(key)); err != nil {
		return domain.Backup{}, nil, err
	}
	b, err := a.ownBackup(ctx, who.ID, backupID)
	if err != nil {
		return b, nil, err
	}
	plain, err := seal.Open(b.Sealed, *key, aad(b.ID, b.Owner))
	return b, plain, err
}

// ListBackups returns the citizen's live backups, newest first.
func (a *App) ListBackups(ctx context.Context, who domain.Agent) ([]domain.Backup, error) {
	return a.Backups.List(ctx, who.ID, a.Clock.Now())
}

// DeleteBackup removes one of the citizen's backups.
func (a *App) DeleteBackup(ctx context.Context, who domain.Agent, backupID string) error {
	if _, err := a.ownBackup(ctx, who.ID, backupID); err != nil {
		return err
	}
	err := a.Backups.Delete(ctx, backupID)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.BackupNotFound()
	}
	return err
}
