package domain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

func ptr[T any](v T) *T { return &v }

func TestProfileApply(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "x"
		}
		return out
	}
	cases := []struct {
		name string
		ch   ProfileChange
		kind problem.Kind
		ok   bool
		want func(Profile) bool
	}{
		{"§3 name 100 code points accepted", ProfileChange{Name: ptr(long(100))}, 0, true, func(p Profile) bool { return p.Name == long(100) }},
		{"§3 name 101 code points refused", ProfileChange{Name: ptr(long(101))}, problem.KindValidation, false, nil},
		{"§3 name HTML stripped before counting", ProfileChange{Name: ptr("<b>" + long(100) + "</b>")}, 0, true, func(p Profile) bool { return p.Name == long(100) }},
		{"§3 bio 2000 accepted", ProfileChange{Bio: ptr(long(2000))}, 0, true, nil},
		{"§3 bio 2001 refused", ProfileChange{Bio: ptr(long(2001))}, problem.KindValidation, false, nil},
		{"§3 directory_bio 500 accepted", ProfileChange{DirectoryBio: ptr(long(500))}, 0, true, nil},
		{"§3 directory_bio 501 refused", ProfileChange{DirectoryBio: ptr(long(501))}, problem.KindValidation, false, nil},
		{"§3 10 interests accepted", ProfileChange{Interests: ptr(many(10))}, 0, true, func(p Profile) bool { return len(p.Interests) == 10 }},
		{"§3 11 interests refused", ProfileChange{Interests: ptr(many(11))}, problem.KindValidation, false, nil},
		{"§3 interest of 32 accepted", ProfileChange{Interests: ptr([]string{long(32)})}, 0, true, nil},
		{"§3 interest of 33 refused", ProfileChange{Interests: ptr([]string{long(33)})}, problem.KindValidation, false, nil},
		{"§3 empty interest refused", ProfileChange{Interests: ptr([]string{" "})}, problem.KindInvalid, false, nil},
		{"§3 visibility set", ProfileChange{DirectoryVisible: ptr(true)}, 0, true, func(p Profile) bool { return p.DirectoryVisible }},
		{"§3 absent fields unchanged", ProfileChange{}, 0, true, func(p Profile) bool { return p.Name == "Base" && p.Bio == "bio" }},
	}
	base := Profile{Name: "Base", Bio: "bio"}
	for _, c := range cases {
		got, err := base.Apply(c.ch)
		if c.ok {
			if err != nil {
				t.Errorf("%s: unexpected error %v", c.name, err)
				continue
			}
			if c.want != nil && !c.want(got) {
				t.Errorf("%s: wrong profile %+v", c.name, got)
			}
			continue
		}
		if !problem.IsKind(err, c.kind) {
			t.Errorf("%s: want problem kind %d, got %v", c.name, c.kind, err)
		}
	}
}

func TestListed(t *testing.T) {
	cases := []struct {
		name string
		p    Profile
		want bool
	}{
		{"§3 visible and named listed", Profile{Name: "A", DirectoryVisible: true}, true},
		{"§3 visible without name hidden", Profile{DirectoryVisible: true}, false},
		{"§3 named but not visible hidden", Profile{Name: "A"}, false},
	}
	for _, c := range cases {
		if c.p.Listed() != c.want {
			t.Errorf("%s: Listed() = %v", c.name, !c.want)
		}
	}
}

func TestOnline(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		last time.Time
		want bool
	}{
		{"§2 never signed is offline", time.Time{}, false},
		{"§2 signed just now", now, true},
		{"§2 signed 15 min ago still online", now.Add(-15 * time.Minute), true},
		{"§2 signed 15 min 1 s ago offline", now.Add(-15*time.Minute - time.Second), false},
	}
	for _, c := range cases {
		if got := Online(c.last, now); got != c.want {
			t.Errorf("%s: Online = %v", c.name, got)
		}
	}
}

func TestLifecycle(t *testing.T) {
	cases := []struct {
		name string
		from Status
		want Status
		err  error
	}{
		{"§3 living can be tombstoned", StatusLiving, StatusTombstoned, nil},
		{"§3 tombstoned twice is a conflict", StatusTombstoned, StatusTombstoned, ErrAlreadyTombstoned},
		{"§3 pending is not a citizen", StatusPending, StatusPending, ErrNoCitizen},
	}
	for _, c := range cases {
		got, err := Tombstone(c.from)
		if got != c.want || !errors.Is(err, c.err) && !(err == nil && c.err == nil) {
			t.Errorf("%s: got %s, %v", c.name, got, err)
		}
	}
	if !errors.Is(RegisterConflict(StatusLiving), ErrAlreadyRegistered) {
		t.Error("§3 a living agent registering again must get already_registered")
	}
	if !errors.Is(RegisterConflict(StatusPending), ErrAlreadyRegistered) {
		t.Error("§3 a concurrent registration must get already_registered")
	}
	if !errors.Is(RegisterConflict(StatusTombstoned), ErrTombstonedAgent) {
		t.Error("§11 a tombstoned agent registering again must get permission_denied")
	}
}
