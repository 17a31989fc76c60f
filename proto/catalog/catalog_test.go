package catalog_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	bulletinv1 "sharedworld.dev/proto/bulletin/v1"
	"sharedworld.dev/proto/catalog"
	governancev1 "sharedworld.dev/proto/governance/v1"
	identityv1 "sharedworld.dev/proto/identity/v1"
	messagingv1 "sharedworld.dev/proto/messaging/v1"
	plotsv1 "sharedworld.dev/proto/plots/v1"
	ticketsv1 "sharedworld.dev/proto/tickets/v1"
)

var cases = []struct {
	eventType string
	topic     string
	msg       protoreflect.ProtoMessage // an empty message of the expected Go type
}{
	{"citizen.registered", "world.identity", &identityv1.CitizenRegistered{}},
	{"citizen.updated", "world.identity", &identityv1.CitizenUpdated{}},
	{"citizen.tombstoned", "world.identity", &identityv1.CitizenTombstoned{}},
	{"plot.claimed", "world.plots", &plotsv1.PlotClaimed{}},
	{"plot.released", "world.plots", &plotsv1.PlotReleased{}},
	{"garden.planted", "world.plots", &plotsv1.GardenPlanted{}},
	{"garden.tended", "world.plots", &plotsv1.GardenTended{}},
	{"garden.removed", "world.plots", &plotsv1.GardenRemoved{}},
	{"ticket.filed", "world.tickets", &ticketsv1.TicketFiled{}},
	{"ticket.status_changed", "world.tickets", &ticketsv1.TicketStatusChanged{}},
	{"ticket.upvoted", "world.tickets", &ticketsv1.TicketUpvoted{}},
	{"proposal.created", "world.governance", &governancev1.ProposalCreated{}},
	{"proposal.status_changed", "world.governance", &governancev1.ProposalStatusChanged{}},
	{"vote.cast", "world.governance", &governancev1.VoteCast{}},
	{"election.opened", "world.governance", &governancev1.ElectionOpened{}},
	{"election.status_changed", "world.governance", &governancev1.ElectionStatusChanged{}},
	{"steward.elected", "world.governance", &governancev1.StewardElected{}},
	{"steward.term_ended", "world.governance", &governancev1.StewardTermEnded{}},
	{"message.sent", "world.messaging", &messagingv1.MessageSent{}},
	{"commons.posted", "world.messaging", &messagingv1.CommonsPosted{}},
	{"inbox.received", "world.messaging", &messagingv1.InboxReceived{}},
	{"inbox.replied", "world.messaging", &messagingv1.InboxReplied{}},
	{"announcement.posted", "world.bulletin", &bulletinv1.AnnouncementPosted{}},
	{"announcement.pinned", "world.bulletin", &bulletinv1.AnnouncementPinned{}},
}

// Events about an aggregate carry the aggregate's version after the change;
// the others (garden, steward, messaging) are plain facts.
var versioned = map[string]bool{
	"citizen.registered": true, "citizen.updated": true, "citizen.tombstoned": true,
	"plot.claimed": true, "plot.released": true,
	"ticket.filed": true, "ticket.status_changed": true, "ticket.upvoted": true,
	"proposal.created": true, "proposal.status_changed": true, "vote.cast": true,
	"election.opened": true, "election.status_changed": true,
	"announcement.posted": true, "announcement.pinned": true,
}

func TestCatalogTable(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.eventType, func(t *testing.T) {
			topic, ok := catalog.TopicOf(tc.eventType)
			if !ok || topic != tc.topic {
				t.Fatalf("TopicOf(%q) = %q, %v; want %q, true", tc.eventType, topic, ok, tc.topic)
			}
			m, ok := catalog.New(tc.eventType)
			if !ok || m == nil {
				t.Fatalf("New(%q) = %v, %v; want a message", tc.eventType, m, ok)
			}
			if got, want := reflect.TypeOf(m), reflect.TypeOf(tc.msg); got != want {
				t.Fatalf("New(%q) is %v, want %v", tc.eventType, got, want)
			}
			if !gproto.Equal(m, tc.msg) {
				t.Fatalf("New(%q) is not empty: %v", tc.eventType, m)
			}
			if got, ok := catalog.TypeOf(m); !ok || got != tc.eventType {
				t.Fatalf("TypeOf(New(%q)) = %q, %v", tc.eventType, got, ok)
			}
			// A typed nil still names its type.
			nilMsg := reflect.Zero(reflect.TypeOf(tc.msg)).Interface().(protoreflect.ProtoMessage)
			if got, ok := catalog.TypeOf(nilMsg); !ok || got != tc.eventType {
				t.Fatalf("TypeOf((%T)(nil)) = %q, %v", nilMsg, got, ok)
			}
			// The message lives in the package of its topic's domain.
			domain := strings.TrimPrefix(tc.topic, "world.")
			if got, want := m.ProtoReflect().Descriptor().ParentFile().Package(),
				protoreflect.FullName("sharedworld."+domain+".v1"); got != want {
				t.Fatalf("package %s, want %s", got, want)
			}
			// Aggregate events carry the aggregate version.
			fd := m.ProtoReflect().Descriptor().Fields().ByName("version")
			if versioned[tc.eventType] {
				if fd == nil || fd.Kind() != protoreflect.Uint64Kind {
					t.Fatalf("%s has no uint64 version field", tc.eventType)
				}
			} else if fd != nil {
				t.Fatalf("%s has an unexpected version field", tc.eventType)
			}
			// Two calls give two distinct messages.
			m2, _ := catalog.New(tc.eventType)
			if m2 == m {
				t.Fatalf("New(%q) returned the same message twice", tc.eventType)
			}
		})
	}
}

