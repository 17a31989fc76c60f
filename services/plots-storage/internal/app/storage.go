package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// commitAttempts bounds retries when concurrent writers of one path collide.
const commitAttempts = 50

// WriteRequest is a storage write as decoded. Content is nil when absent.
type WriteRequest struct {
	PlotID      string
	Path        string
	Content     *string
	ContentType string
}

// Receipt is what a write answers.
type Receipt struct {
	File domain.File
	Verb domain.Verb // set for garden writes
}

const writeHint = `send {"plot_id": "plot_x1_y2", "path": "/notes.md", "content": "<base64>"}`

// Write stores a file. Everything is validated first; then the quota is
// reserved, the content stored, and the new version committed (with the
// garden event, on the commons). A failure after the reservation gives it
// back, so a refused write leaves nothing behind.
func (a *App) Write(ctx context.Context, who domain.Agent, req WriteRequest) (Receipt, error) {
	if req.PlotID == "" {
		return Receipt{}, domain.Required("plot_id", writeHint)
	}
	if err := domain.ValidatePath(req.Path); err != nil {
		return Receipt{}, err
	}
	if req.Content == nil {
		return Receipt{}, domain.Required("content", `send the file as base64 in "content"; "" writes an empty file`)
	}
	contentType, err := domain.ContentType(req.ContentType, req.Path)
	if err != nil {
		return Receipt{}, err
	}
	data, err := domain.DecodeContent(*req.Content, domain.MaxFileBytes)
	if err != nil {
		return Receipt{}, err
	}
	plot, err := a.Plot(ctx, req.PlotID)
	if err != nil {
		return Receipt{}, err
	}
	access, err := a.access(ctx, plot, who.ID)
	if err != nil {
		return Receipt{}, err
	}
	if err := domain.AuthorizeWrite(access, who.ID, req.Path); err != nil {
		return Receipt{}, err
	}
	sum := sha256.Sum256(data)
	now := clock.Stored(a.Clock.Now())
	next := domain.File{PlotID: plot.ID, Tenancy: plot.Tenancy, Path: req.Path, Size: int64(len(data)),
		Hash: "sha256:" + hex.EncodeToString(sum[:]), ContentType: contentType, WrittenAt: now, WrittenBy: who.ID}
	// Small content goes in the head itself. Larger content is stored
	// before the head is switched: the change of the head then covers a
	// few small fields, not a megabyte.
	if len(data) <= domain.InlineContentBytes {
		next.Content = append([]byte{}, data...)
	} else if next.BlobID, err = a.Files.PutBlob(ctx, plot.Tenancy, data, now); err != nil {
		return Receipt{}, err
	}
	done := a.Files.Writing(next.PlotID, next.Tenancy, next.Path)
	defer done()
	for range commitAttempts {
		r, err := a.commitWrite(ctx, who, next)
		if errors.Is(err, errResized) || errors.Is(err, domain.ErrBusy) || errors.Is(err, errHoldLapsed) {
			continue // another writer changed the file first, or this one was too slow: read again
		}
		if err != nil && !errors.Is(err, errUncertain) {
			a.dropBlob(ctx, next.BlobID)
		}
		return r, err
	}
	a.dropBlob(ctx, next.BlobID)
	return Receipt{}, domain.FileBusy(req.Path, "write")
}

// errResized ends a commit whose file changed after its quota was reserved.
var errResized = errors.New("the file changed since the reservation")

// errHoldLapsed ends a commit whose hold lapsed before its file landed: the
// hold may be settled as lost by now, so the file must not land under it.
var errHoldLapsed = errors.New("the quota hold lapsed before the write")

// errUncertain marks a failed head change the database may have applied.
var errUncertain = errors.New("the write's outcome is unknown")

