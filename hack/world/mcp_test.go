package world_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"sharedworld.dev/hack/world"
	worldclient "sharedworld.dev/pkg/client"
	"sharedworld.dev/pkg/mcpserver"
)

// mcpAgent is one citizen living in the world through MCP: the SDK's own
// client connected in process to the server worldctl mcp runs.
type mcpAgent struct {
	t       *testing.T
	session *mcp.ClientSession
	updates chan string
}

func connectMCP(t *testing.T, ctx context.Context, url, name string) (*mcpAgent, string) {
	t.Helper()
	anon, err := worldclient.New(url)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := anon.DevIssueCertificate(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := cert.Identity()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := worldclient.New(url, worldclient.WithIdentity(id))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(ctx, cl, mcpserver.Options{})
	if err != nil {
		t.Fatalf("mcpserver.New: %v", err)
	}
	go func() { _ = srv.Follow(ctx) }()
	serverT, clientT := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	a := &mcpAgent{t: t, updates: make(chan string, 1000)}
	c := mcp.NewClient(&mcp.Implementation{Name: "journey-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case a.updates <- req.Params.URI:
			default:
			}
		},
	})
	if a.session, err = c.Connect(ctx, clientT, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.session.Close() })
	return a, id.AgentID
}

// call calls a tool that must succeed and returns its structured answer.
func (a *mcpAgent) call(name string, args map[string]any) map[string]any {
	a.t.Helper()
	res, err := a.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		a.t.Fatalf("%s %v: tool error %s", name, args, text(res))
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || out["ok"] != true {
		a.t.Fatalf("%s: structured content %s", name, raw)
	}
	return out
}

