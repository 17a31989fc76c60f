package http

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// fileJSON is a list entry as encoding/json wrote it.
type fileJSON struct {
	Path        string `json:"path"`
	SizeBytes   int64  `json:"size_bytes"`
	ContentHash string `json:"content_hash"`
	ContentType string `json:"content_type"`
	WrittenAt   string `json:"written_at"`
	Version     uint64 `json:"version"`
}

func toFileJSON(f domain.File) fileJSON {
	return fileJSON{Path: f.Path, SizeBytes: f.Size, ContentHash: f.Hash, ContentType: f.ContentType,
		WrittenAt: clock.Timestamp(f.WrittenAt), Version: f.Version}
}

// listAnswer is the list's body as httpx.OK wrote it (a map's fields, by
// name): appendList must write these bytes.
type listAnswer struct {
	Files  []fileJSON        `json:"files"`
	OK     bool              `json:"ok"`
	Page   *httpx.Pagination `json:"pagination,omitempty"`
	PlotID string            `json:"plot_id"`
	Prefix string            `json:"prefix"`
	Total  int               `json:"total"`
}

func TestAppendListIsMarshal(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 9, 15, 3, 127e6, time.FixedZone("x", 3600))
	next := "eyJhZnRlciI6Ii9nYXJkZW4vQWRhL2EubWQifQ"
	cases := []struct {
		name, plotID, prefix string
		files                []domain.File
		total                int
		page                 *httpx.Pagination
	}{
		{"none", "plot_x1_y2", "", nil, 0, nil},
		{"garden", "plot_0_0", "/garden/", []domain.File{
			{Path: "/garden/Ada/a.md", Size: 5, Hash: "sha256:ab", ContentType: "text/markdown", WrittenAt: at, Version: 3},
			{Path: "/garden/Bob/b c.md", Size: 0, Hash: "sha256:cd", ContentType: "text/plain; charset=utf-8", WrittenAt: at.Add(time.Millisecond)},
		}, 2, nil},
		{"a page", "plot_0_0", "", []domain.File{{Path: "/garden/Ada/a.md", WrittenAt: at}}, 7, &httpx.Pagination{Limit: 1, Count: 1, Next: &next}},
		{"the last page", "plot_0_0", "", nil, 7, &httpx.Pagination{Limit: 5}},
		{"what json escapes", `plot_"<&>"`, "/é\\\x01\xff", []domain.File{
			{Path: "/a<b>&c\"d\\é\u2028", Size: 1 << 40, Hash: "\t", ContentType: "x/y", WrittenAt: time.Time{}, Version: ^uint64(0)},
		}, 1, nil},
	}
	for _, c := range cases {
		out := make([]fileJSON, len(c.files))
		for i, f := range c.files {
			out[i] = toFileJSON(f)
		}
		want, err := json.Marshal(listAnswer{Files: out, OK: true, Page: c.page, PlotID: c.plotID, Prefix: c.prefix, Total: c.total})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendList(nil, c.plotID, c.prefix, c.files, c.total, c.page); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
	}
}