func TestCatalogLists(t *testing.T) {
	var wantTypes []string
	for _, tc := range cases {
		wantTypes = append(wantTypes, tc.eventType)
	}
	if got := catalog.AllTypes(); !slices.Equal(got, wantTypes) {
		t.Fatalf("AllTypes() = %v, want %v", got, wantTypes)
	}
	wantTopics := []string{"world.identity", "world.plots", "world.tickets",
		"world.governance", "world.messaging", "world.bulletin"}
	if got := catalog.AllTopics(); !slices.Equal(got, wantTopics) {
		t.Fatalf("AllTopics() = %v, want %v", got, wantTopics)
	}
	// The lists are copies.
	catalog.AllTypes()[0] = "mutated"
	catalog.AllTopics()[0] = "mutated"
	if catalog.AllTypes()[0] != wantTypes[0] || catalog.AllTopics()[0] != wantTopics[0] {
		t.Fatal("AllTypes/AllTopics expose the catalog's own slice")
	}
	// Every topic of a type is listed.
	for _, typ := range catalog.AllTypes() {
		topic, _ := catalog.TopicOf(typ)
		if !slices.Contains(wantTopics, topic) {
			t.Errorf("type %s has unlisted topic %q", typ, topic)
		}
	}
}

func TestConstants(t *testing.T) {
	consts := map[string]string{
		catalog.TopicIdentity: "world.identity", catalog.TopicPlots: "world.plots",
		catalog.TopicTickets: "world.tickets", catalog.TopicGovernance: "world.governance",
		catalog.TopicMessaging: "world.messaging", catalog.TopicBulletin: "world.bulletin",
		catalog.TypeCitizenRegistered: "citizen.registered", catalog.TypeCitizenUpdated: "citizen.updated",
		catalog.TypeCitizenTombstoned: "citizen.tombstoned", catalog.TypePlotClaimed: "plot.claimed",
		catalog.TypePlotReleased: "plot.released", catalog.TypeGardenPlanted: "garden.planted",
		catalog.TypeGardenTended: "garden.tended", catalog.TypeGardenRemoved: "garden.removed",
		catalog.TypeTicketFiled:         "ticket.filed",
		catalog.TypeTicketStatusChanged: "ticket.status_changed", catalog.TypeTicketUpvoted: "ticket.upvoted",
		catalog.TypeProposalCreated: "proposal.created", catalog.TypeProposalStatusChanged: "proposal.status_changed",
		catalog.TypeVoteCast: "vote.cast", catalog.TypeElectionOpened: "election.opened",
		catalog.TypeElectionStatusChanged: "election.status_changed", catalog.TypeStewardElected: "steward.elected",
		catalog.TypeStewardTermEnded: "steward.term_ended", catalog.TypeMessageSent: "message.sent",
		catalog.TypeCommonsPosted: "commons.posted", catalog.TypeAnnouncementPosted: "announcement.posted",
		catalog.TypeAnnouncementPinned: "announcement.pinned", catalog.TypeInboxReceived: "inbox.received",
		catalog.TypeInboxReplied: "inbox.replied",
	}
	if len(consts) != 6+24 {
		t.Fatalf("constants collide: %d distinct", len(consts))
	}
	for got, want := range consts {
		if got != want {
			t.Errorf("constant %q, want %q", got, want)
		}
	}
}

func TestUnknown(t *testing.T) {
	for _, typ := range []string{"", "citizen", "citizen.Registered", "world.identity", "vote.cast "} {
		if _, ok := catalog.TopicOf(typ); ok {
			t.Errorf("TopicOf(%q) ok", typ)
		}
		if m, ok := catalog.New(typ); ok || m != nil {
			t.Errorf("New(%q) = %v, %v", typ, m, ok)
		}
	}
	if _, ok := catalog.TypeOf(nil); ok {
		t.Error("TypeOf(nil) ok")
	}
	if _, ok := catalog.TypeOf(timestamppb.Now()); ok {
		t.Error("TypeOf(Timestamp) ok")
	}
}

