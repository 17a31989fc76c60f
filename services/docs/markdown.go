package docs

import (
	"html/template"
	"strings"
)

// markdown renders the small subset of Markdown the OpenAPI descriptions
// use: `## ` headings, paragraphs, `- ` lists (indented lines continue an
// item) and `inline code`. Everything else is text, escaped.
func markdown(src string) template.HTML {
	var b strings.Builder
	var para, item []string
	inList := false
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	flushItem := func() {
		if len(item) > 0 {
			b.WriteString("<li>" + inline(strings.Join(item, " ")) + "</li>\n")
			item = nil
		}
	}
	closeList := func() {
		flushItem()
		if inList {
			b.WriteString("</ul>\n")
			inList = false
		}
	}
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flushPara()
			closeList()
		case strings.HasPrefix(trimmed, "## "):
			flushPara()
			closeList()
			b.WriteString("<h3>" + inline(strings.TrimPrefix(trimmed, "## ")) + "</h3>\n")
		case strings.HasPrefix(trimmed, "- "):
			flushPara()
			flushItem()
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			item = append(item, strings.TrimPrefix(trimmed, "- "))
		case inList && line != trimmed:
			item = append(item, trimmed)
		default:
			closeList()
			para = append(para, trimmed)
		}
	}
	flushPara()
	closeList()
	return template.HTML(b.String()) //nolint:gosec // built from escaped text only
}

// inline escapes text and turns `spans` into <code>.
func inline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
		case i%2 == 1:
			b.WriteString(template.HTMLEscapeString("`" + p))
		default:
			b.WriteString(template.HTMLEscapeString(p))
		}
	}
	return b.String()
}