// commitWrite makes next the file's head: hold the quota the change from
// the head as read needs, switch the head if it is still that one (naming
// the hold, with the garden event on the commons), then confirm the hold,
// or give it back if the switch does not happen. The hold is taken and
// settled outside the file's change, which holds no other record; a crash
// in between leaves it to be settled by the head (domain/hold.go).
func (a *App) commitWrite(ctx context.Context, who domain.Agent, next domain.File) (Receipt, error) {
	cur, err := a.Files.Head(ctx, next.PlotID, next.Tenancy, next.Path)
	if err != nil {
		return Receipt{}, err
	}
	hold := a.newHold(next.PlotID, next.Path, domain.WriteChange(next.Size, cur.Size, cur.Exists()))
	garden := next.PlotID == domain.CommonsPlotID
	var files int64
	if garden {
		next.PlantedBy = domain.Planter(next.Path, cur, who.ID)
		var at time.Time
		if files, at, err = a.reserveGarden(ctx, who.ID, cur, next.PlantedBy, hold); err != nil {
			return Receipt{}, err
		}
		next.WrittenAt = at
	} else if err := a.reserve(ctx, next.Tenancy, hold, cur.Hold); err != nil {
		return Receipt{}, err
	}
	if garden {
		// The room is held and the garden's count moved: from here the
		// write lands or gives both back even if its caller gives up, so
		// the count does not wait for the hold's lapse to come right.
		var cancel context.CancelFunc
		ctx, cancel = background(ctx)
		defer cancel()
	}
	var verb domain.Verb
	var replaced domain.File
	f, err := a.Files.Change(ctx, next.PlotID, next.Tenancy, next.Path, func(f *domain.File) ([]domain.Event, error) {
		if f.Version != cur.Version {
			return nil, errResized
		}
		if a.Clock.Now().After(hold.Until) {
			return nil, errHoldLapsed
		}
		replaced = *f
		*f = next
		f.Version = replaced.Version
		f.Hold = hold.ID
		if next.PlotID != domain.CommonsPlotID {
			return nil, nil
		}
		verb = domain.GardenVerb(next.Path, replaced.Exists())
		return []domain.Event{domain.GardenChanged{Verb: verb, Path: next.Path, AgentID: who.ID,
			AgentName: who.Name, Files: files, At: next.WrittenAt}}, nil
	})
	switch {
	case errors.Is(err, errResized) || errors.Is(err, errHoldLapsed) || errors.Is(err, domain.ErrBusy):
		// Refused: the head is not this write's.
		if garden {
			a.settleGarden(ctx, next.PlantedBy, hold, false)
		} else {
			a.release(ctx, next.Tenancy, hold)
		}
		return Receipt{}, err
	case err != nil:
		// The database may have taken the head all the same (an answer
		// lost on the way back): the hold stays, and its head settles it
		// once it lapses; the content stays too.
		return Receipt{}, fmt.Errorf("%w: %w", errUncertain, err)
	}
	if garden {
		a.settleGarden(ctx, next.PlantedBy, hold, true)
	} else {
		a.confirm(ctx, next.Tenancy, hold)
	}
	if replaced.Exists() {
		a.dropBlob(ctx, replaced.BlobID)
	}
	return Receipt{File: f, Verb: verb}, nil
}

func (a *App) dropBlob(ctx context.Context, blobID string) {
	bg, cancel := background(ctx)
	defer cancel()
	if err := a.Files.DeleteBlob(bg, blobID); err != nil {
		a.Log.Warn("could not delete unused file content", slog.String("blob_id", blobID), slog.String("error", err.Error()))
	}
}

// readablePlot loads a plot the caller may read (agentID empty: anonymous).
func (a *App) readablePlot(ctx context.Context, agentID, plotID, hint string) (domain.Plot, error) {
	if plotID == "" {
		return domain.Plot{}, domain.Required("plot_id", hint)
	}
	plot, err := a.Plot(ctx, plotID)
	if err != nil {
		return plot, err
	}
	access, err := a.access(ctx, plot, agentID)
	if err != nil {
		return plot, err
	}
	return plot, domain.AuthorizeRead(access, agentID)
}

