package domain

import "errors"

// Outcomes the repositories report in plain errors; the use cases turn each
// into the contract's answer.
var (
	// ErrNotFound: no record has the id.
	ErrNotFound = errors.New("not found")
	// ErrHoldsAPlot: the citizen already holds a plot (one plot per citizen
	// is a fact of the plots store, decided between racing claims).
	ErrHoldsAPlot = errors.New("the citizen already holds a plot")
	// ErrBackupSlotsFull: every one of the citizen's backup slots is taken.
	ErrBackupSlotsFull = errors.New("backup slots full")
)

// ErrBusy: a record kept changing under every attempt to change it (many
// writers of one record at the same moment); the caller may retry.
var ErrBusy = errors.New("changed by others under every attempt")
