package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"sharedworld.dev/pkg/problem"
)

// StripHTML removes tags and keeps the text (CONTRACT §11), as identity does
// for profiles; script and style contents are dropped because they are not
// text a person wrote.
func StripHTML(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "script" || string(name) == "style" {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); (string(name) == "script" || string(name) == "style") && skip > 0 {
				skip--
			}
		}
	}
}

// required checks a required string field: missing or empty is 400, over
// max code points is 422 (CONTRACT §11).
func required(field, v string, max int) error {
	if strings.TrimSpace(v) == "" {
		return problem.Invalid(field+" is required.", "Send a non-empty "+field+" string.")
	}
	return atMost(field, v, max)
}

// atMost checks the length limit of a field that may be empty.
func atMost(field, v string, max int) error {
	if n := utf8.RuneCountInString(v); n > max {
		return problem.Validation(field+" is too long ("+strconv.Itoa(n)+" characters).",
			"Send at most "+strconv.Itoa(max)+" characters in "+field+".")
	}
	return nil
}
