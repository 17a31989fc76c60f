package http

import "testing"

func TestETagMatches(t *testing.T) {
	t.Parallel()
	const tag = `"abc"`
	cases := []struct {
		name, header string
		want         bool
	}{
		{"CONTRACT §6 the current tag", `"abc"`, true},
		{"RFC 9110 weak comparison", `W/"abc"`, true},
		{"RFC 9110 a list holding the tag", `"x", "abc"`, true},
		{"RFC 9110 any", `*`, true},
		{"another tag", `"abd"`, false},
		{"no header", ``, false},
		{"unquoted is not the tag", `abc`, false},
	}
	for _, c := range cases {
		if got := etagMatches(c.header, tag); got != c.want {
			t.Errorf("%s: etagMatches(%q) = %v", c.name, c.header, got)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header string
		want   bool
	}{
		{"gzip", true},
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"GZIP", true},
		{"*", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0.", false},
		{"gzip; Q = 0", false},
		{"gzip;q=0.001", true},
		{"gzip;q=0.0000", true},
		{"br", false},
		{"", false},
		{"x-gzip-like", false},
	}
	for _, c := range cases {
		if got := acceptsGzip(c.header); got != c.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}
