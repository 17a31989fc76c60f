// Package services is the declared table of the world's services: each
// one's unit (its name and how to build it), the public path prefixes the
// Ingress routes to it, and the largest request body it accepts. The local
// runner hosts every entry, `make build` builds one binary per entry, a
// test checks that every path of the OpenAPI document reaches a service
// that serves it, and the chart's Ingress is generated from the JSON form
// (`go run ./hack/cmd/services`).
package services

import (
	"strings"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/platform"
	"sharedworld.dev/services/bulletin"
	"sharedworld.dev/services/docs"
	"sharedworld.dev/services/governance"
	"sharedworld.dev/services/identity"
	"sharedworld.dev/services/messaging"
	plotsstorage "sharedworld.dev/services/plots-storage"
	"sharedworld.dev/services/tickets"
)

// Entry is one service of the table.
type Entry struct {
	Unit platform.Unit
	// Prefixes are the public paths the service answers, matched as the
	// Ingress's Prefix paths are: by whole path segments, the longest
	// prefix of all entries winning. "/" claims what no other entry does.
	Prefixes []string
	// BodyLimit is the largest request body of any of the service's routes
	// (the Ingress's limit; each route's own limit is the service's
	// BodyLimits, the 1 MiB default elsewhere).
	BodyLimit int
}

// Table lists every service in the order a host builds them: identity
// first, whose development provider the others' verifier trusts.
var Table = []Entry{
	{Unit: identity.Unit, BodyLimit: httpx.DefaultBodyLimit, Prefixes: []string{
		"/api/world/register", "/api/world/citizens", "/api/world/whoami", "/api/world/profile",
		"/api/world/directory", "/api/admin/citizens", "/dev/idp"}},
	{Unit: plotsstorage.Unit, BodyLimit: plotsstorage.BackupBodyLimit, Prefixes: []string{
		"/api/world/plots", "/api/world/storage", "/api/world/continuity", "/api/admin/garden"}},
	{Unit: tickets.Unit, BodyLimit: httpx.DefaultBodyLimit, Prefixes: []string{
		"/api/world/tickets", "/api/admin/tickets"}},
	{Unit: governance.Unit, BodyLimit: httpx.DefaultBodyLimit, Prefixes: []string{
		"/api/world/governance", "/api/world/elections", "/api/admin/governance"}},
	{Unit: bulletin.Unit, BodyLimit: httpx.DefaultBodyLimit, Prefixes: []string{
		"/", "/api/world/bulletin", "/api/world/events", "/api/admin/announcements"}},
	{Unit: messaging.Unit, BodyLimit: httpx.DefaultBodyLimit, Prefixes: []string{
		"/api/world/message", "/api/world/messages", "/api/world/notifications", "/api/world/inbox",
		"/api/admin/inbox", "/api/world/commons"}},
	{Unit: docs.Unit, BodyLimit: httpx.DefaultBodyLimit, Prefixes: []string{
		"/docs", "/openapi.json", "/agent.txt", "/safety", "/founding", "/.well-known/world.json"}},
}

// Name is the entry's service name.
func (e Entry) Name() string { return e.Unit.Name }

// Cmd is the package of the service's binary.
func (e Entry) Cmd() string { return "./services/" + e.Name() + "/cmd/" + e.Name() }

// Units are the units of every entry, in table order.
func Units() []platform.Unit {
	out := make([]platform.Unit, len(Table))
	for i, e := range Table {
		out[i] = e.Unit
	}
	return out
}

// Owner is the entry whose prefix is the longest to match path.
func Owner(path string) (Entry, bool) {
	best, length := Entry{}, -1
	for _, e := range Table {
		for _, p := range e.Prefixes {
			if matches(p, path) && len(p) > length {
				best, length = e, len(p)
			}
		}
	}
	return best, length >= 0
}

// matches applies an Ingress Prefix path: whole segments of path.
func matches(prefix, path string) bool {
	prefix = strings.TrimSuffix(prefix, "/")
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}
