package text

import "testing"

func TestStripHTML(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"§11 plain text untouched", "Ada Lovelace", "Ada Lovelace"},
		{"§11 tags removed, text kept", "<b>Ada</b> <i>L</i>", "Ada L"},
		{"§11 script content dropped", "Ada<script>alert(1)</script>", "Ada"},
		{"§11 entities decoded", "Tom &amp; Jerry", "Tom & Jerry"},
		{"§11 unclosed tag", "Ada <b", "Ada "},
	}
	for _, c := range cases {
		if got := StripHTML(c.in); got != c.want {
			t.Errorf("%s: StripHTML(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}
