package plotsstorage

import (
	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/app"
)

// The stores a test writes through behind the service's back, chosen as
// the service chooses them: on the embedded default the service's
// in-memory copies see those writes, as they see its own.

// UsageStore is the usage adapter of db's backend.
func UsageStore(db *mongox.DB) app.Usage { return newRepositories(db, mongox.NopNotifier{}).usage }

// FilesStore is the files adapter of db's backend.
func FilesStore(db *mongox.DB) app.Files { return newRepositories(db, mongox.NopNotifier{}).files }
