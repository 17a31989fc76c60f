package httpx

import "strings"

// AcceptsGzip reads Accept-Encoding: gzip (or *) with a quality above zero.
func AcceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && name != "*" {
			continue
		}
		return !zeroQuality(params)
	}
	return false
}

// zeroQuality reads a q parameter of zero ("q=0", "q = 0.000").
func zeroQuality(params string) bool {
	name, value, ok := strings.Cut(params, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
		return false
	}
	value = strings.TrimSpace(value)
	if value == "0" {
		return true
	}
	rest, ok := strings.CutPrefix(value, "0.")
	return ok && len(rest) <= 3 && strings.Trim(rest, "0") == ""
}
