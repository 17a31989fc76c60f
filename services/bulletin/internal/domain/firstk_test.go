package domain

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFirstKMatchesSorting checks the bounded selection against a full sort
// for many sizes, including k larger than the input and k of zero.
func TestFirstKMatchesSorting(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	less := func(a, b int) bool { return a < b }
	for _, n := range []int{0, 1, 2, 7, 100, 2500} {
		for _, k := range []int{0, 1, 3, 10, 1000, 5000} {
			in := make([]int, n)
			for i := range in {
				in[i] = r.IntN(n/2 + 1) // with repeats
			}
			got := firstK(slices.Values(in), k, less)
			want := slices.Clone(in)
			slices.Sort(want)
			want = want[:min(k, n)]
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: got %v, want %v", n, k, got, want)
			}
		}
	}
}
