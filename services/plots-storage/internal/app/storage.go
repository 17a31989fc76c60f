package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/citizens"
	pkgevents "sharedworld.dev/pkg/events"
	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/services/plots-storage/internal/domain"
	"sharedworld.dev/services/plots-storage/internal/events"
	"sharedworld.dev/services/plots-storage/internal/store"
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
	File store.File
	Verb domain.Verb // set for garden writes
}

const writeHint = `send {"plot_id": "plot_x1_y2", "path": "/notes.md", "content": "<base64>"}`

// Write stores a file. Everything is validated first; then the quota is
// reserved, the content stored, and the new version committed (with the
// garden event, on the commons). A failure after the reservation gives it
// back, so a refused write leaves nothing behind.
func (a *App) Write(ctx context.Context, who citizens.Citizen, req WriteRequest) (Receipt, error) {
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
	access, err := a.access(ctx, plot, who.AgentID)
	if err != nil {
		return Receipt{}, err
	}
	if err := domain.AuthorizeWrite(access, who.AgentID, req.Path); err != nil {
		return Receipt{}, err
	}
	sum := sha256.Sum256(data)
	now := a.Clock.Now().Truncate(time.Millisecond)
	next := store.File{PlotID: plot.ID, Tenancy: plot.Tenancy, Path: req.Path, Size: int64(len(data)),
		Hash: "sha256:" + hex.EncodeToString(sum[:]), ContentType: contentType, WrittenAt: now, WrittenBy: who.AgentID}
	// The content is stored before taking the file's lock: the lock then
	// covers a few small writes, not a megabyte.
	next.BlobID, err = a.Files.PutBlob(ctx, plot.Tenancy, data, now)
	if err != nil {
		return Receipt{}, err
	}
	for range commitAttempts {
		r, err := a.commitWrite(ctx, who, next)
		if errors.Is(err, store.ErrVersionClash) {
			continue // another replica changed the file first: read again
		}
		if err != nil {
			a.dropBlob(ctx, next.BlobID)
		}
		return r, err
	}
	a.dropBlob(ctx, next.BlobID)
	return Receipt{}, problem.Unavailable(req.Path+" is being written by others at the same moment", "retry the write")
}

// commitWrite makes next the file's head under the file's lock: reserve the
// quota the change needs, switch the head (with the garden event, on the
// commons), and give the reservation back if the switch fails.
func (a *App) commitWrite(ctx context.Context, who citizens.Citizen, next store.File) (Receipt, error) {
	defer a.Files.Lock(next.PlotID, next.Tenancy, next.Path)()
	cur, err := a.Files.Head(ctx, next.PlotID, next.Tenancy, next.Path)
	if err != nil {
		return Receipt{}, err
	}
	change := domain.WriteChange(next.Size, cur.Size, cur.Exists())
	usage, err := a.reserve(ctx, next.Tenancy, change)
	if err != nil {
		return Receipt{}, err
	}
	next.Version = cur.Version + 1
	var evs []pkgevents.Event
	var verb domain.Verb
	if next.PlotID == domain.CommonsPlotID {
		verb = domain.GardenVerb(next.Path, cur.Exists())
		ev, err := events.Garden(events.GardenWrite{Verb: verb, Path: next.Path, AgentID: who.AgentID,
			AgentName: who.Name, Files: usage.Files, At: next.WrittenAt})
		if err != nil {
			a.release(ctx, next.PlotID, next.Tenancy, change)
			return Receipt{}, err
		}
		evs = append(evs, ev)
	}
	if err := a.Files.Put(ctx, cur, next, evs...); err != nil {
		a.release(ctx, next.PlotID, next.Tenancy, change)
		return Receipt{}, err
	}
	if cur.Exists() {
		a.dropBlob(ctx, cur.BlobID)
	}
	next.ID = store.FileID(next.PlotID, next.Tenancy, next.Path)
	return Receipt{File: next, Verb: verb}, nil
}

func (a *App) dropBlob(ctx context.Context, blobID string) {
	bg, cancel := background(ctx)
	defer cancel()
	if err := a.Files.DeleteBlob(bg, blobID); err != nil {
		a.Log.Warn("could not delete unused file content", slog.String("blob_id", blobID), slog.String("error", err.Error()))
	}
}

// readablePlot loads a plot the caller may read (agentID empty: anonymous).
func (a *App) readablePlot(ctx context.Context, agentID, plotID, hint string) (store.Plot, error) {
	if plotID == "" {
		return store.Plot{}, domain.Required("plot_id", hint)
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
func (a *App) Read(ctx context.Context, agentID, plotID, path string) (store.File, []byte, error) {
	hint := `send {"plot_id": "plot_x1_y2", "path": "/notes.md"}`
	if plotID == "" {
		return store.File{}, nil, domain.Required("plot_id", hint)
	}
	if err := domain.ValidatePath(path); err != nil {
		return store.File{}, nil, err
	}
	plot, err := a.readablePlot(ctx, agentID, plotID, hint)
	if err != nil {
		return store.File{}, nil, err
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
		data, err := a.Files.Blob(ctx, f.BlobID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		return f, data, err
	}
	return store.File{}, nil, problem.Unavailable(path+" is being rewritten continuously", "retry the read")
}

// List returns the files of a plot under prefix.
func (a *App) List(ctx context.Context, agentID, plotID, prefix string) ([]store.File, error) {
	if err := domain.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	plot, err := a.readablePlot(ctx, agentID, plotID, "send ?plot_id=plot_x1_y2 and optionally &prefix=/notes/")
	if err != nil {
		return nil, err
	}
	return a.Files.List(ctx, plot.ID, plot.Tenancy, prefix)
}

// Delete removes a file (the plot owner only) and gives its space back. The
// deletion is a version of its own, so it races with writes like a write.
func (a *App) Delete(ctx context.Context, who citizens.Citizen, plotID, path string) (store.File, error) {
	hint := `send {"plot_id": "plot_x1_y2", "path": "/notes.md"}`
	if plotID == "" {
		return store.File{}, domain.Required("plot_id", hint)
	}
	if err := domain.ValidatePath(path); err != nil {
		return store.File{}, err
	}
	plot, err := a.Plot(ctx, plotID)
	if err != nil {
		return store.File{}, err
	}
	if err := domain.AuthorizeDelete(domain.Plot{ID: plot.ID, Owner: plot.Owner}, who.AgentID); err != nil {
		return store.File{}, err
	}
	for range commitAttempts {
		f, err := a.deleteOnce(ctx, plot, path)
		if errors.Is(err, store.ErrVersionClash) {
			continue
		}
		return f, err
	}
	return store.File{}, problem.Unavailable(path+" is being rewritten continuously", "retry the delete")
}

func (a *App) deleteOnce(ctx context.Context, plot store.Plot, path string) (store.File, error) {
	defer a.Files.Lock(plot.ID, plot.Tenancy, path)()
	cur, err := a.Files.Head(ctx, plot.ID, plot.Tenancy, path)
	if err != nil {
		return cur, err
	}
	if !cur.Exists() {
		return cur, domain.FileNotFound(plot.ID, path)
	}
	if err := a.Files.Delete(ctx, cur); err != nil {
		return cur, err
	}
	a.account(ctx, plot.ID, plot.Tenancy, domain.DeleteChange(cur.Size))
	a.dropBlob(ctx, cur.BlobID)
	return cur, nil
}
