package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/pkg/seal"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// backupDoc is a continuity backup's metadata with the slot it occupies.
// The sealed content is stored in a document of its own, so that listing
// and counting a citizen's backups never loads megabytes of ciphertext.
type backupDoc struct {
	ID        string            `bson:"_id"`
	Owner     string            `bson:"owner_agent_id"`
	Type      domain.BackupType `bson:"backup_type"`
	SizeBytes int64             `bson:"content_size_bytes"`
	CreatedAt time.Time         `bson:"created_at"`
	ExpiresAt *time.Time        `bson:"expires_at"`
	Slot      int               `bson:"slot"`
	SlotKey   string            `bson:"slot_key"`
}

func (d backupDoc) backup() domain.Backup {
	return domain.Backup{ID: d.ID, Owner: d.Owner, Type: d.Type, SizeBytes: d.SizeBytes, CreatedAt: d.CreatedAt, ExpiresAt: d.ExpiresAt}
}

// sealedDoc is the stored form of seal.Sealed.
type sealedDoc struct {
	KDF        string `bson:"kdf"`
	Time       uint32 `bson:"time"`
	MemoryKiB  uint32 `bson:"memory_kib"`
	Threads    uint8  `bson:"threads"`
	Salt       []byte `bson:"salt"`
	Nonce      []byte `bson:"nonce"`
	Ciphertext []byte `bson:"ciphertext"`
}

// The content's fields sit under "sealed" in its document.
type contentDoc struct {
	ID     string    `bson:"_id"`
	Sealed sealedDoc `bson:"sealed"`
}

func sealedDocOf(s seal.Sealed) sealedDoc {
	return sealedDoc{KDF: s.KDF, Time: s.Params.Time, MemoryKiB: s.Params.MemoryKiB, Threads: s.Params.Threads,
		Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext}
}

func (s sealedDoc) seal() seal.Sealed {
	return seal.Sealed{KDF: s.KDF, Params: seal.Params{Time: s.Time, MemoryKiB: s.MemoryKiB, Threads: s.Threads},
		Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext}
}

// Backups is the backups adapter on MongoDB: an owner's backups are a
// query its per-owner index serves. Each backup occupies one of its
// owner's MaxBackupsPerCitizen numbered slots, and a unique index on the
// slot key admits one backup per slot: the limit holds under concurrency
// because it is decided by inserts, with no counter to update.
type Backups struct {
	meta    *docs[backupDoc]
	content *docs[contentDoc]
}

// NewBackups uses db's "backups" and "backup_contents" collections.
func NewBackups(db *mongox.DB) *Backups {
	return &Backups{meta: mongox.NewDocs[backupDoc, eventOf](db, "backups", nil),
		content: mongox.NewDocs[contentDoc, eventOf](db, "backup_contents", nil)}
}

// EnsureIndexes creates the slot index and the per-owner listing index.
func (s *Backups) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.meta.Collection(),
		mongox.Index("slot_unique", true, bson.E{Key: "slot_key", Value: 1}),
		mongox.Index("owner_created", false, bson.E{Key: "owner_agent_id", Value: 1}, bson.E{Key: "created_at", Value: -1}))
}

func slotKey(owner string, slot int) string { return fmt.Sprintf("%s#%02d", owner, slot) }

// usedSlots returns the slot numbers owner's backups occupy.
func (s *Backups) usedSlots(ctx context.Context, owner string) (map[int]bool, error) {
	docs, err := mongox.FindAll[backupDoc](ctx, s.meta.Collection(), bson.M{"owner_agent_id": owner},
		options.Find().SetProjection(bson.M{"slot": 1}))
	if err != nil {
		return nil, fmt.Errorf("read backup slots: %w", err)
	}
	return slotsOf(docs), nil
}

func slotsOf(docs []backupDoc) map[int]bool {
	used := make(map[int]bool, len(docs))
	for _, d := range docs {
		used[d.Slot] = true
	}
	return used
}

// Insert stores b in a free slot of its owner, or returns
// domain.ErrBackupSlotsFull. A slot taken by a concurrent backup between
// our read and our insert is refused by the index and the next free one is
// tried. The content goes in first: a backup is visible only once its
// metadata holds a slot, and content left by a failed insert is removed.
func (s *Backups) Insert(ctx context.Context, b domain.Backup) error {
	return s.insertIn(ctx, b, s.usedSlots)
}