// Every message declared in the event files is in the catalog, so a new
// message cannot be added to a .proto without a type and a topic.
func TestEveryMessageCatalogued(t *testing.T) {
	seen := map[protoreflect.FullName]bool{}
	for _, tc := range cases {
		fd := tc.msg.ProtoReflect().Descriptor().ParentFile()
		msgs := fd.Messages()
		for i := 0; i < msgs.Len(); i++ {
			name := msgs.Get(i).FullName()
			if seen[name] {
				continue
			}
			seen[name] = true
			mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
			if err != nil {
				t.Fatal(err)
			}
			m := mt.New().Interface()
			if _, ok := catalog.TypeOf(m); !ok {
				t.Errorf("message %s is not in the catalog", name)
			}
		}
	}
	if len(seen) != len(cases) {
		t.Errorf("%d messages in the event files, %d catalogued", len(seen), len(cases))
	}
}

// populate sets every field of m to a distinct non-zero value.
func populate(t *testing.T, m protoreflect.Message) {
	t.Helper()
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		n := int64(fd.Number())
		var v protoreflect.Value
		switch fd.Kind() {
		case protoreflect.StringKind:
			v = protoreflect.ValueOfString(string(fd.Name()) + "-é✓")
		case protoreflect.BoolKind:
			v = protoreflect.ValueOfBool(true)
		case protoreflect.Int32Kind:
			v = protoreflect.ValueOfInt32(int32(-n - 1000))
		case protoreflect.Int64Kind:
			v = protoreflect.ValueOfInt64(n + 1<<40)
		case protoreflect.Uint64Kind:
			v = protoreflect.ValueOfUint64(uint64(n) + 1<<63)
		case protoreflect.MessageKind:
			if fd.Message().FullName() != "google.protobuf.Timestamp" {
				t.Fatalf("unexpected message field %s", fd.FullName())
			}
			ts := timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, int(n), time.UTC))
			v = protoreflect.ValueOfMessage(ts.ProtoReflect())
		default:
			t.Fatalf("field %s: kind %v not handled", fd.FullName(), fd.Kind())
		}
		m.Set(fd, v)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.eventType, func(t *testing.T) {
			src, _ := catalog.New(tc.eventType)
			populate(t, src.ProtoReflect())
			b, err := gproto.Marshal(src)
			if err != nil {
				t.Fatal(err)
			}
			// As a consumer would: the ce_type header picks the message.
			dst, ok := catalog.New(tc.eventType)
			if !ok {
				t.Fatal("New failed")
			}
			if err := gproto.Unmarshal(b, dst); err != nil {
				t.Fatal(err)
			}
			if !gproto.Equal(src, dst) {
				t.Fatalf("round trip changed the message:\n got %v\nwant %v", dst, src)
			}
			// Every field survived (none was left at its zero value).
			fields := dst.ProtoReflect().Descriptor().Fields()
			for i := 0; i < fields.Len(); i++ {
				if !dst.ProtoReflect().Has(fields.Get(i)) {
					t.Errorf("field %s lost", fields.Get(i).Name())
				}
			}
		})
	}
}

func TestRoundTripTyped(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	src := &governancev1.ProposalStatusChanged{
		ProposalId: "p-1", Type: "standard", Title: "Paint the commons",
		From: "voting", To: "passed", VotesFor: 7, VotesAgainst: 2, VotesAbstain: 1,
		TotalEligible: 12, ChangedAt: timestamppb.New(at), Version: 5,
	}
	typ, ok := catalog.TypeOf(src)
	if !ok || typ != catalog.TypeProposalStatusChanged {
		t.Fatalf("TypeOf = %q, %v", typ, ok)
	}
	b, err := gproto.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := catalog.New(typ)
	if err := gproto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	got := m.(*governancev1.ProposalStatusChanged)
	if got.GetTo() != "passed" || got.GetVotesFor() != 7 || got.GetTotalEligible() != 12 ||
		got.GetVersion() != 5 || !got.GetChangedAt().AsTime().Equal(at) {
		t.Fatalf("got %v", got)
	}
}

// The committed .pb.go files were generated by the protoc-gen-go of the
// google.golang.org/protobuf version this module requires.
func TestGeneratedWithModuleVersion(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mv := regexp.MustCompile(`(?m)^\s*(?:require\s+)?google\.golang\.org/protobuf\s+(v\S+)`).FindSubmatch(mod)
	if mv == nil {
		t.Fatal("go.mod does not require google.golang.org/protobuf")
	}
	files, err := filepath.Glob("../*/v1/*.pb.go")
	if err != nil || len(files) != 6 {
		t.Fatalf("generated files: %v, %v", files, err)
	}
	hdr := regexp.MustCompile(`(?m)^// \tprotoc-gen-go (v\S+)$`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		hv := hdr.FindSubmatch(b)
		if hv == nil || string(hv[1]) != string(mv[1]) {
			t.Errorf("%s: generated by protoc-gen-go %q, go.mod has %s; run make generate", f, hv, mv[1])
		}
	}
}
