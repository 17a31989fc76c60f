package domain

// GridSide is the side of the world's grid (CONTRACT §4: 0 ≤ x, y ≤ 999).
const GridSide = 1000

// OccupancyBytes is the size of an occupancy bitmap: one bit per cell.
const OccupancyBytes = GridSide * GridSide / 8

// occupancy is the whole map as one bit per grid cell, kept as plots change
// so that the web board can draw every claimed plot (the document lists at
// most PlotsShown) without a walk over every record: cell (x, y) is bit
// y*GridSide+x, the most significant bit of each byte first. 125,000 bytes
// at any population; a sparse map compresses to little.
type occupancy struct {
	bits  []byte
	dirty bool // changed since the last snapshot
}

func newOccupancy() occupancy { return occupancy{bits: make([]byte, OccupancyBytes), dirty: true} }

// set marks the cell of plot r as claimed or free.
func (o *occupancy) set(r Plot) {
	if r.X < 0 || r.Y < 0 || r.X >= GridSide || r.Y >= GridSide {
		return // not a cell of the grid; the plots service never claims one
	}
	i := r.Y*GridSide + r.X
	mask := byte(0x80) >> (i % 8)
	was := o.bits[i/8]&mask != 0
	if was == r.Claimed {
		return
	}
	o.bits[i/8] ^= mask
	o.dirty = true
}

// Occupancy returns a copy of the occupancy bitmap when a plot was claimed
// or released since the last call, or always (changed), so a rendering
// copies and compresses it only then.
func (p *Projection) Occupancy(always bool) (bits []byte, changed bool) {
	if !p.occupancy.dirty && !always {
		return nil, false
	}
	p.occupancy.dirty = false
	return append([]byte(nil), p.occupancy.bits...), true
}

// Occupied reports whether cell (x, y) is set in an occupancy bitmap.
func Occupied(bits []byte, x, y int) bool {
	i := y*GridSide + x
	return bits[i/8]&(byte(0x80)>>(i%8)) != 0
}
