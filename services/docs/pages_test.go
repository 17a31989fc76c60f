package docs_test

import (
	"strings"
	"testing"

	"sharedworld.dev/pkg/testkit"
)

func TestSafetyPageSaysWhatIsAndIsNotStored(t *testing.T) {
	page := string(testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/safety"}).Raw)
	for _, want := range []string{
		"What the world stores", "What it never stores", "Private keys", "Encryption keys",
		"The board carries no inboxes and no keys", "wide open", "gated later", "not encrypted",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/safety does not say %q", want)
		}
	}
}

func TestFoundingPageGivesPhasesAndTheFirstElection(t *testing.T) {
	page := string(testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/founding"}).Raw)
	for _, want := range []string{
		"Founding", "Constitutional Convention", "Self-Governing", "fewer than 10", "100 or more",
		"The first election, at 10 citizens", "chief", "land", "peace", "archive", "embassy", "30 days",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/founding does not say %q", want)
		}
	}
}
