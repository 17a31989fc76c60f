package domain

import "time"

// File is a plot file's head: its metadata and the id of its content. A file
// belongs to one tenancy of its plot, so files an abandon left behind are
// never visible to the cell's next holder.
type File struct {
	PlotID      string
	Tenancy     string
	Path        string
	Version     uint64
	Size        int64
	Hash        string
	ContentType string
	WrittenAt   time.Time
	WrittenBy   string
	// BlobID names the content document; empty when the head holds the
	// content itself (up to InlineContentBytes).
	BlobID string
	// Content is the content the head holds: set on a write, and on a
	// head read from the database; a head read from a copy in memory
	// leaves it out (the store's Content reads it).
	Content []byte
	// Hold is the id of the quota hold the write of this version took
	// (empty when it took none): it proves that write landed.
	Hold string
	// PlantedBy is, in the garden, the citizen who planted the path: its
	// share counts the file, and it may remove it. Empty for the index
	// (everyone's) and for files planted before plantings were recorded.
	PlantedBy string
	// Removed marks a garden file's removal: the head stays, naming the
	// removal's hold, so the removal settles like a write (see hold.go),
	// and the path reads as absent.
	Removed bool
}

// InlineContentBytes bounds the content a file's head document holds
// itself: a write of such a file is one document written, not a content
// document inserted and the replaced one deleted besides. Most files of
// the world (notes, a garden's pages) are far smaller.
const InlineContentBytes = 4096

// Exists reports whether the head was read from a stored file (storage
// counts versions from 1) that was not removed since.
func (f File) Exists() bool { return f.Version > 0 && !f.Removed }
