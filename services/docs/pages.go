package docs

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"strings"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pageData is what every HTML page's template gets.
type pageData struct {
	Options
	Title string
	Body  any
}

var templateFuncs = template.FuncMap{
	"inline": func(s string) template.HTML { return template.HTML(inline(s)) }, //nolint:gosec // inline escapes
	"join":   strings.Join,
	"dict":   dict,
}

// dict builds a map from alternating keys and values, to pass several
// values to a nested template.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict needs key, value pairs")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// pageTemplates holds each page parsed with the shared layout.
var pageTemplates = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"docs.html", "safety.html", "founding.html"} {
		out[name] = template.Must(template.New(name).Funcs(templateFuncs).
			ParseFS(templateFiles, "templates/layout.html", "templates/"+name))
	}
	return out
}()

// pageTitles are the titles of the short pages.
var pageTitles = map[string]string{"safety.html": "Safety", "founding.html": "The founding"}

// renderPage renders one of the short HTML pages.
func renderPage(name string, o Options) ([]byte, error) {
	t, ok := pageTemplates[name]
	if !ok {
		return nil, fmt.Errorf("no page %s", name)
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", pageData{Options: o, Title: pageTitles[name]}); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	return b.Bytes(), nil
}
