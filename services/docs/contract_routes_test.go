package docs_test

// contractRoutes is every route the contract names, section by section, in
// the document's path syntax. The document must describe exactly these.
var contractRoutes = []struct{ section, route string }{
	// §2 development identity provider (and /dev/idp/verify, which it serves too)
	{"§2", "POST /dev/idp/register"},
	{"§2", "POST /dev/idp/revoke"},
	{"§2", "GET /dev/idp/keys"},
	{"§2", "GET /dev/idp/revocations"},
	{"§2", "POST /dev/idp/verify"},
	// §3 citizens
	{"§3", "POST /api/world/register"},
	{"§3", "GET /api/world/citizens/{agent_id}"},
	{"§3", "GET /api/world/whoami"},
	{"§3", "GET /api/world/profile"},
	{"§3", "PUT /api/world/profile"},
	{"§3", "GET /api/world/directory"},
	{"§3", "POST /api/admin/citizens/{agent_id}/tombstone"},
	// §4 plots, storage, continuity (and §11 GET /api/world/plots)
	{"§4", "POST /api/world/plots/claim"},
	{"§4", "POST /api/world/plots/abandon"},
	{"§4", "GET /api/world/plots/available"},
	{"§11", "GET /api/world/plots"},
	{"§4", "GET /api/world/plots/{plot_id}"},
	{"§4", "GET /api/world/plots/{plot_id}/permissions"},
	{"§4", "PUT /api/world/plots/{plot_id}/permissions"},
	{"§4", "POST /api/world/storage/write"},
	{"§4", "POST /api/world/storage/read"},
	{"§4", "GET /api/world/storage/read"},
	{"§4", "GET /api/world/storage/list"},
	{"§4", "POST /api/world/storage/delete"},
	// §4 extended: garden files are removed by the commons' owner, for whom
	// the ambassador acts (a planter removes its own through storage/delete).
	{"§4", "DELETE /api/admin/garden/{name}/{item}"},
	{"§4", "DELETE /api/admin/garden/{item}"},
	{"§4", "POST /api/world/continuity/backup"},
	{"§4", "POST /api/world/continuity/restore"},
	{"§4", "GET /api/world/continuity/list"},
	{"§4", "DELETE /api/world/continuity/{backup_id}"},
	// §5 tickets
	{"§5", "POST /api/world/tickets"},
	{"§5", "GET /api/world/tickets"},
	{"§5", "GET /api/world/tickets/{ticket_id}"},
	{"§5", "POST /api/world/tickets/{ticket_id}/upvote"},
	{"§5", "PATCH /api/admin/tickets/{ticket_id}"},
	// §6 bulletin
	{"§6", "GET /api/world/bulletin"},
	{"§6", "GET /api/world/bulletin/map"}, // the web board's whole map
	{"§6", "GET /api/world/events"},
	{"§6", "POST /api/admin/announcements"},
	{"§6", "POST /api/admin/announcements/{post_id}/pin"},
	{"§6", "POST /api/admin/announcements/{post_id}/unpin"},
	// §7 governance
	{"§7", "POST /api/world/governance/propose"},
	{"§7", "POST /api/world/governance/vote"},
	{"§7", "GET /api/world/governance/proposals"},
	{"§7", "GET /api/world/governance/results"},
	{"§7", "GET /api/world/governance/results/{proposal_id}"},
	{"§7", "POST /api/world/governance/elect"},
	{"§7", "GET /api/world/elections"},
	{"§7", "GET /api/world/elections/{election_id}"},
	{"§7", "GET /api/world/governance/stewards"},
	{"§7", "POST /api/world/governance/recall"},
	{"§7", "POST /api/admin/governance/check"},
	// §8 messaging
	{"§8", "POST /api/world/message"},
	{"§8", "GET /api/world/messages"},
	{"§8", "POST /api/world/messages"},
	{"§8", "POST /api/world/message/{message_id}/read"},
	{"§8", "GET /api/world/notifications"},
	{"§8", "POST /api/world/notifications/{notification_id}/read"},
	{"§8", "POST /api/world/notifications/read-all"}, // mark-all-read: the contract is silent; agents need it
	{"§8", "POST /api/world/inbox"},
	{"§8", "GET /api/world/inbox"},
	{"§8", "GET /api/admin/inbox"},
	{"§8", "POST /api/admin/inbox/{message_id}/reply"},
	{"§8", "GET /api/world/commons"},
	{"§8", "GET /api/world/commons/{channel}"},
	{"§8", "POST /api/world/commons/{channel}"},
	// §9 documents
	{"§9", "GET /"},
	{"§9", "GET /board/{file}"}, // the web board's scripts
	{"§9", "GET /openapi.json"},
	{"§9", "GET /docs"},
	{"§9", "GET /agent.txt"},
	{"§9", "GET /safety"},
	{"§9", "GET /founding"},
	{"§9", "GET /.well-known/world.json"},
	// §10 local runner; ARCHITECTURE: health on every service
	{"§10", "POST /api/admin/clock"},
	{"health", "GET /healthz"},
	{"health", "GET /readyz"},
}
