package domain

import (
	"errors"
	"testing"
	"time"
)

func TestLeaseTakenBy(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	running := Lease{Holder: "a", Term: 3, Expires: now.Add(time.Second)}
	lapsed := Lease{Holder: "a", Term: 3, Expires: now}
	tests := []struct {
		name     string
		lease    Lease
		holder   string
		want     Lease
		wantErr  error
		anyError bool
	}{
		{"a first campaign takes term 1", Lease{}, "a", Lease{Holder: "a", Term: 1, Expires: now.Add(LeaseDuration)}, nil, false},
		{"the holder renews within its term", running, "a", Lease{Holder: "a", Term: 3, Expires: now.Add(LeaseDuration)}, nil, false},
		{"another replica is refused while the lease runs", running, "b", running, ErrLeaseHeld, false},
		{"another replica takes a lapsed lease in the next term", lapsed, "b", Lease{Holder: "b", Term: 4, Expires: now.Add(LeaseDuration)}, nil, false},
		{"the holder whose lease lapsed starts a new term (it stopped writing)", lapsed, "a", Lease{Holder: "a", Term: 4, Expires: now.Add(LeaseDuration)}, nil, false},
		{"a released lease is taken at once", running.Released(), "b", Lease{Holder: "b", Term: 4, Expires: now.Add(LeaseDuration)}, nil, false},
		{"an empty holder is refused", Lease{}, "", Lease{}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.lease.TakenBy(tt.holder, now)
			if tt.anyError {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Fatalf("TakenBy = %+v, %v; want %+v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestLeaseTimingStopsWritingBeforeAnyoneMayTakeOver(t *testing.T) {
	t.Parallel()
	if LeaseRenewDeadline >= LeaseDuration {
		t.Fatalf("renew deadline %v must be shorter than the lease %v", LeaseRenewDeadline, LeaseDuration)
	}
	if LeaseRenewEvery*2 > LeaseRenewDeadline {
		t.Fatalf("two renewals (%v apart) must fit in the renew deadline %v", LeaseRenewEvery, LeaseRenewDeadline)
	}
	if LeaseDuration+LeaseRetryEvery > 15*time.Second {
		t.Fatalf("a standby must take over within 15 s of the holder's death")
	}
}