// Read returns a file and its content.
func (a *App) Read(ctx context.Context, agentID, plotID, path string) (domain.File, []byte, error) {
	hint := `send {"plot_id": "plot_x1_y2", "path": "/notes.md"}`
	if plotID == "" {
		return domain.File{}, nil, domain.Required("plot_id", hint)
	}
	if err := domain.ValidatePath(path); err != nil {
		return domain.File{}, nil, err
	}
	plot, err := a.readablePlot(ctx, agentID, plotID, hint)
	if err != nil {
		return domain.File{}, nil, err
	}
	// A concurrent overwrite may delete the content we are about to read;
	// the newest version, read again, points at content that exists.
	for range commitAttempts {
		f, err := a.Files.Head(ctx, plot.ID, plot.Tenancy, path)
		if err != nil {
			return f, nil, err
		}
		if !f.Exists() {
			return f, nil, domain.FileNotFound(plot.ID, path)
		}
		data, err := a.Files.Content(ctx, f)
		if errors.Is(err, domain.ErrNotFound) {
			continue
		}
		return f, data, err
	}
	return domain.File{}, nil, domain.FileBusy(path, "read")
}

// Listing is one list a caller may read: a plot's tenancy under a prefix,
// and the version of the plot's list when the store keeps one (Versioned):
// the files listed after reading it are the answer until it moves, so an
// encoded answer can be kept under (PlotID, Tenancy, Prefix, Version).
type Listing struct {
	PlotID, Tenancy, Prefix string
	Version                 uint64
	Versioned               bool
}

// OpenList checks a list request (the prefix, the plot, the caller's read
// access) and reads the list's version; ListFiles lists it.
func (a *App) OpenList(ctx context.Context, agentID, plotID, prefix string) (Listing, error) {
	if err := domain.ValidatePrefix(prefix); err != nil {
		return Listing{}, err
	}
	plot, err := a.readablePlot(ctx, agentID, plotID, "send ?plot_id=plot_x1_y2 and optionally &prefix=/notes/")
	if err != nil {
		return Listing{}, err
	}
	l := Listing{PlotID: plot.ID, Tenancy: plot.Tenancy, Prefix: prefix}
	l.Version, l.Versioned, err = a.Files.ListVersion(ctx, plot.ID)
	return l, err
}

// ListFiles returns the listing's files, by path.
func (a *App) ListFiles(ctx context.Context, l Listing) ([]domain.File, error) {
	return a.Files.List(ctx, l.PlotID, l.Tenancy, l.Prefix)
}

// ListPage returns at most limit of the listing's files whose paths sort
// after after ("": from the first), and how many files the listing holds.
func (a *App) ListPage(ctx context.Context, l Listing, after string, limit int) ([]domain.File, int, error) {
	return a.Files.ListPage(ctx, l.PlotID, l.Tenancy, l.Prefix, after, limit)
}

// Delete removes a file (the plot owner only; in the garden, its planter)
// and gives its space back. The deletion is a version of its own, so it
// races with writes like a write.
func (a *App) Delete(ctx context.Context, who domain.Agent, plotID, path string) (domain.File, error) {
	hint := `send {"plot_id": "plot_x1_y2", "path": "/notes.md"}`
	if plotID == "" {
		return domain.File{}, domain.Required("plot_id", hint)
	}
	if err := domain.ValidatePath(path); err != nil {
		return domain.File{}, err
	}
	if plotID == domain.CommonsPlotID {
		return a.RemoveGardenFile(ctx, domain.Remover{AgentID: who.ID}, path)
	}
	plot, err := a.Plot(ctx, plotID)
	if err != nil {
		return domain.File{}, err
	}
	if err := domain.AuthorizeDelete(plot.Access(domain.Permissions{}), who.ID); err != nil {
		return domain.File{}, err
	}
	var deleted domain.File
	err = a.Files.Delete(ctx, plot.ID, plot.Tenancy, path, func(f domain.File) error {
		deleted = f
		return nil
	})
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return domain.File{}, domain.FileNotFound(plot.ID, path)
	case errors.Is(err, domain.ErrBusy):
		return domain.File{}, domain.FileBusy(path, "delete")
	case err != nil:
		return domain.File{}, err
	}
	a.account(ctx, plot.ID, plot.Tenancy, domain.DeleteChange(deleted.Size), deleted.Hold)
	a.dropBlob(ctx, deleted.BlobID)
	return deleted, nil
}
