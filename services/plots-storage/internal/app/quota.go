package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// A write's room is a hold on its tenancy's account (domain/hold.go; a
// garden write's on its planter's share, grant.go): taken before the file
// is written, confirmed once the file's head names it (with the account's
// next change when it frees nothing, confirms.go), and given back when the
// write fails. A crash in between leaves the hold
// recorded; the account's next change settles it once it has lapsed, and
// the start of a process that is the database's only writer settles every
// hold at once, since none of their writers can be alive.

// errUndecided ends an account change that met holds to settle whose heads
// were not read yet: they are read outside the account's lock (no lock is
// held while another is taken) and the change runs again.
var errUndecided = errors.New("holds to settle")

// changeAccount runs fn on the tenancy's account after settling the holds
// dead says are over: a hold whose file's head names it landed and keeps
// its room, any other gives it back.
func (a *App) changeAccount(ctx context.Context, tenancy string, dead func(domain.Hold) bool,
	fn func(*domain.Account) error) (domain.Account, error) {
	landed := map[string]bool{}
	deferred := a.deferred.take(tenancy)
	for {
		var undecided, released []domain.Hold
		acc, err := a.Usage.Account(ctx, tenancy, func(acc *domain.Account) error {
			for _, id := range deferred {
				acc.Confirm(id)
			}
			if undecided, released = acc.Settle(dead, landed); len(undecided) > 0 {
				return errUndecided
			}
			return fn(acc)
		})
		if !errors.Is(err, errUndecided) {
			if err != nil {
				a.deferred.putBack(tenancy, deferred) // nothing was written
			} else {
				for _, h := range released {
					a.unmoveTally(ctx, h) // a garden write that never landed
				}
			}
			return acc, err
		}
		// Each round decides at least one hold more, so this ends.
		for _, h := range undecided {
			did, err := a.holdLanded(ctx, tenancy, h)
			if err != nil {
				return domain.Account{}, fmt.Errorf("settle a quota hold: %w", err)
			}
			landed[h.ID] = did
		}
	}
}

// holdLanded reports whether the write (or grant) of a dead hold landed:
// a file's head names its hold; a share whose grant sequence reached a
// grant's number took it.
func (a *App) holdLanded(ctx context.Context, tenancy string, h domain.Hold) (bool, error) {
	if h.Grant > 0 {
		share, err := a.Usage.Read(ctx, h.Path)
		return share.GrantSeq >= h.Grant, err
	}
	head, err := a.Files.Head(ctx, h.PlotID, fileTenancy(tenancy, h), h.Path)
	return head.Hold == h.ID, err
}

// fileTenancy is the tenancy of the file a hold on the account was taken
// for: the account's own, or the commons' for a hold on a garden share.
func fileTenancy(account string, h domain.Hold) string {
	if h.PlotID == domain.CommonsPlotID {
		return domain.CommonsTenancy
	}
	return account
}

// lapsed is the dead hold of a live world: one whose write can no longer land.
func (a *App) lapsed(h domain.Hold) bool { return h.Lapsed(a.Clock.Now()) }

// newHold is a hold of change for the file at path, lasting domain.HoldLife.
func (a *App) newHold(plotID, path string, change domain.Change) domain.Hold {
	id := make([]byte, 12)
	_, _ = rand.Read(id) // crypto/rand.Read never fails (Go ≥ 1.24)
	return domain.Hold{ID: "hold_" + hex.EncodeToString(id), PlotID: plotID, Path: path, Change: change,
		Until: a.Clock.Now().Add(domain.HoldLife)}
}

// reserve takes h's room from a plot tenancy's quota (413 with the reason
// when it refuses; the garden's writes reserve with reserveGarden).
// landed is the hold the head the write read names: that head proves its
// write landed, and confirming it here keeps it from being taken for a
// lost one once the head is overwritten.
func (a *App) reserve(ctx context.Context, tenancy string, h domain.Hold, landed string) error {
	_, err := a.changeAccount(ctx, tenancy, a.lapsed, func(acc *domain.Account) error {
		acc.Confirm(landed)
		return acc.ReserveWithin(h, domain.PlotQuota)
	})
	return err
}

// confirm forgets a hold whose write landed: with the account's next
// change when it frees nothing (confirms.go), at once otherwise. A failure
// costs nothing but the record: the head names the hold, and settling it
// later keeps its room.
func (a *App) confirm(ctx context.Context, tenancy string, h domain.Hold) {
	if h.Empty() {
		return
	}
	if h.Frees == (domain.Change{}) && a.deferred.add(tenancy, h.ID) {
		return
	}
	a.confirmed(ctx, tenancy, h)
}

// confirmed is confirm returning the account after it (ok: it was written).
func (a *App) confirmed(ctx context.Context, tenancy string, h domain.Hold) (domain.Account, bool) {
	if h.Empty() {
		return domain.Account{}, false
	}
	bg, cancel := background(ctx)
	defer cancel()
	acc, err := a.changeAccount(bg, tenancy, a.lapsed, func(acc *domain.Account) error { acc.Confirm(h.ID); return nil })
	if err != nil {
		a.Log.Warn("could not confirm a quota hold; it is settled later", slog.String("hold", h.ID), slog.String("error", err.Error()))
		return acc, false
	}
	return acc, true
}

// release gives back the room of a hold whose write did not land, and
// reports whether this call gave it back. A failure leaves the hold
// recorded, and settling it once it lapsed gives the room back then.
func (a *App) release(ctx context.Context, tenancy string, h domain.Hold) bool {
	if h.Empty() {
		return false
	}
	bg, cancel := background(ctx)
	defer cancel()
	var had bool
	if _, err := a.changeAccount(bg, tenancy, a.lapsed, func(acc *domain.Account) error {
		had = acc.Has(h.ID)
		acc.Release(h.ID)
		return nil
	}); err != nil {
		a.Log.Warn("could not give a quota hold back; it is settled once it lapses",
			slog.String("hold", h.ID), slog.String("error", err.Error()))
		return false
	}
	return had
}

// account applies a change that needs no room (space given back) and
// confirms the hold of the head it removed. A failure leaves the usage
// overstated, never understated, so the quota stays safe.
func (a *App) account(ctx context.Context, plotID, tenancy string, change domain.Change, landed string) {
	if change == (domain.Change{}) && landed == "" {
		return
	}
	bg, cancel := background(ctx)
	defer cancel()
	if _, err := a.changeAccount(bg, tenancy, a.lapsed, func(acc *domain.Account) error {
		acc.Confirm(landed)
		acc.Apply(change)
		return nil
	}); err != nil {
		a.Log.Error("could not give quota back; the plot's usage overstates by it",
			slog.String("plot_id", plotID), slog.Int64("bytes", -change.Bytes), slog.Int64("files", -change.Files),
			slog.String("error", err.Error()))
	}
}

// SettleHolds settles the holds of every tenancy that records some: those
// that lapsed, and those the store knows outlived their writers (on the
// database's only writer, every hold found before it served: nothing it
// did is in flight, and no other process writes).
func (a *App) SettleHolds(ctx context.Context) error {
	tenancies, err := a.Usage.Holding(ctx)
	if err != nil {
		return err
	}
	dead := func(h domain.Hold) bool { return a.Usage.Outlived(h) || a.lapsed(h) }
	for _, t := range tenancies {
		if _, err := a.changeAccount(ctx, t, dead, func(*domain.Account) error { return nil }); err != nil {
			return fmt.Errorf("settle the quota holds of %s: %w", t, err)
		}
	}
	return nil
}
