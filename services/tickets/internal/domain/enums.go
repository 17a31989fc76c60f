package domain

import (
	"fmt"
	"strings"

	"sharedworld.dev/pkg/problem"
)

// Category is what a ticket is about.
type Category string

// The categories of CONTRACT §5.
const (
	CategoryBug     Category = "bug"
	CategoryDocs    Category = "docs"
	CategoryFeature Category = "feature"
)

// Categories lists every category in the order the contract names them.
var Categories = []Category{CategoryBug, CategoryDocs, CategoryFeature}

// ParseCategory accepts exactly one of the contract's spellings; anything
// else (including other letter case) is invalid_request, because a guessed
// category would file the ticket in the wrong list.
func ParseCategory(s string) (Category, error) {
	for _, c := range Categories {
		if string(c) == s {
			return c, nil
		}
	}
	return "", badEnum("category", s, Categories)
}

// Severity is how much a ticket hurts, as the filer sees it.
type Severity string

// The severities of CONTRACT §5.
const (
	SeverityCritical Severity = "critical"
	SeverityHigh     Severity = "high"
	SeverityNormal   Severity = "normal"
	SeverityLow      Severity = "low"
)

// Severities lists every severity, most severe first.
var Severities = []Severity{SeverityCritical, SeverityHigh, SeverityNormal, SeverityLow}

// ParseSeverity reads an optional severity: absent (nil) means normal; a value
// that is present must be one of the four spellings.
func ParseSeverity(s *string) (Severity, error) {
	if s == nil {
		return SeverityNormal, nil
	}
	for _, v := range Severities {
		if string(v) == *s {
			return v, nil
		}
	}
	return "", badEnum("severity", *s, Severities)
}

// Status is where a ticket stands in triage.
type Status string

// The statuses of CONTRACT §5.
const (
	StatusOpen         Status = "open"
	StatusAcknowledged Status = "acknowledged"
	StatusResolved     Status = "resolved"
)

// Statuses lists every status in triage order.
var Statuses = []Status{StatusOpen, StatusAcknowledged, StatusResolved}

// ParseStatus accepts exactly one of the three statuses; anything else is
// invalid_request (CONTRACT §11: an unknown status value is 400).
func ParseStatus(s string) (Status, error) {
	for _, v := range Statuses {
		if string(v) == s {
			return v, nil
		}
	}
	return "", badEnum("status", s, Statuses)
}

func badEnum[T ~string](field, got string, allowed []T) error {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	list := strings.Join(names, ", ")
	if got == "" {
		return problem.Invalidf(fmt.Sprintf("Send %q as one of: %s.", field, list), "Field %q is missing or empty.", field)
	}
	return problem.Invalidf(fmt.Sprintf("Send %q as one of: %s (lowercase).", field, list), "%q is not a valid %s.", got, field)
}
