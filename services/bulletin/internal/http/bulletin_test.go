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
