package app

import (
	"context"
	"errors"
	"time"

	"sharedworld.dev/pkg/citizens"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/seal"
	"sharedworld.dev/services/plots-storage/internal/store"
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
func (a *App) Backup(ctx context.Context, who citizens.Citizen, req BackupRequest) (store.Backup, error) {
	key := deref(req.EncryptionKey)
	if err := domain.ValidateEncryptionKey(key); err != nil {
		return store.Backup{}, err
	}
	plain, err := domain.DecodeBackupContent(deref(req.Content))
	if err != nil {
		return store.Backup{}, err
	}
	typ, err := domain.ParseBackupType(req.BackupType)
	if err != nil {
		return store.Backup{}, err
	}
	now := a.Clock.Now().Truncate(time.Millisecond)
	expiry, err := domain.ParseExpiry(req.ExpiresAt, now)
	if err != nil {
		return store.Backup{}, err
	}
	b := store.Backup{ID: domain.NewBackupID(), Owner: who.AgentID, Type: typ, SizeBytes: int64(len(plain)), CreatedAt: now}
	if !expiry.IsZero() {
		b.ExpiresAt = &expiry
	}
	sealed, err := a.Sealer.Seal(plain, key, aad(b.ID, b.Owner))
	if err != nil {
		return store.Backup{}, err
	}
	b.Sealed = store.SealedFrom(sealed)
	err = a.Backups.Insert(ctx, b)
	if errors.Is(err, store.ErrFull) {
		// Expired backups no longer count: clear them and try once more.
		purged, perr := a.Backups.PurgeExpired(ctx, who.AgentID, now)
		if perr != nil {
			return store.Backup{}, perr
		}
		if purged > 0 {
			err = a.Backups.Insert(ctx, b)
		}
	}
	if errors.Is(err, store.ErrFull) {
		return store.Backup{}, domain.BackupLimitReached()
	}
	return b, err
}

// ownBackup finds the citizen's live backup; anything else is 404.
func (a *App) ownBackup(ctx context.Context, owner, id string) (store.Backup, error) {
	if !domain.ValidBackupID(id) {
		return store.Backup{}, domain.BackupNotFound()
	}
	b, err := a.Backups.Get(ctx, id, owner)
	if errors.Is(err, store.ErrNotFound) {
		return b, domain.BackupNotFound()
	}
	if err != nil {
		return b, err
	}
	if b.ExpiresAt != nil && domain.Expired(*b.ExpiresAt, a.Clock.Now()) {
		return b, domain.BackupNotFound()
	}
	return b, nil
}

// Restore opens a backup with the key it was sealed under; a wrong key is 403.
func (a *App) Restore(ctx context.Context, who citizens.Citizen, backupID string, key *string) (store.Backup, []byte, error) {
	if backupID == "" {
		return store.Backup{}, nil, domain.Required("backup_id", `send {"backup_id": "<id from backup>", "encryption_key": "..."}`)
	}
	if err := domain.ValidateEncryptionKey(deref(key)); err != nil {
		return store.Backup{}, nil, err
	}
	b, err := a.ownBackup(ctx, who.AgentID, backupID)
	if err != nil {
		return b, nil, err
	}
	plain, err := seal.Open(b.Sealed.ToSeal(), *key, aad(b.ID, b.Owner))
	return b, plain, err
}

// ListBackups returns the citizen's live backups, newest first.
func (a *App) ListBackups(ctx context.Context, who citizens.Citizen) ([]store.Backup, error) {
	return a.Backups.List(ctx, who.AgentID, a.Clock.Now())
}

// DeleteBackup removes one of the citizen's backups.
func (a *App) DeleteBackup(ctx context.Context, who citizens.Citizen, backupID string) error {
	if _, err := a.ownBackup(ctx, who.AgentID, backupID); err != nil {
		return err
	}
	err := a.Backups.Delete(ctx, backupID)
	if errors.Is(err, store.ErrNotFound) {
		return domain.BackupNotFound()
	}
	return err
}
