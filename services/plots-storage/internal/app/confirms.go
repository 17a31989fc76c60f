package app

import (
	"context"
	"log/slog"
	"sync"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// A hold whose write landed and frees nothing needs no write of its own:
// its room is counted already, and its head names it. Its confirmation
// rides on the account's next change instead (one write fewer per write of
// a file, on the database every write of this service shares); after a
// crash, or if the account never changes again, settling the hold once it
// lapsed reads its head and keeps its room all the same.

// maxDeferredAccounts bounds the accounts whose confirmations wait in
// memory; past it a confirmation is written at once.
const maxDeferredAccounts = 4096

// deferredConfirms are the hold ids waiting for their account's next change.
type deferredConfirms struct {
	mu sync.Mutex
	by map[string][]string
}

// add defers the confirmation of id on account; false when too many
// accounts wait already.
func (d *deferredConfirms) add(account, id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by = map[string][]string{}
	}
	if _, ok := d.by[account]; !ok && len(d.by) >= maxDeferredAccounts {
		return false
	}
	d.by[account] = append(d.by[account], id)
	return true
}

// take hands the account's waiting confirmations to its next change.
func (d *deferredConfirms) take(account string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := d.by[account]
	delete(d.by, account)
	return ids
}

// putBack returns confirmations a change did not write.
func (d *deferredConfirms) putBack(account string, ids []string) {
	if len(ids) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by = map[string][]string{}
	}
	d.by[account] = append(d.by[account], ids...)
}

// accounts lists the accounts with confirmations waiting.
func (d *deferredConfirms) accounts() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, 0, len(d.by))
	for account := range d.by {
		out = append(out, account)
	}
	return out
}

// WriteDeferredConfirms writes every confirmation still waiting: at a
// clean stop, so that the next start has no landed holds to settle.
// Whatever it does not write in time is settled at that start all the same.
func (a *App) WriteDeferredConfirms(ctx context.Context) {
	bg, cancel := background(ctx)
	defer cancel()
	for _, account := range a.deferred.accounts() {
		if _, err := a.changeAccount(bg, account, a.lapsed, func(*domain.Account) error { return nil }); err != nil {
			a.Log.Info("left quota holds to settle at the next start", slog.String("account", account), slog.String("error", err.Error()))
			return
		}
	}
}

// FlushDeletes removes the file contents given up and still queued for
// removal (a stopping service, before its database closes).
func (a *App) FlushDeletes(ctx context.Context) {
	bg, cancel := background(ctx)
	defer cancel()
	a.Files.FlushDeletes(bg)
}
