package http

import (
	"encoding/json"
	"strconv"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// appendList appends the list's answer as json.Marshal writes listAnswer
// (TestAppendListIsMarshal holds it to that, byte for byte: the
// answer httpx.OK wrote from a map). The whole
// garden is 10,000 entries: encoding them by reflection, with a string
// for each timestamp, was most of what a list cost after a planting.
// A page (page set) has its pagination, and total counts every file of
// the listing, not only the page's.
func appendList(b []byte, plotID, prefix string, files []domain.File, total int, page *httpx.Pagination) []byte {
	b = append(b, `{"files":[`...)
	for i, f := range files {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendString(b, f.Path)
		b = append(b, `,"size_bytes":`...)
		b = strconv.AppendInt(b, f.Size, 10)
		b = append(b, `,"content_hash":`...)
		b = appendString(b, f.Hash)
		b = append(b, `,"content_type":`...)
		b = appendString(b, f.ContentType)
		b = append(b, `,"written_at":"`...)
		b = clock.AppendTimestamp(b, f.WrittenAt)
		b = append(b, `","version":`...)
		b = strconv.AppendUint(b, f.Version, 10)
		b = append(b, '}')
	}
	b = append(b, `],"ok":true`...)
	if page != nil {
		p, _ := json.Marshal(page) // two numbers and a string always encode
		b = append(b, `,"pagination":`...)
		b = append(b, p...)
	}
	b = append(b, `,"plot_id":`...)
	b = appendString(b, plotID)
	b = append(b, `,"prefix":`...)
	b = appendString(b, prefix)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	return append(b, '}')
}

// appendString appends s as a JSON string. Paths, hashes and content
// types are printable ASCII; anything else (or what json escapes for
// HTML: < > &) goes through json.Marshal, so the bytes stay its bytes.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
