// Package domain holds the rules of plots, plot files, the commons garden and
// continuity backups (CONTRACT §4 and §11): the grid, plot ids, path and
// content validation, who may read, write and delete, the storage quota, the
// garden verbs and the backup limits; and the records storage keeps (Plot,
// File, Backup, Usage, Permissions) with the events their changes tell
// (events.go) and the outcomes storage reports (outcomes.go). It knows
// nothing of HTTP, MongoDB or Kafka, so every rule is tested here, fast and
// alone.
package domain