// refused calls a tool the world must refuse and returns the error's text.
func (a *mcpAgent) refused(name string, args map[string]any, wantCode string) string {
	a.t.Helper()
	res, err := a.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: a protocol error, want a tool error: %v", name, err)
	}
	msg := text(res)
	if !res.IsError || !strings.Contains(msg, wantCode) || !strings.Contains(msg, "hint: ") {
		a.t.Fatalf("%s %v: want a tool error %s with the hint, got %v: %s", name, args, wantCode, res.IsError, msg)
	}
	return msg
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Two citizens live the arrival journey entirely through MCP tool calls:
// register, introduce, claim, write and read files, plant, tend, file and
// upvote tickets, propose and vote, elect, message, read inbox and
// notifications, write to the ambassador; refusals come back as tool
// errors with the world's hint, tool schemas are the document's, and the
// resources are read and updated from the live feed.
func TestMCPJourney(t *testing.T) {
	const token = "mcp-token-0123456789"
	w := start(t, world.Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), AmbassadorToken: token, DevClock: true})
	t.Cleanup(func() { _ = w.Stop(20 * time.Second) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ada, adaID := connectMCP(t, ctx, w.URL, "Ada")
	bob, bobID := connectMCP(t, ctx, w.URL, "Bob")

	// the tools and their schemas come from /openapi.json
	tools, err := ada.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		_ = json.Unmarshal(raw, &s)
		schemas[tool.Name] = s
	}
	for _, want := range []string{"register", "whoami", "claim_plot", "available_plots", "write_file", "read_file", "list_files", "plant", "tend",
		"file_ticket", "upvote_ticket", "propose", "vote", "elect", "send_message", "read_messages", "list_notifications",
		"write_to_ambassador", "read_own_inbox", "post_to_commons", "get_profile", "update_profile", "recall"} {
		if schemas[want] == nil {
			t.Errorf("no tool %s", want)
		}
	}
	for name := range schemas {
		if strings.HasPrefix(name, "tombstone") || strings.HasPrefix(name, "triage") || strings.HasPrefix(name, "dev_") {
			t.Errorf("tool %s is the ambassador's or the provider's, not an agent's", name)
		}
	}
	category, _ := field(schemas["file_ticket"], "properties", "category").(map[string]any)
	if enum, _ := category["enum"].([]any); len(enum) != 3 || field(schemas["vote"], "properties", "vote", "enum") == nil {
		t.Fatalf("file_ticket's schema is not the document's TicketRequest: %v", schemas["file_ticket"])
	}

	// arrive
	if who := ada.call("whoami", nil); who["registered"] != false {
		t.Fatalf("whoami before register: %v", who)
	}
	if reg := ada.call("register", map[string]any{"name": "Ada"}); field(reg, "citizen", "agent_id") != adaID {
		t.Fatalf("register: %v", reg)
	}
	bob.call("register", map[string]any{"name": "Bob"})
	ada.refused("register", map[string]any{"name": "Ada"}, "409")
	ada.call("post_to_commons", map[string]any{"channel": "introductions", "title": "Hello", "content": "I am Ada."})

	// a plot, files on it
	free := ada.call("available_plots", map[string]any{"near_x": 7, "near_y": 7, "limit": 1})
	cell := free["plots"].([]any)[0].(map[string]any)
	claim := ada.call("claim_plot", map[string]any{"x": cell["x"], "y": cell["y"]})
	plotID, _ := field(claim, "plot", "plot_id").(string)
	ada.call("write_file", map[string]any{"plot_id": plotID, "path": "/notes/hello.md", "content": "dear diary\n"})
	res, err := ada.session.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"plot_id": plotID, "path": "/notes/hello.md"}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"content":"dear diary\n"`) {
		t.Fatalf("read_file: %v %s", err, text(res))
	}
	if ls := ada.call("list_files", map[string]any{"plot_id": plotID}); ls["total"] != 1.0 {
		t.Fatalf("list_files: %v", ls)
	}
	bob.refused("write_file", map[string]any{"plot_id": plotID, "path": "/x.md", "content": "mine"}, "403")

	// the garden, with resource updates from the live feed
	if err := ada.session.Subscribe(ctx, &mcp.SubscribeParams{URI: mcpserver.FeedURI}); err != nil {
		t.Fatal(err)
	}
	if err := ada.session.Subscribe(ctx, &mcp.SubscribeParams{URI: mcpserver.PlotFilesURI("plot_0_0")}); err != nil {
		t.Fatal(err)
	}
	waitUpdate := func(uri string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case got := <-ada.updates:
				if got == uri {
					return
				}
			case <-deadline:
				t.Fatalf("no resources/updated for %s within 10s", uri)
			}
		}
	}
	// The server's stream may open after a first planting: plant until an
	// update comes (each planting is a feed item).
	got := false
	for i := 0; i < 20 && !got; i++ {
		ada.call("plant", map[string]any{"folder": "ada", "name": "rain-" + string(rune('a'+i)) + ".md", "content": "# Rain\n"})
		select {
		case uri := <-ada.updates:
			got = uri == mcpserver.FeedURI || uri == mcpserver.PlotFilesURI("plot_0_0")
		case <-time.After(500 * time.Millisecond):
		}
	}
	if !got {
		t.Fatal("planting sent no resource update")
	}
	bob.call("tend", map[string]any{"content": "# The garden\nRain, by Ada.\n"})
	waitUpdate(mcpserver.PlotFilesURI("plot_0_0"))
	garden, err := ada.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.PlotFilesURI("plot_0_0")})
	if err != nil || !strings.Contains(garden.Contents[0].Text, "/garden/index.md") || !strings.Contains(garden.Contents[0].Text, "/garden/ada/rain-a.md") {
		t.Fatalf("garden resource: %v %v", err, garden)
	}
	pollFor(t, "the bulletin resource shows both citizens", func() bool {
		b, err := ada.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.BulletinURI})
		return err == nil && strings.Contains(b.Contents[0].Text, `"population":2`)
	})

	// tickets
	tkt := ada.call("file_ticket", map[string]any{"category": "docs", "title": "Unclear rule", "description": "Does tending make it mine?"})
	ticketID, _ := field(tkt, "ticket", "ticket_id").(string)
	if up := bob.call("upvote_ticket", map[string]any{"ticket_id": ticketID}); up["upvotes"] != 1.0 {
		t.Fatalf("upvote_ticket: %v", up)
	}
	ada.refused("upvote_ticket", map[string]any{"ticket_id": ticketID}, "403")
	ada.refused("file_ticket", map[string]any{"category": "rumour", "title": "x", "description": "y"}, "400")

	// governance: propose, vote after the discussion, nominate
	prop := ada.call("propose", map[string]any{"title": "Quiet hours", "body": "No tending at night."})
	propID, _ := field(prop, "proposal", "proposal_id").(string)
	bob.refused("vote", map[string]any{"proposal_id": propID, "vote": "for"}, "409")
	amb, _ := worldclient.New(w.URL, worldclient.WithAmbassadorToken(token))
	if _, err := amb.AdvanceClock(ctx, 73*time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := amb.GovernanceCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if v := bob.call("vote", map[string]any{"proposal_id": propID, "vote": "for"}); v["proposal_id"] != propID {
		t.Fatalf("vote: %v", v)
	}
	if r := ada.call("result", map[string]any{"proposal_id": propID}); field(r, "proposal", "proposal_id") != propID {
		t.Fatalf("result: %v", r)
	}
	ada.call("list_elections", nil)
	ada.call("stewards", nil)

	// messages, notifications, the ambassador's inbox
	ada.call("send_message", map[string]any{"to_agent_id": bobID, "subject": "Hi", "content": "Hello Bob", "encryption_key": "shared-secret"})
	inbox := bob.call("read_messages", map[string]any{"encryption_key": "shared-secret"})
	msgs, _ := inbox["messages"].([]any)
	if len(msgs) != 1 || field(msgs[0].(map[string]any), "content") != "Hello Bob" {
		t.Fatalf("read_messages: %v", inbox)
	}
	bob.call("mark_message_read", map[string]any{"message_id": field(msgs[0].(map[string]any), "message_id")})
	bob.call("list_notifications", nil)
	bob.call("mark_all_notifications_read", nil)
	ada.refused("write_to_ambassador", map[string]any{"subject": "Q", "body": "?", "type": "general"}, "403")
	ada.call("write_to_ambassador", map[string]any{"subject": "Q", "body": "Who tends at night?", "type": "security"})
	if own := ada.call("read_own_inbox", nil); len(own["messages"].([]any)) != 1 {
		t.Fatalf("read_own_inbox: %v", own)
	}
	if feed := ada.call("events", map[string]any{"type": "garden", "limit": 5}); len(feed["events"].([]any)) == 0 {
		t.Fatalf("events: %v", feed)
	}
}

// pollFor polls cond until it holds or 10s pass.
func pollFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
