package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestGardenShareQuotas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		quota  Quota
		usage  Usage
		change Change
		want   bool
	}{
		{"a share takes its 100th planting", OwnShare, Usage{Files: ShareMaxFiles - 1}, WriteChange(1, 0, false), true},
		{"a share refuses its 101st planting", OwnShare, Usage{Files: ShareMaxFiles}, WriteChange(0, 0, false), false},
		{"a full share still tends its plantings", OwnShare, Usage{Files: ShareMaxFiles, Bytes: 10}, WriteChange(5, 5, true), true},
		{"a share refuses a byte past 5 MiB", OwnShare, Usage{Bytes: ShareQuotaBytes - 1}, WriteChange(2, 0, false), false},
		{"a tend by another fits in the planter's room", PlantersShare, Usage{Bytes: ShareQuotaBytes - 10}, WriteChange(20, 10, true), true},
		{"a tend by another past the planter's room", PlantersShare, Usage{Bytes: ShareQuotaBytes - 10}, WriteChange(21, 10, true), false},
		{"the garden takes its 100,000th file", GardenQuota, Usage{Files: GardenMaxFiles - 1}, WriteChange(1, 0, false), true},
		{"the garden refuses its 100,001st file", GardenQuota, Usage{Files: GardenMaxFiles}, WriteChange(1, 0, false), false},
		{"the garden refuses bytes past 2 GiB", GardenQuota, Usage{Bytes: GardenQuotaBytes}, WriteChange(1, 0, false), false},
		{"a removal is always admitted", OwnShare, Usage{Bytes: ShareQuotaBytes, Files: ShareMaxFiles}, Change{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := tc.usage
			err := u.TakeWithin(tc.change, tc.quota)
			if (err == nil) != tc.want {
				t.Fatalf("TakeWithin = %v, want admitted %v", err, tc.want)
			}
			if !tc.want {
				checkKind(t, err, problem.KindTooLarge)
				if u != tc.usage {
					t.Fatalf("a refusal changed the usage: %+v", u)
				}
			}
		})
	}
}

func TestPlanter(t *testing.T) {
	t.Parallel()
	planted := File{Version: 3, PlantedBy: "ada"}
	cases := []struct {
		name, path string
		cur        File
		writer     string
		want       string
	}{
		{"a new path is the writer's", "/garden/a/b.md", File{}, "bob", "bob"},
		{"a tend keeps the planter", "/garden/a/b.md", planted, "bob", "ada"},
		{"a removed path planted again is the new writer's", "/garden/a/b.md", File{Version: 4, PlantedBy: "ada", Removed: true}, "bob", "bob"},
		{"a file planted before plantings were recorded stays nobody's", "/garden/a/b.md", File{Version: 2}, "bob", ""},
		{"the index is nobody's", GardenIndexPath, File{}, "bob", ""},
	}
	for _, tc := range cases {
		if got := Planter(tc.path, tc.cur, tc.writer); got != tc.want {
			t.Errorf("%s: Planter = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestAuthorizeGardenRemoval(t *testing.T) {
	t.Parallel()
	poem := File{Path: "/garden/a/poem.md", Version: 1, PlantedBy: "ada"}
	cases := []struct {
		name string
		f    File
		by   Remover
		want problem.Kind
	}{
		{"its planter", poem, Remover{AgentID: "ada"}, accepted},
		{"another citizen", poem, Remover{AgentID: "bob"}, problem.KindPermission},
		{"an anonymous caller is nobody's planter", File{Path: "/garden/a/x.md", Version: 1}, Remover{}, problem.KindPermission},
		{"the ambassador", poem, Remover{Role: RoleAmbassador}, accepted},
		{"the archive steward (seam for governance)", poem, Remover{AgentID: "cy", Role: RoleArchiveSteward}, accepted},
		{"the index, by a citizen", File{Path: GardenIndexPath, Version: 1}, Remover{AgentID: "ada"}, problem.KindPermission},
		{"the index, by the ambassador", File{Path: GardenIndexPath, Version: 1}, Remover{Role: RoleAmbassador}, accepted},
		{"an unrecorded planting, by its writer", File{Path: "/garden/a/x.md", Version: 1, WrittenBy: "ada"}, Remover{AgentID: "ada"}, problem.KindPermission},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, AuthorizeGardenRemoval(tc.f, tc.by), tc.want)
		})
	}
}

// A removal's hold frees its room only once it is known to have landed.
func TestHoldFreesOnConfirmOnly(t *testing.T) {
	t.Parallel()
	a := Account{Usage: Usage{Bytes: 10, Files: 2}}
	for _, id := range []string{"landed", "lost"} {
		if err := a.ReserveWithin(Hold{ID: id, Frees: DeleteChange(5)}, OwnShare); err != nil {
			t.Fatal(err)
		}
	}
	if a.Usage != (Usage{Bytes: 10, Files: 2}) || len(a.Holds) != 2 {
		t.Fatalf("a removal's hold gave room back early: %+v", a)
	}
	a.Confirm("landed")
	a.Release("lost")
	a.Confirm("landed")
	if a.Usage != (Usage{Bytes: 5, Files: 1}) || len(a.Holds) != 0 {
		t.Fatalf("after one landed and one lost removal: %+v, want 5 bytes in 1 file", a)
	}
}

// The published limits (services/docs openapi.yaml x-limits) state these.
func TestGardenLimitsAreThePublishedOnes(t *testing.T) {
	t.Parallel()
	if GardenMaxFiles != 100_000 || GardenQuotaBytes != 2<<30 || ShareMaxFiles != 100 || ShareQuotaBytes != 5<<20 {
		t.Fatal("the garden limits changed: update x-limits in services/docs/openapi.yaml and its limits test")
	}
}
