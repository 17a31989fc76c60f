package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// print writes, in -o json, the world's latest answer exactly as it came
// (every field, null as null), else runs human. v is written only when
// the command made no call.
func (a *app) print(v any, human func(w io.Writer)) error {
	if a.output == "json" {
		if last := a.answers.Last(); last != nil {
			return a.writeRaw(last)
		}
		return a.printOwn(v, human)
	}
	human(a.stdout)
	return nil
}

// printOwn writes v itself in -o json: an answer worldctl composed (login,
// which must not echo the private key; a message read and opened).
func (a *app) printOwn(v any, human func(w io.Writer)) error {
	if a.output == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	human(a.stdout)
	return nil
}

// printPages writes, in -o json, the world's answer to a list: the page as
// it came when one page was read; when --max took several, the last page's
// answer with the first n items of every page under key.
func (a *app) printPages(key string, n int, human func(w io.Writer)) error {
	if a.output != "json" {
		human(a.stdout)
		return nil
	}
	pages := a.answers.All()
	switch len(pages) {
	case 0:
		return a.writeRaw(json.RawMessage(`{"ok":true,"` + key + `":[]}`))
	case 1:
		return a.writeRaw(pages[0])
	}
	items := []json.RawMessage{}
	var last map[string]json.RawMessage
	for _, p := range pages {
		last = nil
		if err := json.Unmarshal(p, &last); err != nil {
			return err
		}
		var page []json.RawMessage
		_ = json.Unmarshal(last[key], &page)
		items = append(items, page...)
	}
	raw, err := json.Marshal(items[:min(n, len(items))])
	if err != nil {
		return err
	}
	last[key] = raw
	merged, err := json.Marshal(last)
	if err != nil {
		return err
	}
	return a.writeRaw(merged)
}

func (a *app) writeRaw(raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err := a.stdout.Write(buf.Bytes())
	return err
}

// table writes rows aligned in columns under a header.
func table(w io.Writer, header string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ReplaceAll(header, " ", "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// ago says how long ago (or in how long) t is: 5s ago, 3m ago, in 2d.
func ago(t time.Time) string { return agoFrom(t, time.Now()) }

// agoFrom is ago seen from now: for an answer that carries the world's
// own time (a proposal's created_at under the development clock), that
// time rather than this machine's.
func agoFrom(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < 0 {
		return "in " + span(-d)
	}
	if d < time.Second {
		return "just now"
	}
	return span(d) + " ago"
}

// span rounds to the nearest unit rather than down: 71h59m59s (a 72h
// period seen a second later) is 3d, not 2d.
func span(d time.Duration) string {
	switch {
	case d < time.Minute-time.Second/2:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour-30*time.Second:
		return fmt.Sprintf("%dm", int(d.Round(time.Minute).Minutes()))
	case d < 48*time.Hour-30*time.Minute:
		return fmt.Sprintf("%dh", int(d.Round(time.Hour).Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Round(24*time.Hour).Hours()/24))
	}
}

// agoPtr is ago of an optional time.
func agoPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return ago(*t)
}

// readInput reads a FILE argument ("-" or none: standard input).
func (a *app) readInput(file string) ([]byte, error) {
	if file == "" || file == "-" {
		return io.ReadAll(a.stdin)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, usageError{err}
	}
	return b, nil
}

// text is a flag's value, or standard input when the flag is empty.
func (a *app) text(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	b, err := io.ReadAll(a.stdin)
	return strings.TrimRight(string(b), "\n"), err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
