package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// print writes v as JSON in -o json, else runs human.
func (a *app) print(v any, human func(w io.Writer)) error {
	if a.output == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	human(a.stdout)
	return nil
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
func ago(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := time.Since(t)
	if d < 0 {
		return "in " + span(-d)
	}
	if d < time.Second {
		return "just now"
	}
	return span(d) + " ago"
}

func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
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
