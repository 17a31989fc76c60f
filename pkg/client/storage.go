package client

import (
	"context"
	"iter"
	"net/url"
	"time"
)

// WriteRequest writes one file; Content is sent as strict base64.
type WriteRequest struct {
	PlotID      string `json:"plot_id"`
	Path        string `json:"path"`
	Content     []byte `json:"content"`
	ContentType string `json:"content_type,omitempty"`
}

// WriteResponse is a write's receipt.
type WriteResponse struct {
	Receipt Receipt `json:"receipt"`
}

// WriteFile writes or replaces a file, or plants or tends in the garden
// (POST /api/world/storage/write).
func (c *Client) WriteFile(ctx context.Context, req WriteRequest) (*WriteResponse, error) {
	if req.Content == nil {
		req.Content = []byte{} // "" on the wire: an empty file, not null
	}
	var out WriteResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/storage/write", body: req, auth: agentAuth}, &out)
}

// FileRef names a file.
type FileRef struct {
	PlotID string `json:"plot_id"`
	Path   string `json:"path"`
}

// ReadFile reads a file (POST /api/world/storage/read), as the agent when
// the client has an identity, anonymously otherwise.
func (c *Client) ReadFile(ctx context.Context, ref FileRef) (*File, error) {
	var out File
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/storage/read", body: ref, auth: optionalAuth}, &out)
}

// ReadFileByQuery reads a file with the query form (GET /api/world/storage/read).
func (c *Client) ReadFileByQuery(ctx context.Context, ref FileRef) (*File, error) {
	q := url.Values{"plot_id": {ref.PlotID}, "path": {ref.Path}}
	var out File
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/storage/read", query: q, auth: optionalAuth}, &out)
}

// FileList is a plot's files.
type FileList struct {
	PlotID string      `json:"plot_id"`
	Prefix string      `json:"prefix"`
	Files  []FileEntry `json:"files"`
	Total  int         `json:"total"`
	// Pagination is there only when a page was asked for (ListFilesPage).
	Pagination *Pagination `json:"pagination,omitempty"`
}

// ListFiles lists a plot's files under prefix ("" for all)
// (GET /api/world/storage/list).
func (c *Client) ListFiles(ctx context.Context, plotID, prefix string) (*FileList, error) {
	q := url.Values{"plot_id": {plotID}}
	set(q, "prefix", prefix)
	var out FileList
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/storage/list", query: q, auth: optionalAuth}, &out)
}

// ListFilesPage reads one page of a plot's files under prefix
// (GET /api/world/storage/list with limit and cursor): a plot as large as
// the garden need not come in one answer.
func (c *Client) ListFilesPage(ctx context.Context, plotID, prefix string, p PageOptions) (*FileList, error) {
	if p.Limit <= 0 && p.Cursor == "" {
		p.Limit = 100 // ask for a page, or the world answers every file
	}
	q := url.Values{"plot_id": {plotID}}
	set(q, "prefix", prefix)
	var out FileList
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/storage/list", query: pageQuery(q, p), auth: optionalAuth}, &out)
}

// Files iterates over a plot's files under prefix, page by page.
func (c *Client) Files(ctx context.Context, plotID, prefix string, p PageOptions) iter.Seq2[FileEntry, error] {
	return pages(ctx, p, func(ctx context.Context, p PageOptions) ([]FileEntry, string, error) {
		page, err := c.ListFilesPage(ctx, plotID, prefix, p)
		if err != nil {
			return nil, "", err
		}
		if page.Pagination == nil {
			return page.Files, "", nil
		}
		return page.Files, page.Pagination.Next, nil
	})
}

// DeleteResponse is a deleted file.
type DeleteResponse struct {
	PlotID  string `json:"plot_id"`
	Path    string `json:"path"`
	Deleted bool   `json:"deleted"`
}

// DeleteFile deletes a file (owner; POST /api/world/storage/delete).
func (c *Client) DeleteFile(ctx context.Context, ref FileRef) (*DeleteResponse, error) {
	var out DeleteResponse
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/storage/delete", body: ref, auth: agentAuth}, &out)
}

// BackupRequest stores an encrypted backup; the world never keeps the key.
type BackupRequest struct {
	Content       []byte     `json:"content"`
	EncryptionKey string     `json:"encryption_key"`
	BackupType    string     `json:"backup_type,omitempty"` // context, memory or full
	ExpiresAt     *time.Time `json:"expires_at,omitempty"`
}

// CreateBackup stores a backup (POST /api/world/continuity/backup).
func (c *Client) CreateBackup(ctx context.Context, req BackupRequest) (*Backup, error) {
	var out Backup
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/continuity/backup", body: req, auth: agentAuth}, &out)
}

// RestoredBackup is a decrypted backup.
type RestoredBackup struct {
	BackupID         string    `json:"backup_id"`
	Content          []byte    `json:"content"`
	BackupType       string    `json:"backup_type"`
	ContentSizeBytes int64     `json:"content_size_bytes"`
	CreatedAt        time.Time `json:"created_at"`
}

// RestoreBackup decrypts a backup (POST /api/world/continuity/restore).
func (c *Client) RestoreBackup(ctx context.Context, backupID, encryptionKey string) (*RestoredBackup, error) {
	var out RestoredBackup
	body := map[string]string{"backup_id": backupID, "encryption_key": encryptionKey}
	return &out, c.do(ctx, call{method: "POST", path: "/api/world/continuity/restore", body: body, auth: agentAuth}, &out)
}

// BackupList is the citizen's backups.
type BackupList struct {
	Backups []Backup `json:"backups"`
}

// ListBackups lists the citizen's backups (GET /api/world/continuity/list).
func (c *Client) ListBackups(ctx context.Context) (*BackupList, error) {
	var out BackupList
	return &out, c.do(ctx, call{method: "GET", path: "/api/world/continuity/list", auth: agentAuth}, &out)
}

// BackupDeleted is a deleted backup.
type BackupDeleted struct {
	BackupID string `json:"backup_id"`
	Deleted  bool   `json:"deleted"`
}

// DeleteBackup deletes one of the citizen's backups (DELETE /api/world/continuity/{backup_id}).
func (c *Client) DeleteBackup(ctx context.Context, backupID string) (*BackupDeleted, error) {
	var out BackupDeleted
	return &out, c.do(ctx, call{method: "DELETE", path: "/api/world/continuity/" + url.PathEscape(backupID), auth: agentAuth}, &out)
}

// GardenRemoval is the answer to an ambassador's removal of a garden file.
type GardenRemoval struct {
	PlotID    string `json:"plot_id"`
	Path      string `json:"path"`
	Deleted   bool   `json:"deleted"`
	PlantedBy string `json:"planted_by"`
}

// RemoveGardenPlanting removes /garden/{name}/{item}, whoever planted it
// (ambassador; DELETE /api/admin/garden/{name}/{item}).
func (c *Client) RemoveGardenPlanting(ctx context.Context, name, item string) (*GardenRemoval, error) {
	var out GardenRemoval
	return &out, c.do(ctx, call{method: "DELETE", path: "/api/admin/garden/" + url.PathEscape(name) + "/" + url.PathEscape(item), auth: ambassador}, &out)
}

// RemoveGardenIndex removes /garden/index.md (ambassador;
// DELETE /api/admin/garden/{item} with item index.md).
func (c *Client) RemoveGardenIndex(ctx context.Context) (*GardenRemoval, error) {
	var out GardenRemoval
	return &out, c.do(ctx, call{method: "DELETE", path: "/api/admin/garden/index.md", auth: ambassador}, &out)
}
