package httpx

import (
	"testing"
	"unicode/utf8"
)

// validText agrees with decoding the escapes first and then checking.
func FuzzValidText(f *testing.F) {
	for _, s := range []string{"", "a=b", "search=%ff", "%c3%28", "%ed%a0%80", "%E2%82%AC", "%zz%", "%", "%c3", "\xff", "é", "%F0%9F%98%80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		decoded := make([]byte, 0, len(raw))
		for i := 0; i < len(raw); i++ {
			if raw[i] == '%' && i+2 < len(raw) && isHex(raw[i+1]) && isHex(raw[i+2]) {
				decoded = append(decoded, unhex(raw[i+1])<<4|unhex(raw[i+2]))
				i += 2
				continue
			}
			decoded = append(decoded, raw[i])
		}
		if got, want := validText(raw), utf8.Valid(decoded); got != want {
			t.Fatalf("validText(%q) = %v, decoded %q valid %v", raw, got, decoded, want)
		}
	})
}

func FuzzAmbiguousLength(f *testing.F) {
	f.Add([]byte("Content-Length: 5\r\nContent-Length: 7\r\n"))
	f.Add([]byte("content-length: 2\r\nTransfer-Encoding: chunked\r\n"))
	f.Add([]byte("Content-Length: 2\r\nContent-Length:2\r\nHost: x\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) { _ = ambiguousLength(raw) })
}

// The checks every request passes allocate nothing.
func BenchmarkRequestTextChecks(b *testing.B) {
	path := []byte("/api/world/storage/read")
	query := []byte("plot_id=plot_x10_y10&path=%2Fgarden%2Fada%2Fpo%C3%A8me.md&limit=50")
	headers := []byte("Host: world\r\nContent-Type: application/json\r\nContent-Length: 120\r\nX-Agent-Id: emb_0a1b2c3d4e5f6a7b8c9de1f2\r\n")
	b.ReportAllocs()
	for b.Loop() {
		if !validText(path) || !validText(query) || ambiguousLength(headers) {
			b.Fatal("a good request refused")
		}
	}
}
