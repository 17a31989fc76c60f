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

// Backups stores backups. Each backup occupies one of its owner's
// MaxBackupsPerCitizen numbered slots, and a unique index on the slot key
// admits one backup per slot: the limit holds under concurrency because
// it is decided by inserts, with no counter to update.
type Backups struct {
	meta    *docs[backupDoc]
	content *docs[contentDoc]
	// mirror answers the queries on the metadata on an exclusive database
	// (nil on a shared one, where the indexes serve them).
	mirror *backupMirror
}

// NewBackups uses db's "backups" and "backup_contents" collections.
func NewBackups(db *mongox.DB) *Backups {
	s := &Backups{meta: mongox.NewDocs[backupDoc, eventOf](db, "backups", nil),
		content: mongox.NewDocs[contentDoc, eventOf](db, "backup_contents", nil), mirror: backupMirrorOf(db)}
	if s.mirror != nil {
		s.meta.Written = s.written
	}
	return s
}

// EnsureIndexes creates the slot index and the per-owner listing index.
// On an exclusive database it then loads the metadata into memory.
func (s *Backups) EnsureIndexes(ctx context.Context) error {
	if err := mongox.EnsureIndexes(ctx, s.meta.Collection(),
		mongox.Index("slot_unique", true, bson.E{Key: "slot_key", Value: 1}),
		mongox.Index("owner_created", false, bson.E{Key: "owner_agent_id", Value: 1}, bson.E{Key: "created_at", Value: -1})); err != nil {
		return err
	}
	return s.loadMirror(ctx)
}

func slotKey(owner string, slot int) string { return fmt.Sprintf("%s#%02d", owner, slot) }

// usedSlots returns the slot numbers owner's backups occupy.
func (s *Backups) usedSlots(ctx context.Context, owner string) (map[int]bool, error) {
	docs, err := s.find(ctx, bson.M{"owner_agent_id": owner}, func(*backupDoc) bool { return true },
		options.Find().SetProjection(bson.M{"slot": 1}))
	if err != nil {
		return nil, fmt.Errorf("read backup slots: %w", err)
	}
	used := make(map[int]bool, len(docs))
	for _, d := range docs {
		used[d.Slot] = true
	}
	return used, nil
}

// Insert stores b in a free slot of its owner, or returns
// domain.ErrBackupSlotsFull. A slot taken by a concurrent backup between
// our read and our insert is refused by the index and the next free one is
// tried. The content goes in first: a backup is visible only once its
// metadata holds a slot, and content left by a failed insert is removed.
func (s *Backups) Insert(ctx context.Context, b domain.Backup) error {
	if _, err := s.content.Insert(ctx, b.ID, contentDoc{ID: b.ID, Sealed: sealedDocOf(b.Sealed)}); err != nil {
		return fmt.Errorf("store backup content: %w", err)
	}
	err := s.insertMeta(ctx, b)
	if err != nil {
		_ = s.content.Delete(context.WithoutCancel(ctx), b.ID, nil)
	}
	return err
}

func (s *Backups) insertMeta(ctx context.Context, b domain.Backup) error {
	used, err := s.usedSlots(ctx, b.Owner)
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
	live := func(d *backupDoc) bool { return d.ExpiresAt == nil || d.ExpiresAt.After(now) }
	docs, err := s.find(ctx, filter, live, options.Find().
		SetSort(bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	out := make([]domain.Backup, len(docs))
	for i, d := range docs {
		out[i] = d.backup()
	}
	return out, nil
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
	expired, err := s.find(ctx, bson.M{"owner_agent_id": owner, "expires_at": bson.M{"$ne": nil, "$lte": now}},
		func(d *backupDoc) bool { return d.ExpiresAt != nil && !d.ExpiresAt.After(now) }, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return 0, fmt.Errorf("find expired backups: %w", err)
	}
	var n int64
	for _, b := range expired {
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

// find is one owner's query: filter on MongoDB, the same selection (keep,
// of filter's owner) from memory on an exclusive database, where the list
// order is the mirror's.
func (s *Backups) find(ctx context.Context, filter bson.M, keep func(*backupDoc) bool, opts *options.FindOptions) ([]backupDoc, error) {
	if s.mirror == nil {
		return mongox.FindAll[backupDoc](ctx, s.meta.Collection(), filter, opts)
	}
	if err := s.loadMirror(ctx); err != nil {
		return nil, err
	}
	return s.mirror.ofOwner(filter["owner_agent_id"].(string), keep), nil
}
