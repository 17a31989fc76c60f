package platform

import (
	"context"
	"log/slog"
	"time"

	"sharedworld.dev/pkg/mongox"
)

// The in-memory copies of an Exclusive database (mongox.Mirror) are filled
// at start by scans that FerretDB serves slowly; a clean stop writes them
// to a snapshot under the data directory instead, and the next start reads
// them back (mongox.DB.OpenSnapshot, WriteSnapshot). Hosts without a data
// directory, and Shared databases, keep no snapshot.

// openSnapshots takes the snapshot tokens out of the services' databases
// before anything writes them, so that a crash of this run leaves none.
func (h *Host) openSnapshots(ctx context.Context) error {
	dir := h.opts.Config.DataDir
	if dir == "" {
		return nil
	}
	for _, db := range h.dbs {
		if err := db.OpenSnapshot(ctx, dir, h.log); err != nil {
			return err
		}
	}
	return nil
}

// writeSnapshots writes every database's copies once nothing writes any
// more. quiet says the host saw every request finish and the background
// work stop; without that proof it writes none, and the next start scans.
func (h *Host) writeSnapshots(quiet bool, deadline time.Time) {
	dir := h.opts.Config.DataDir
	if dir == "" || len(h.dbs) == 0 || h.opts.Backend.Mode != mongox.Exclusive {
		return
	}
	if !quiet {
		h.log.Warn("requests were still in flight at shutdown: no snapshot of the in-memory copies, the next start scans")
		return
	}
	start := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	total := 0
	for _, db := range h.dbs {
		n, err := db.WriteSnapshot(ctx, dir, time.Now().Add(2*time.Second))
		if err != nil {
			h.log.Warn("no snapshot of the in-memory copies: the next start scans", slog.String("db", db.Name()), slog.String("error", err.Error()))
			continue
		}
		total += n
	}
	h.log.Info("in-memory copies written to a snapshot", slog.Int("rows", total), slog.Duration("took", time.Since(start)))
}
