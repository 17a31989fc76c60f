package app

import (
	"context"
	"time"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// The repositories the use cases need; the store implements them and the
// service wires them in. Each Change runs a domain function on the current
// record and stores the result with the events it returns in one write;
// the function may run more than once when another writer changed the
// record meanwhile, so it depends on the record alone. Missing records are
// domain.ErrNotFound, records that kept changing domain.ErrBusy.

// Plots stores the grid's cells.
type Plots interface {
	// Change runs fn on the cell's record (free when never claimed);
	// domain.ErrHoldsAPlot when the result gives its owner a second plot.
	Change(ctx context.Context, cell domain.Coordinates, fn func(*domain.Plot) ([]domain.Event, error)) (domain.Plot, error)
	// Get returns a claimed plot.
	Get(ctx context.Context, plotID string) (domain.Plot, error)
	OwnedBy(ctx context.Context, agentID string) (domain.Plot, error)
	// NearestFree lists up to limit unclaimed cells nearest near, in the
	// order of domain.NearestAvailable (CONTRACT §11).
	NearestFree(ctx context.Context, near domain.Coordinates, limit int) ([]domain.Coordinates, error)
	CountClaimed(ctx context.Context) (int64, error)
	// ListClaimed pages by x then y, after the cell after (nil: from the start).
	ListClaimed(ctx context.Context, after *domain.Coordinates, limit int) ([]domain.Plot, error)
	// Tenancies are the tenancies of every claimed plot.
	Tenancies(ctx context.Context) (map[string]bool, error)
}

// Permissions stores each tenancy's permissions.
type Permissions interface {
	// Get returns the defaults when none were set.
	Get(ctx context.Context, tenancy string) (domain.Permissions, error)
	Put(ctx context.Context, tenancy string, p domain.Permissions) error
	DeleteTenancy(ctx context.Context, tenancy string) error
}

// Usage stores each tenancy's usage counters.
type Usage interface {
	// Change runs fn on the usage (zero when never counted); fn's error
	// leaves it as it was.
	Change(ctx context.Context, tenancy string, fn func(*domain.Usage) error) (domain.Usage, error)
	// Account is Change on the usage with its holds.
	Account(ctx context.Context, tenancy string, fn func(*domain.Account) error) (domain.Account, error)
	Current(ctx context.Context, tenancy string) (domain.Usage, error)
	// Read returns the account as stored, zero when never counted.
	Read(ctx context.Context, tenancy string) (domain.Account, error)
	// Holding lists the tenancies that record holds.
	Holding(ctx context.Context) ([]string, error)
	// Outlived reports whether h's writer is known to be gone, so that its
	// write can no longer land whether or not the hold lapsed.
	Outlived(h domain.Hold) bool
	DeleteTenancy(ctx context.Context, tenancy string) error
	// MoveTally adds files to the garden's tally (tally.go) and dates the
	// move after every earlier one; it returns the count and the date.
	MoveTally(ctx context.Context, files int64, now time.Time) (int64, time.Time, error)
	// StartTally sets the tally at start, where it needs counting, from
	// count: the garden's files as stored and the latest date they record.
	StartTally(ctx context.Context, now time.Time, count func(context.Context) (files int64, latest time.Time, err error)) error
}

// Files stores file heads with their content, up to
// domain.InlineContentBytes; a larger content is stored apart ("blobs"),
// under a new blob id, before the head is switched to it.
type Files interface {
	// Writing lets this process's writers of one path in one at a time:
	// concurrent writers of a path (the garden's index above all) would
	// otherwise each hold room, meet the other's head, give the room back
	// and try again. It returns the function that lets the next one in.
	Writing(plotID, tenancy, path string) (done func())
	// Head is a zero File when the path holds none.
	Head(ctx context.Context, plotID, tenancy, path string) (domain.File, error)
	// Change runs fn on the head (a zero File with its plot, tenancy and
	// path when new) and stores the result as the file's next version.
	Change(ctx context.Context, plotID, tenancy, path string, fn func(*domain.File) ([]domain.Event, error)) (domain.File, error)
	// Delete removes the file if check allows it.
	Delete(ctx context.Context, plotID, tenancy, path string, check func(domain.File) error) error
	List(ctx context.Context, plotID, tenancy, prefix string) ([]domain.File, error)
	// ListPage returns at most limit of List's files whose paths sort
	// after after, and how many List returns.
	ListPage(ctx context.Context, plotID, tenancy, prefix, after string, limit int) ([]domain.File, int, error)
	// ListVersion is the version of plotID's list: List answers the same
	// until it moves. ok is false when the store cannot tell (another
	// process may write).
	ListVersion(ctx context.Context, plotID string) (version uint64, ok bool, err error)
	PutBlob(ctx context.Context, tenancy string, data []byte, now time.Time) (string, error)
	// Content is f's content, from its blob or its head; domain.ErrNotFound
	// when a write replaced f meanwhile.
	Content(ctx context.Context, f domain.File) ([]byte, error)
	DeleteBlob(ctx context.Context, blobID string) error
	// FlushDeletes removes the contents DeleteBlob left queued (a stopping
	// service, before its database closes).
	FlushDeletes(ctx context.Context)
	DeleteTenancy(ctx context.Context, plotID, tenancy string) error
	// DeleteOrphans removes what tenancies not in live left before cutoff.
	DeleteOrphans(ctx context.Context, live map[string]bool, cutoff time.Time) (int64, error)
}

// Backups stores continuity backups, at most domain.MaxBackupsPerCitizen
// per citizen (domain.ErrBackupSlotsFull beyond).
type Backups interface {
	Insert(ctx context.Context, b domain.Backup) error
	// Get returns owner's backup with its content; another's is not found.
	Get(ctx context.Context, id, owner string) (domain.Backup, error)
	List(ctx context.Context, owner string, now time.Time) ([]domain.Backup, error)
	Delete(ctx context.Context, id string) error
	PurgeExpired(ctx context.Context, owner string, now time.Time) (int64, error)
}