// insertIn is Insert reading the slots the owner's backups occupy with used.
func (s *Backups) insertIn(ctx context.Context, b domain.Backup, used func(ctx context.Context, owner string) (map[int]bool, error)) error {
	if _, err := s.content.Insert(ctx, b.ID, contentDoc{ID: b.ID, Sealed: sealedDocOf(b.Sealed)}); err != nil {
		return fmt.Errorf("store backup content: %w", err)
	}
	err := s.insertMeta(ctx, b, used)
	if err != nil {
		_ = s.content.Delete(context.WithoutCancel(ctx), b.ID, nil)
	}
	return err
}

func (s *Backups) insertMeta(ctx context.Context, b domain.Backup, usedSlots func(ctx context.Context, owner string) (map[int]bool, error)) error {
	used, err := usedSlots(ctx, b.Owner)
	if err != nil {
		return err
	}
	for slot := range domain.MaxBackupsPerCitizen {
		if used[slot] {
			continue
		}
		_, err := s.meta.Insert(ctx, b.ID, backupDoc{ID: b.ID, Owner: b.Owner, Type: b.Type, SizeBytes: b.SizeBytes,
			CreatedAt: b.CreatedAt, ExpiresAt: b.ExpiresAt, Slot: slot, SlotKey: slotKey(b.Owner, slot)})
		if errors.Is(err, mongox.ErrDuplicate) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store backup: %w", err)
		}
		return nil
	}
	return domain.ErrBackupSlotsFull
}

// Get returns owner's backup id with its sealed content; another citizen's
// is domain.ErrNotFound.
func (s *Backups) Get(ctx context.Context, id, owner string) (domain.Backup, error) {
	d, err := s.meta.Get(ctx, id)
	if errors.Is(err, mongox.ErrNotFound) || (err == nil && d.Owner != owner) {
		return domain.Backup{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Backup{}, fmt.Errorf("read backup: %w", err)
	}
	c, err := s.content.Get(ctx, id)
	if errors.Is(err, mongox.ErrNotFound) {
		return domain.Backup{}, domain.ErrNotFound // deleted meanwhile
	}
	if err != nil {
		return domain.Backup{}, fmt.Errorf("read backup content: %w", err)
	}
	b := d.backup()
	b.Sealed = c.Sealed.seal()
	return b, nil
}

// List returns owner's unexpired backups, newest first, without content.
func (s *Backups) List(ctx context.Context, owner string, now time.Time) ([]domain.Backup, error) {
	filter := bson.M{"owner_agent_id": owner, "$or": bson.A{bson.M{"expires_at": nil}, bson.M{"expires_at": bson.M{"$gt": now}}}}
	docs, err := mongox.FindAll[backupDoc](ctx, s.meta.Collection(), filter, options.Find().
		SetSort(bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	return backupsOf(docs), nil
}

func backupsOf(docs []backupDoc) []domain.Backup {
	out := make([]domain.Backup, len(docs))
	for i, d := range docs {
		out[i] = d.backup()
	}
	return out
}

// Delete removes a backup (already checked to be its owner's), freeing its
// slot; domain.ErrNotFound when it is gone.
func (s *Backups) Delete(ctx context.Context, id string) error {
	if err := s.meta.Delete(ctx, id, nil); err != nil {
		return outcome(err)
	}
	if err := s.content.Delete(ctx, id, nil); err != nil && !errors.Is(err, mongox.ErrNotFound) {
		return fmt.Errorf("delete backup content: %w", err)
	}
	return nil
}

// PurgeExpired deletes owner's expired backups, freeing their slots.
func (s *Backups) PurgeExpired(ctx context.Context, owner string, now time.Time) (int64, error) {
	expired, err := mongox.FindAll[backupDoc](ctx, s.meta.Collection(),
		bson.M{"owner_agent_id": owner, "expires_at": bson.M{"$ne": nil, "$lte": now}}, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return 0, fmt.Errorf("find expired backups: %w", err)
	}
	return s.deleteEach(ctx, expired)
}

// deleteEach deletes the backups (expired ones), counting those it found.
func (s *Backups) deleteEach(ctx context.Context, backups []backupDoc) (int64, error) {
	var n int64
	for _, b := range backups {
		err := s.Delete(ctx, b.ID)
		if errors.Is(err, domain.ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
