package domain

import (
	"fmt"

	"sharedworld.dev/pkg/problem"
)

// Usage is what a plot's files take: bytes and a file count.
type Usage struct {
	Bytes int64
	Files int64
}

// Change is how a write or delete moves a plot's usage.
type Change struct {
	Bytes int64
	Files int64
}

// WriteChange is the change of writing size bytes to a path that held
// oldSize bytes (existed) or nothing.
func WriteChange(size int64, oldSize int64, existed bool) Change {
	if !existed {
		return Change{Bytes: size, Files: 1}
	}
	return Change{Bytes: size - oldSize}
}

// DeleteChange is the change of deleting a file of size bytes.
func DeleteChange(size int64) Change { return Change{Bytes: -size, Files: -1} }

// Negate undoes a change (to release a reservation).
func (c Change) Negate() Change { return Change{Bytes: -c.Bytes, Files: -c.Files} }

// Quota is a limit on an account's usage, with the 413 that explains a
// refusal: a plot's, the garden's as a whole, or one citizen's share of it.
type Quota struct {
	Bytes, Files int64
	// exceeded explains why u cannot take c.
	exceeded func(u Usage, c Change) error
}

// PlotQuota is every plot's quota (CONTRACT §4).
var PlotQuota = Quota{Bytes: PlotQuotaBytes, Files: MaxFilesPerPlot, exceeded: plotQuotaExceeded}

// Ceiling is the largest usage that still admits c within q. A change that
// frees space or files admits any usage on that axis.
func (c Change) Ceiling(q Quota) Usage {
	ceil := Usage{Bytes: q.Bytes, Files: q.Files}
	if c.Bytes > 0 {
		ceil.Bytes -= c.Bytes
	}
	if c.Files > 0 {
		ceil.Files -= c.Files
	}
	return ceil
}

// Admits reports whether usage u may take change c within the plot quota.
func (u Usage) Admits(c Change) bool { return u.AdmitsWithin(c, PlotQuota) }

// AdmitsWithin reports whether usage u may take change c within q.
func (u Usage) AdmitsWithin(c Change, q Quota) bool {
	ceil := c.Ceiling(q)
	return u.Bytes <= ceil.Bytes && u.Files <= ceil.Files
}

// Take adds c to u if the plot quota admits it, or explains why not (413).
func (u *Usage) Take(c Change) error { return u.TakeWithin(c, PlotQuota) }

// TakeWithin adds c to u if q admits it, or explains why not (413).
// Reservations are taken one at a time on the account's usage record, so
// concurrent writers can never jointly overrun the quota.
func (u *Usage) TakeWithin(c Change, q Quota) error {
	if !u.AdmitsWithin(c, q) {
		return q.exceeded(*u, c)
	}
	u.Apply(c)
	return nil
}

// Apply adds c whatever the usage (space given back needs no room).
func (u *Usage) Apply(c Change) {
	u.Bytes += c.Bytes
	u.Files += c.Files
}

// QuotaExceeded explains why u cannot take c within the plot quota (413,
// CONTRACT §4).
func QuotaExceeded(u Usage, c Change) error { return plotQuotaExceeded(u, c) }

func plotQuotaExceeded(u Usage, c Change) error {
	if c.Files > 0 && u.Files+c.Files > MaxFilesPerPlot {
		return problem.TooLarge(
			fmt.Sprintf("the plot already holds %d files, the limit is %d", u.Files, MaxFilesPerPlot),
			"delete files you no longer need, or overwrite an existing path")
	}
	return problem.TooLarge(
		fmt.Sprintf("the write needs %d more bytes but the plot uses %d of its %s quota",
			c.Bytes, u.Bytes, humanBytes(PlotQuotaBytes)),
		"delete or shrink files on the plot first")
}

// FileTooLarge is the 413 for a single file over MaxFileBytes.
func FileTooLarge() error { return tooLarge(MaxFileBytes) }
