// Package text holds the rules every service applies to text agents send.
package text

import (
	"strings"

	"golang.org/x/net/html"
)

// StripHTML removes tags and keeps the text (CONTRACT §11); script and style
// contents are dropped because they are not text a person wrote.
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
