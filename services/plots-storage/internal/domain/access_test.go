package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func plotWith(p Permissions) PlotAccess {
	return PlotAccess{ID: "plot_x3_y4", Owner: owner, Permissions: p}
}

var commonsPlot = PlotAccess{ID: CommonsPlotID, Owner: CommonsOwner}

func TestAuthorizeRead(t *testing.T) {
	t.Parallel()
	private := plotWith(Permissions{AllowedAgents: []string{friend}, BannedAgents: []string{enemy}})
	public := plotWith(Permissions{PublicRead: true, BannedAgents: []string{enemy}})
	both := plotWith(Permissions{AllowedAgents: []string{enemy}, BannedAgents: []string{enemy}})
	cases := []struct {
		name  string
		plot  PlotAccess
		agent string
		want  problem.Kind
	}{
		{"§4 read: the owner reads a private plot", private, owner, accepted},
		{"§4 read: an allowed agent reads a private plot", private, friend, accepted},
		{"§4 read: a stranger may not read a private plot", private, stranger, problem.KindPermission},
		{"§4 read: no credentials on a private plot", private, Anonymous, problem.KindPermission},
		{"§4 read: a stranger reads a public_read plot", public, stranger, accepted},
		{"§4 read: no credentials on a public_read plot", public, Anonymous, accepted},
		{"§4 read: banned beats public_read", public, enemy, problem.KindPermission},
		{"§4 read: banned beats allowed", both, enemy, problem.KindPermission},
		{"§4 read: the owner cannot be banned from their own plot",
			plotWith(Permissions{BannedAgents: []string{owner}}), owner, accepted},
		{"§4 read: the commons garden is public", commonsPlot, stranger, accepted},
		{"§4 read: the commons garden is public without credentials", commonsPlot, Anonymous, accepted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, AuthorizeRead(tc.plot, tc.agent), tc.want)
		})
	}
}

func TestAuthorizeWrite(t *testing.T) {
	t.Parallel()
	private := plotWith(Permissions{AllowedAgents: []string{friend}, BannedAgents: []string{enemy}})
	open := plotWith(Permissions{PublicWrite: true, BannedAgents: []string{enemy}})
	readOnly := plotWith(Permissions{PublicRead: true})
	cases := []struct {
		name  string
		plot  PlotAccess
		agent string
		path  string
		want  problem.Kind
	}{
		{"§4 write: the owner writes", private, owner, "/a.md", accepted},
		{"§4 write: an allowed agent writes", private, friend, "/a.md", accepted},
		{"§4 write: a stranger may not write", private, stranger, "/a.md", problem.KindPermission},
		{"§4 write: public_read does not grant writing", readOnly, stranger, "/a.md", problem.KindPermission},
		{"§4 write: anyone writes when public_write", open, stranger, "/a.md", accepted},
		{"§4 write: never a banned agent, even when public_write", open, enemy, "/a.md", problem.KindPermission},
		{"§4 write: never a banned agent, even when allowed",
			plotWith(Permissions{AllowedAgents: []string{enemy}, BannedAgents: []string{enemy}}), enemy, "/a.md", problem.KindPermission},
		{"§4 write: the owner's own ban does not lock them out",
			plotWith(Permissions{BannedAgents: []string{owner}}), owner, "/a.md", accepted},
		{"§4 write: a garden-looking path on a plain plot needs no garden shape", private, owner, "/garden/x", accepted},
		{"§2 auth: a write needs credentials", open, Anonymous, "/a.md", problem.KindUnauthenticated},
		{"§4 garden: any citizen plants on the commons", commonsPlot, stranger, "/garden/ada/poem.md", accepted},
		{"§4 garden: any citizen tends the index", commonsPlot, stranger, "/garden/index.md", accepted},
		{"§11 garden: a non-garden path on the commons is 403", commonsPlot, stranger, "/notes.md", problem.KindPermission},
		{"§11 garden: /garden itself is not under /garden/, 403", commonsPlot, stranger, "/garden", problem.KindPermission},
		{"§11 garden: a garden path of the wrong shape is 400", commonsPlot, stranger, "/garden/poem.md", problem.KindInvalid},
		{"§11 garden: a deep garden path is 400", commonsPlot, stranger, "/garden/a/b/c.md", problem.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, AuthorizeWrite(tc.plot, tc.agent, tc.path), tc.want)
		})
	}
}

func TestAuthorizeDeleteAndOwner(t *testing.T) {
	t.Parallel()
	generous := plotWith(Permissions{PublicRead: true, PublicWrite: true, AllowedAgents: []string{friend}})
	cases := []struct {
		name  string
		check func(PlotAccess, string) error
		plot  PlotAccess
		agent string
		want  problem.Kind
	}{
		{"§4 delete: the owner deletes", AuthorizeDelete, generous, owner, accepted},
		{"§4 delete: an allowed writer may not delete", AuthorizeDelete, generous, friend, problem.KindPermission},
		{"§4 delete: public_write does not grant deleting", AuthorizeDelete, generous, stranger, problem.KindPermission},
		{"§4 delete: no credentials", AuthorizeDelete, generous, Anonymous, problem.KindPermission},
		{"§4 delete: a garden file is not deleted by a citizen", AuthorizeDelete, commonsPlot, stranger, problem.KindPermission},
		{"§4 permissions: the owner reads and sets them", AuthorizeOwner, generous, owner, accepted},
		{"§4 permissions: an allowed agent may not", AuthorizeOwner, generous, friend, problem.KindPermission},
		{"§4 permissions: nobody sets the commons' permissions", AuthorizeOwner, commonsPlot, stranger, problem.KindPermission},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkKind(t, tc.check(tc.plot, tc.agent), tc.want)
		})
	}
}
