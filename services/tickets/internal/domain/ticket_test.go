package domain

import (
	"strings"
	"testing"
	"time"

	"sharedworld.dev/pkg/problem"
)

var filedAt = time.Date(2026, 11, 22, 9, 15, 3, 127_456_789, time.UTC)

func TestFile(t *testing.T) {
	t.Parallel()
	valid := FileRequest{Category: "bug", Title: "Feed skips items", Description: "Steps: ...", Severity: ptr("high")}
	with := func(change func(*FileRequest)) FileRequest {
		r := valid
		change(&r)
		return r
	}
	tests := []struct {
		name     string
		req      FileRequest
		kind     problem.Kind // KindInternal (zero) means the request is accepted
		code     string
		severity Severity
	}{
		{"§5 a complete request is accepted", valid, 0, "", SeverityHigh},
		{"§5 severity defaults to normal", with(func(r *FileRequest) { r.Severity = nil }), 0, "", SeverityNormal},
		{"§11 missing category is 400", with(func(r *FileRequest) { r.Category = "" }), problem.KindInvalid, "", ""},
		{"§1 unknown category is 400", with(func(r *FileRequest) { r.Category = "praise" }), problem.KindInvalid, "", ""},
		{"§11 missing title is 400", with(func(r *FileRequest) { r.Title = "" }), problem.KindInvalid, "", ""},
		{"§11 blank title is empty, 400", with(func(r *FileRequest) { r.Title = " \t\n" }), problem.KindInvalid, "", ""},
		{"§11 missing description is 400", with(func(r *FileRequest) { r.Description = "" }), problem.KindInvalid, "", ""},
		{"§11 blank description is empty, 400", with(func(r *FileRequest) { r.Description = "   " }), problem.KindInvalid, "", ""},
		{"§1 unknown severity is 400", with(func(r *FileRequest) { r.Severity = ptr("blocker") }), problem.KindInvalid, "", ""},
		{"§5 title of 1 character is accepted", with(func(r *FileRequest) { r.Title = "x" }), 0, "", SeverityHigh},
		{"§5 title of 200 characters is accepted", with(func(r *FileRequest) { r.Title = strings.Repeat("t", 200) }), 0, "", SeverityHigh},
		{"§11 title of 201 characters is 422 validation_failed", with(func(r *FileRequest) { r.Title = strings.Repeat("t", 201) }), problem.KindValidation, "", ""},
		{"§11 title length counts code points: 200 × 4-byte rune accepted", with(func(r *FileRequest) { r.Title = strings.Repeat("🎫", 200) }), 0, "", SeverityHigh},
		{"§11 title of 201 multi-byte runes is 422", with(func(r *FileRequest) { r.Title = strings.Repeat("é", 201) }), problem.KindValidation, "", ""},
		{"§5 description of 1 character is accepted", with(func(r *FileRequest) { r.Description = "x" }), 0, "", SeverityHigh},
		{"§5 description of 3000 characters is accepted", with(func(r *FileRequest) { r.Description = strings.Repeat("d", 3000) }), 0, "", SeverityHigh},
		{"§5 description of 3001 characters is 422 DESCRIPTION_TOO_LONG", with(func(r *FileRequest) { r.Description = strings.Repeat("d", 3001) }), problem.KindValidation, CodeDescriptionTooLong, ""},
		{"§11 description of 3000 × 4-byte runes (12000 bytes) is accepted", with(func(r *FileRequest) { r.Description = strings.Repeat("🐛", 3000) }), 0, "", SeverityHigh},
		{"§11 description of 3001 multi-byte runes is DESCRIPTION_TOO_LONG", with(func(r *FileRequest) { r.Description = strings.Repeat("ü", 3001) }), problem.KindValidation, CodeDescriptionTooLong, ""},
		{"§11 a missing field is reported before a length violation", with(func(r *FileRequest) { r.Category = ""; r.Description = strings.Repeat("d", 3001) }), problem.KindInvalid, "", ""},
		{"§11 a bad enum is reported before a length violation", with(func(r *FileRequest) { r.Severity = ptr("x"); r.Title = strings.Repeat("t", 201) }), problem.KindInvalid, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ticket, ev, err := File(tt.req, "tkt_0a1b2c3d", "emb_000000000000000000000001", filedAt)
			if tt.kind != 0 {
				wantProblem(t, err, tt.kind, tt.code)
				if ticket != nil {
					t.Fatal("a rejected request still built a ticket")
				}
				return
			}
			if err != nil {
				t.Fatalf("File: %v", err)
			}
			s := ticket.Snapshot()
			if s.Severity != tt.severity || s.Status != StatusOpen || s.Upvotes != 0 || s.Version != 1 {
				t.Fatalf("new ticket = %+v; want severity %s, open, 0 upvotes, version 1", s, tt.severity)
			}
			if ev.Ticket.ID != s.ID || ev.Ticket.Version != 1 || ev.Ticket.Status != StatusOpen {
				t.Fatalf("ticket.filed event = %+v does not describe the new ticket", ev)
			}
		})
	}
}

func TestFileKeepsFieldsAndMillisecondTime(t *testing.T) {
	t.Parallel()
	ticket, _, err := File(FileRequest{Category: "docs", Title: "  Typo in /agent.txt ", Description: "line 3\nline 4\n"},
		"tkt_00000001", "emb_aaaa", filedAt)
	if err != nil {
		t.Fatal(err)
	}
	s := ticket.Snapshot()
	wantAt := time.Date(2026, 11, 22, 9, 15, 3, 127_000_000, time.UTC)
	if !s.CreatedAt.Equal(wantAt) || !s.UpdatedAt.Equal(wantAt) {
		t.Fatalf("created_at %v updated_at %v, want both %v (BSON keeps milliseconds)", s.CreatedAt, s.UpdatedAt, wantAt)
	}
	if s.Title != "Typo in /agent.txt" {
		t.Fatalf("title %q: surrounding blanks should be trimmed", s.Title)
	}
	if s.Description != "line 3\nline 4\n" {
		t.Fatalf("description %q: free text must be kept as sent", s.Description)
	}
	if s.Category != CategoryDocs || s.FiledBy != "emb_aaaa" || s.ID != "tkt_00000001" || s.Response != "" {
		t.Fatalf("snapshot %+v lost a field", s)
	}
}

func TestRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	in := Snapshot{
		ID: "tkt_deadbeef", Category: CategoryFeature, Title: "t", Description: "d", Severity: SeverityLow,
		Status: StatusAcknowledged, CreatedAt: filedAt, UpdatedAt: filedAt.Add(time.Hour), Upvotes: 2,
		Upvoters: []string{"a", "b"}, FiledBy: "c", Response: "on it", Version: 4,
	}
	out := Restore(in).Snapshot()
	if out.ID != in.ID || out.Status != in.Status || out.Upvotes != 2 || len(out.Upvoters) != 2 ||
		out.Response != in.Response || out.Version != 4 || !out.UpdatedAt.Equal(in.UpdatedAt) {
		t.Fatalf("Restore(...).Snapshot() = %+v, want %+v", out, in)
	}
	out.Upvoters[0] = "changed"
	if Restore(in).HasUpvoted("changed") {
		t.Fatal("a snapshot shares its upvoters with the ticket")
	}
}
