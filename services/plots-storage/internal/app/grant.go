package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"sharedworld.dev/services/plots-storage/internal/domain"
)

// A garden write's room is held on one account (domain/grant.go): its
// planter's share, which draws room from the garden's account in grants,
// or for the index and files planted before plantings were recorded the
// garden's account itself.

// gardenAccount is the account a garden file planted by planter counts on.
func gardenAccount(planter string) string {
	if planter == "" {
		return domain.CommonsTenancy
	}
	return ShareAccount(planter)
}

// grantAttempts bounds how often a write asks for more room for its share
// (each grant adds slack, so one is the rule, two a race with a tend).
const grantAttempts = 8

// reserveGarden holds h's room for a garden write by writer of a file
// planted by planter over cur, then moves the garden's count: it returns
// the count and the write's date in the order of the garden's writes.
func (a *App) reserveGarden(ctx context.Context, writer string, cur domain.File, planter string, h domain.Hold) (int64, time.Time, error) {
	account := gardenAccount(planter)
	if cur.Hold != "" && gardenAccount(cur.PlantedBy) != account {
		// A removed head of another account: confirm its removal there
		// before the head stops naming it.
		if _, err := a.changeAccount(ctx, gardenAccount(cur.PlantedBy), a.lapsed, func(acc *domain.Account) error {
			acc.Confirm(cur.Hold)
			return nil
		}); err != nil {
			return 0, time.Time{}, err
		}
	}
	if err := a.reserveOn(ctx, writer, account, planter, cur.Hold, h); err != nil {
		return 0, time.Time{}, err
	}
	files, at, err := a.moveTally(ctx, h.Change.Files+h.Frees.Files)
	if err != nil {
		// The count did not move (or, on a lost answer, moved by one
		// write too many: a count a later write corrects, never a quota).
		a.release(ctx, account, h)
		return 0, time.Time{}, err
	}
	return files, at, nil
}

// reserveOn holds h on the account: the garden's own within its quota, or
// a share within the planter's share and within its grant, asking the
// garden for more when the grant is short.
func (a *App) reserveOn(ctx context.Context, writer, account, planter, landed string, h domain.Hold) error {
	if planter == "" {
		_, err := a.changeAccount(ctx, account, a.lapsed, func(acc *domain.Account) error {
			acc.Confirm(landed)
			return acc.ReserveWithin(h, domain.GardenQuota)
		})
		return err
	}
	q := domain.OwnShare
	if planter != writer {
		q = domain.PlantersShare
	}
	for range grantAttempts {
		var short domain.Change
		acc, err := a.changeAccount(ctx, account, a.lapsed, func(acc *domain.Account) error {
			acc.Confirm(landed)
			var err error
			short, err = acc.ReserveShare(h, q)
			return err
		})
		if err != nil || short == (domain.Change{}) {
			return err
		}
		if err := a.grant(ctx, account, acc.GrantSeq+1, short); err != nil {
			return err
		}
	}
	return domain.ErrBusy
}

// grant draws the share's grant number n from the garden: enough for
// short and some slack (domain.GrantFor), refused with the garden's 413
// when the garden has no room for short itself.
func (a *App) grant(ctx context.Context, share string, n int64, short domain.Change) error {
	h := domain.GrantHold(share, n, domain.Change{}, a.Clock.Now().Add(domain.HoldLife))
	_, err := a.changeAccount(ctx, domain.CommonsTenancy, a.lapsed, func(g *domain.Account) error {
		h.Change = domain.GrantFor(short, g.Usage, domain.GardenQuota)
		return g.ReserveGrant(h, domain.GardenQuota)
	})
	if errors.Is(err, domain.ErrGrantPending) {
		return nil // another write of this share is drawing it: read the share again
	}
	if err != nil {
		return err
	}
	return a.landGrant(ctx, share, h)
}

// giveBack returns a share's granted room it no longer uses, beyond the
// slack, to the garden.
func (a *App) giveBack(ctx context.Context, share string, acc domain.Account) {
	surplus := acc.Surplus()
	if surplus == (domain.Change{}) {
		return
	}
	bg, cancel := background(ctx)
	defer cancel()
	h := domain.GrantHold(share, acc.GrantSeq+1, surplus, a.Clock.Now().Add(domain.HoldLife))
	_, err := a.changeAccount(bg, domain.CommonsTenancy, a.lapsed, func(g *domain.Account) error {
		return g.ReserveGrant(h, domain.GardenQuota)
	})
	if err == nil {
		err = a.landGrant(bg, share, h)
	}
	if err != nil && !errors.Is(err, domain.ErrGrantPending) {
		a.Log.Warn("could not give a garden share's unused room back; its next change does",
			slog.String("share", share), slog.String("error", err.Error()))
	}
}

// landGrant makes the share take the grant held on the garden, then
// settles the hold there: confirmed when the share took it, given back
// when it did not. A failure leaves the hold to be settled once it lapses.
func (a *App) landGrant(ctx context.Context, share string, h domain.Hold) error {
	_, err := a.changeAccount(ctx, share, a.lapsed, func(acc *domain.Account) error {
		return acc.AcceptGrant(h, a.Clock.Now())
	})
	switch {
	case err == nil:
		a.confirm(ctx, domain.CommonsTenancy, h)
	case errors.Is(err, domain.ErrGrantStale):
		a.release(ctx, domain.CommonsTenancy, h)
		return nil // read the share again
	}
	return err
}

// settleGarden confirms (landed) or releases h on the account of planter,
// gives a released write's move of the garden's count back, and returns
// a share's surplus once a write that freed room landed.
func (a *App) settleGarden(ctx context.Context, planter string, h domain.Hold, landed bool) {
	account := gardenAccount(planter)
	if !landed {
		if a.release(ctx, account, h) {
			a.unmoveTally(ctx, h)
		}
		return
	}
	if planter == "" || (h.Change.Files >= 0 && h.Change.Bytes >= 0 && h.Frees == (domain.Change{})) {
		a.confirm(ctx, account, h)
		return
	}
	// The write freed room: the share may hold more than it uses now.
	if acc, ok := a.confirmed(ctx, account, h); ok {
		a.giveBack(ctx, account, acc)
	}
}
