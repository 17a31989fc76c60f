package main

import (
	"fmt"
	"math"
)

// layout places citizen i's plot and words its bio: the shapes a world's
// claims and profiles can take, so that the benchmark measures the reads
// whose cost depends on them (the nearest free plot, a search term many
// citizens share) on more than one.
type layout struct {
	name string
	// side is the width of the square or of the stripes, in plots
	side int
	// gardeners: every gardeners-th bio holds "gardener"
	gardeners int
}

func layoutOf(name string, citizens, gardeners int) (layout, error) {
	l := layout{name: name, side: max(1, int(math.Ceil(math.Sqrt(float64(citizens))))), gardeners: max(gardeners, 1)}
	switch name {
	case "rows", "square":
	case "stripes":
		// every other column, so the stripes cover twice the square's width
		l.side = max(1, int(math.Ceil(math.Sqrt(float64(citizens)/2))))
	default:
		return l, fmt.Errorf("unknown layout %q (rows, square, stripes)", name)
	}
	return l, nil
}

// cell is citizen i's plot. rows: row by row from y = 1, a thousand to a
// row; square: a crowded square from (1, 1) outward, side by side;
// stripes: every other column from x = 1, side plots tall.
func (l layout) cell(i int) (x, y int) {
	switch l.name {
	case "square":
		return 1 + i%l.side, 1 + i/l.side
	case "stripes":
		return 1 + 2*(i/l.side), 1 + i%l.side
	}
	return i % 1000, 1 + i/1000
}

// centre is a cell in the middle of the claimed ones, where the nearest
// free plot is farthest away.
func (l layout) centre(citizens int) (x, y int) {
	switch l.name {
	case "square":
		return 1 + l.side/2, 1 + l.side/2
	case "stripes":
		return 1 + (citizens/l.side)/2*2, 1 + l.side/2
	}
	return 500, 1 + (citizens/1000)/2
}

// bio is citizen i's directory bio: every one says "seeded world" (a
// term all share), every gardeners-th "gardener", every second of the
// rest "wanderer".
func (l layout) bio(i int) string {
	role := "tinkerer"
	switch {
	case i%l.gardeners == 0:
		role = "gardener"
	case i%2 == 0:
		role = "wanderer"
	}
	return fmt.Sprintf("A %s of the seeded world, number %d.", role, i)
}
