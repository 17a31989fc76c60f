package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestQuotaAdmits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		usage  Usage
		change Change
		want   bool
	}{
		{"§4 quota: an empty plot takes a 1 MiB file", Usage{}, WriteChange(MiB, 0, false), true},
		{"§4 quota: filling to exactly 10 MiB", Usage{Bytes: 9 * MiB, Files: 9}, WriteChange(MiB, 0, false), true},
		{"§4 quota: one byte past 10 MiB", Usage{Bytes: 9*MiB + 1, Files: 9}, WriteChange(MiB, 0, false), false},
		{"§4 quota: the 1000th file", Usage{Files: 999}, WriteChange(1, 0, false), true},
		{"§4 quota: the 1001st file", Usage{Files: 1000}, WriteChange(1, 0, false), false},
		{"§4 quota: overwriting at 1000 files adds none", Usage{Files: 1000, Bytes: 10}, WriteChange(5, 5, true), true},
		{"§4 quota: overwriting with a smaller file on a full plot", Usage{Bytes: PlotQuotaBytes, Files: 10}, WriteChange(1, MiB, true), true},
		{"§4 quota: overwriting with a larger file on a full plot", Usage{Bytes: PlotQuotaBytes, Files: 10}, WriteChange(MiB, 1, true), false},
		{"§4 quota: overwriting 1 MiB with 1 MiB on a full plot", Usage{Bytes: PlotQuotaBytes, Files: 10}, WriteChange(MiB, MiB, true), true},
		{"§11 storage: an empty file still counts as a file", Usage{Files: 1000}, WriteChange(0, 0, false), false},
		{"§4 quota: a delete is always admitted", Usage{Bytes: PlotQuotaBytes, Files: 1000}, DeleteChange(10), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.usage.Admits(tc.change); got != tc.want {
				t.Fatalf("Admits = %v, want %v (ceiling %+v)", got, tc.want, tc.change.Ceiling(PlotQuota))
			}
			if !tc.want {
				checkKind(t, QuotaExceeded(tc.usage, tc.change), problem.KindTooLarge)
			}
		})
	}
}

func TestWriteChange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		got  Change
		want Change
	}{
		{"§4 quota: a new file adds its size and one file", WriteChange(10, 0, false), Change{Bytes: 10, Files: 1}},
		{"§4 quota: an overwrite adds the difference", WriteChange(10, 4, true), Change{Bytes: 6}},
		{"§4 quota: a shrinking overwrite frees bytes", WriteChange(4, 10, true), Change{Bytes: -6}},
		{"§4 quota: a delete frees size and one file", DeleteChange(7), Change{Bytes: -7, Files: -1}},
		{"§4 quota: releasing undoes a reservation", WriteChange(10, 0, false).Negate(), Change{Bytes: -10, Files: -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.got != tc.want {
				t.Fatalf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}
