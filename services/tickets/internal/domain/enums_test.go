package domain

import (
	"testing"

	"sharedworld.dev/pkg/problem"
)

func TestParseCategory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Category
		bad  bool
	}{
		{"§5 bug", "bug", CategoryBug, false},
		{"§5 docs", "docs", CategoryDocs, false},
		{"§5 feature", "feature", CategoryFeature, false},
		{"§11 empty is invalid_request", "", "", true},
		{"§1 unknown value is invalid_request", "question", "", true},
		{"§1 other letter case is not a category", "Bug", "", true},
		{"§1 padded value is not a category", " bug", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCategory(tt.in)
			if tt.bad {
				wantProblem(t, err, problem.KindInvalid, "")
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseCategory(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseSeverity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *string
		want Severity
		bad  bool
	}{
		{"§5 absent defaults to normal", nil, SeverityNormal, false},
		{"§5 critical", ptr("critical"), SeverityCritical, false},
		{"§5 high", ptr("high"), SeverityHigh, false},
		{"§5 normal", ptr("normal"), SeverityNormal, false},
		{"§5 low", ptr("low"), SeverityLow, false},
		{"§1 present but empty is a bad enum value", ptr(""), "", true},
		{"§1 unknown value is invalid_request", ptr("urgent"), "", true},
		{"§1 other letter case is not a severity", ptr("HIGH"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeverity(tt.in)
			if tt.bad {
				wantProblem(t, err, problem.KindInvalid, "")
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSeverity = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Status
		bad  bool
	}{
		{"§5 open", "open", StatusOpen, false},
		{"§5 acknowledged", "acknowledged", StatusAcknowledged, false},
		{"§5 resolved", "resolved", StatusResolved, false},
		{"§11 unknown status is 400", "closed", "", true},
		{"§11 withdrawn is not a status", "withdrawn", "", true},
		{"§11 empty status is 400", "", "", true},
		{"§11 other letter case is 400", "Open", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatus(tt.in)
			if tt.bad {
				wantProblem(t, err, problem.KindInvalid, "")
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseStatus(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseListFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		status, category string
		wantStatus       *Status
		wantCategory     *Category
		bad              bool
	}{
		{"§5 no filters lists everything", "", "", nil, nil, false},
		{"§5 status filter", "open", "", ptr(StatusOpen), nil, false},
		{"§5 category filter", "", "docs", nil, ptr(CategoryDocs), false},
		{"§5 both filters", "resolved", "bug", ptr(StatusResolved), ptr(CategoryBug), false},
		{"§1 unknown status filter is 400, not an empty list", "closed", "", nil, nil, true},
		{"§1 unknown category filter is 400", "", "question", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseListFilter(tt.status, tt.category)
			if tt.bad {
				wantProblem(t, err, problem.KindInvalid, "")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equalPtr(got.Status, tt.wantStatus) || !equalPtr(got.Category, tt.wantCategory) {
				t.Fatalf("filter = %+v, want status %v category %v", got, tt.wantStatus, tt.wantCategory)
			}
		})
	}
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
