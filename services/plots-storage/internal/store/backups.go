package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/seal"
)

// Backup is a continuity backup: metadata in clear, content sealed. The
// sealed content is stored in a document of its own, so that listing and
// counting a citizen's backups never loads megabytes of ciphertext.
type Backup struct {
	ID        string            `bson:"_id"`
	Owner     string            `bson:"owner_agent_id"`
	Type      domain.BackupType `bson:"backup_type"`
	SizeBytes int64             `bson:"content_size_bytes"`
	CreatedAt time.Time         `bson:"created_at"`
	ExpiresAt *time.Time        `bson:"expires_at"`
	Sealed    Sealed            `bson:"-"`
}

type sealedDoc struct {
	ID     string `bson:"_id"`
	Sealed Sealed `bson:"sealed"`
}

// Sealed is the stored form of seal.Sealed.
type Sealed struct {
	KDF        string `bson:"kdf"`
	Time       uint32 `bson:"time"`
	MemoryKiB  uint32 `bson:"memory_kib"`
	Threads    uint8  `bson:"threads"`
	Salt       []byte `bson:"salt"`
	Nonce      []byte `bson:"nonce"`
	Ciphertext []byte `bson:"ciphertext"`
}

// SealedFrom converts a sealed record for storage.
func SealedFrom(s seal.Sealed) Sealed {
	return Sealed{KDF: s.KDF, Time: s.Params.Time, MemoryKiB: s.Params.MemoryKiB, Threads: s.Params.Threads,
		Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext}
}

// ToSeal converts the stored record back.
func (s Sealed) ToSeal() seal.Sealed {
	return seal.Sealed{KDF: s.KDF, Params: seal.Params{Time: s.Time, MemoryKiB: s.MemoryKiB, Threads: s.Threads},
		Salt: s.Salt, Nonce: s.Nonce, Ciphertext: s.Ciphertext}
}

// ErrFull means every one of the citizen's backup slots is taken.
var ErrFull = errors.New("backup slots full")

// Backups stores backups. Each backup occupies one of its owner's
// MaxBackupsPerCitizen numbered slots, and a unique index on the slot key
// admits one backup per slot: the limit holds under concurrency because
// it is decided by inserts, with no counter to update.
type Backups struct {
	coll    *mongo.Collection
	content *mongo.Collection
}

// NewBackups uses db's "backups" and "backup_contents" collections.
func NewBackups(db *mongox.DB) *Backups {
	return &Backups{coll: db.Collection("backups"), content: db.Collection("backup_contents")}
}

// EnsureIndexes creates the slot index and the per-owner listing index.
func (s *Backups) EnsureIndexes(ctx context.Context) error {
	return mongox.EnsureIndexes(ctx, s.coll,
		mongox.Index("slot_unique", true, bson.E{Key: "slot_key", Value: 1}),
		mongox.Index("owner_created", false, bson.E{Key: "owner_agent_id", Value: 1}, bson.E{Key: "created_at", Value: -1}))
}

func slotKey(owner string, slot int) string { return fmt.Sprintf("%s#%02d", owner, slot) }

// usedSlots returns the slot numbers owner's backups occupy.
func (s *Backups) usedSlots(ctx context.Context, owner string) (map[int]bool, error) {
	type slot struct {
		Slot int `bson:"slot"`
	}
	docs, err := mongox.FindAll[slot](ctx, s.coll, bson.M{"owner_agent_id": owner}, options.Find().SetProjection(bson.M{"slot": 1}))
	if err != nil {
		return nil, fmt.Errorf("read backup slots: %w", err)
	}
	used := make(map[int]bool, len(docs))
	for _, d := range docs {
		used[d.Slot] = true
	}
	return used, nil
}

// Insert stores b in a free slot of its owner, or returns ErrFull. A slot
// taken by a concurrent backup between our read and our insert is refused
// by the index and the next free one is tried. The content goes in first:
// a backup is visible only once its metadata holds a slot, and content
// left by a failed insert is removed.
func (s *Backups) Insert(ctx context.Context, b Backup) error {
	if _, err := s.content.InsertOne(ctx, sealedDoc{ID: b.ID, Sealed: b.Sealed}); err != nil {
		return fmt.Errorf("store backup content: %w", err)
	}
	err := s.insertMeta(ctx, b)
	if err != nil {
		_, _ = s.content.DeleteOne(context.WithoutCancel(ctx), bson.M{"_id": b.ID})
	}
	return err
}

func (s *Backups) insertMeta(ctx context.Context, b Backup) error {
	used, err := s.usedSlots(ctx, b.Owner)
	if err != nil {
		return err
	}
	for slot := range domain.MaxBackupsPerCitizen {
		if used[slot] {
			continue
		}
		_, err := s.coll.InsertOne(ctx, backupDoc{Backup: b, Slot: slot, SlotKey: slotKey(b.Owner, slot)})
		if mongo.IsDuplicateKeyError(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store backup: %w", err)
		}
		return nil
	}
	return ErrFull
}

// backupDoc is a backup with its slot.
type backupDoc struct {
	Backup  `bson:",inline"`
	Slot    int    `bson:"slot"`
	SlotKey string `bson:"slot_key"`
}

// Get returns owner's backup id with its sealed content; another citizen's
// is ErrNotFound.
func (s *Backups) Get(ctx context.Context, id, owner string) (Backup, error) {
	var b Backup
	err := s.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&b)
	if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && b.Owner != owner) {
		return Backup{}, ErrNotFound
	}
	if err != nil {
		return b, fmt.Errorf("read backup: %w", err)
	}
	var sd sealedDoc
	err = s.content.FindOne(ctx, bson.M{"_id": id}).Decode(&sd)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Backup{}, ErrNotFound // deleted meanwhile
	}
	if err != nil {
		return b, fmt.Errorf("read backup content: %w", err)
	}
	b.Sealed = sd.Sealed
	return b, nil
}

// List returns owner's unexpired backups, newest first, without content.
func (s *Backups) List(ctx context.Context, owner string, now time.Time) ([]Backup, error) {
	filter := bson.M{"owner_agent_id": owner, "$or": bson.A{bson.M{"expires_at": nil}, bson.M{"expires_at": bson.M{"$gt": now}}}}
	out, err := mongox.FindAll[Backup](ctx, s.coll, filter, options.Find().
		SetSort(bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	return out, nil
}

// Delete removes a backup (already checked to be owner's), freeing its
// slot; ErrNotFound when it is gone.
func (s *Backups) Delete(ctx context.Context, id string) error {
	res, err := s.coll.DeleteOne(ctx, bson.M{"_id": id})
	if err != nil {
		return fmt.Errorf("delete backup: %w", err)
	}
	if res.DeletedCount == 0 {
		return ErrNotFound
	}
	if _, err := s.content.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("delete backup content: %w", err)
	}
	return nil
}

// PurgeExpired deletes owner's expired backups, freeing their slots.
func (s *Backups) PurgeExpired(ctx context.Context, owner string, now time.Time) (int64, error) {
	expired, err := mongox.FindAll[Backup](ctx, s.coll, bson.M{"owner_agent_id": owner, "expires_at": bson.M{"$ne": nil, "$lte": now}},
		options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return 0, fmt.Errorf("find expired backups: %w", err)
	}
	var n int64
	for _, b := range expired {
		err := s.Delete(ctx, b.ID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
