package domain

import (
	"errors"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func TestGrantFor(t *testing.T) {
	t.Parallel()
	one := WriteChange(100, 0, false)
	cases := []struct {
		name   string
		short  Change
		garden Usage
		want   Change
	}{
		{"an empty garden grants the write and full slack", one, Usage{}, Change{Files: 1 + GrantFiles, Bytes: 100 + GrantBytes}},
		{"a tend short of bytes still gets file slack", Change{Bytes: 10}, Usage{}, Change{Files: GrantFiles, Bytes: 10 + GrantBytes}},
		{"slack shrinks as the garden fills", one, Usage{Files: GardenMaxFiles - 1 - 2*GrantSpread, Bytes: GardenQuotaBytes - 100 - 3*GrantSpread},
			Change{Files: 1 + 2, Bytes: 100 + 3}},
		{"no slack in the garden's last files", one, Usage{Files: GardenMaxFiles - GrantSpread}, Change{Files: 1, Bytes: 100 + GrantBytes}},
		{"no slack, never negative, past the quota", one, Usage{Files: GardenMaxFiles, Bytes: GardenQuotaBytes}, one},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := GrantFor(tc.short, tc.garden, GardenQuota); got != tc.want {
				t.Fatalf("GrantFor = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestShareReservesWithinItsGrant(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	planting := func(id string) Hold { return Hold{ID: id, Change: WriteChange(10, 0, false), Until: now.Add(HoldLife)} }
	cases := []struct {
		name      string
		share     Account
		hold      Hold
		wantShort Change
		wantErr   problem.Kind
	}{
		{"a fresh share has no grant", Account{}, planting("a"), Change{Files: 1, Bytes: 10}, accepted},
		{"a grant covers the planting", Account{Granted: Usage{Files: 5, Bytes: 100}, GrantSeq: 1}, planting("a"), Change{}, accepted},
		{"a grant short of bytes", Account{Usage: Usage{Files: 1, Bytes: 95}, Granted: Usage{Files: 5, Bytes: 100}, GrantSeq: 1},
			planting("a"), Change{Bytes: 5}, accepted},
		{"a share counted before grants had its room granted", Account{Usage: Usage{Files: 3, Bytes: 30}}, planting("a"),
			Change{Files: 1, Bytes: 10}, accepted},
		{"the share's quota speaks before the grant", Account{Usage: Usage{Files: ShareMaxFiles}}, planting("a"), Change{}, problem.KindTooLarge},
		{"a removal needs no grant", Account{Usage: Usage{Files: 1, Bytes: 10}}, Hold{ID: "rm", Frees: DeleteChange(10)}, Change{}, accepted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := tc.share
			short, err := a.ReserveShare(tc.hold, OwnShare)
			checkKind(t, err, tc.wantErr)
			if short != tc.wantShort {
				t.Fatalf("short %+v, want %+v", short, tc.wantShort)
			}
			taken := err == nil && short == (Change{})
			if held := len(a.Holds) == 1; held != (taken && !tc.hold.Empty()) {
				t.Fatalf("holds %+v after short %+v, err %v", a.Holds, short, err)
			}
		})
	}
}

// A grant's life: the garden records its hold, the share accepts the next
// number only while the hold is alive, and a return gives back only room
// the share does not use; the garden's room comes back once it landed.
func TestGrantsMoveRoomExactly(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	var garden Account
	share := Account{}
	g1 := GrantHold("s", 1, Change{Files: 5, Bytes: 50}, now.Add(HoldLife))
	if err := garden.ReserveGrant(g1, GardenQuota); err != nil {
		t.Fatal(err)
	}
	if err := garden.ReserveGrant(g1, GardenQuota); !errors.Is(err, ErrGrantPending) {
		t.Fatalf("a second hold of grant 1: %v, want pending", err)
	}
	if err := share.AcceptGrant(g1, now.Add(HoldLife+time.Millisecond)); !errors.Is(err, ErrGrantStale) {
		t.Fatalf("a lapsed grant is refused: %v", err)
	}
	if err := share.AcceptGrant(g1, now); err != nil || share.Granted != (Usage{Files: 5, Bytes: 50}) || share.GrantSeq != 1 {
		t.Fatalf("grant 1 accepted: %+v %v", share, err)
	}
	if err := share.AcceptGrant(g1, now); !errors.Is(err, ErrGrantStale) {
		t.Fatalf("grant 1 twice: %v", err)
	}
	garden.Confirm(g1.ID)
	if garden.Usage != (Usage{Files: 5, Bytes: 50}) || len(garden.Holds) != 0 {
		t.Fatalf("the garden counts what it granted: %+v", garden)
	}

	// The share uses one file of 10 bytes: nothing is surplus within the slack.
	if _, err := share.ReserveShare(Hold{ID: "w", Change: WriteChange(10, 0, false)}, OwnShare); err != nil {
		t.Fatal(err)
	}
	if s := share.Surplus(); s != (Change{}) {
		t.Fatalf("surplus within the slack: %+v", s)
	}
	share.Granted = Usage{Files: 1 + GrantFiles + 3, Bytes: 10 + GrantBytes + 7}
	if s := share.Surplus(); s != (Change{Files: -3, Bytes: -7}) {
		t.Fatalf("surplus beyond the slack: %+v", s)
	}
	ret := GrantHold("s", 2, Change{Files: -3, Bytes: -7}, now.Add(HoldLife))
	if ret.Change != (Change{}) || ret.Frees != (Change{Files: -3, Bytes: -7}) {
		t.Fatalf("a return frees once landed: %+v", ret)
	}
	tooMuch := GrantHold("s", 2, Change{Files: -(GrantFiles + 4)}, now.Add(HoldLife))
	if err := share.AcceptGrant(tooMuch, now); !errors.Is(err, ErrGrantStale) {
		t.Fatalf("a return of room in use: %v", err)
	}
	if err := share.AcceptGrant(ret, now); err != nil || share.Granted != (Usage{Files: 1 + GrantFiles, Bytes: 10 + GrantBytes}) {
		t.Fatalf("return accepted: %+v %v", share, err)
	}
}
