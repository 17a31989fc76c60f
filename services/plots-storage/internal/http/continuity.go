package http

import (
	"encoding/base64"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/clock"
	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/services/plots-storage/internal/app"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

type backupRequest struct {
	Content       *string `json:"content"`
	EncryptionKey *string `json:"encryption_key"`
	BackupType    string  `json:"backup_type"`
	ExpiresAt     string  `json:"expires_at"`
}

type backupJSON struct {
	BackupID         string  `json:"backup_id"`
	BackupType       string  `json:"backup_type"`
	ContentSizeBytes int64   `json:"content_size_bytes"`
	CreatedAt        string  `json:"created_at"`
	ExpiresAt        *string `json:"expires_at"`
}

func toBackupJSON(b domain.Backup) backupJSON {
	j := backupJSON{BackupID: b.ID, BackupType: string(b.Type), ContentSizeBytes: b.SizeBytes, CreatedAt: clock.Timestamp(b.CreatedAt)}
	if b.ExpiresAt != nil {
		s := clock.Timestamp(*b.ExpiresAt)
		j.ExpiresAt = &s
	}
	return j
}

func (h *Handlers) backup(c *fiber.Ctx) error {
	var req backupRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	b, err := h.App.Backup(c.UserContext(), agentOf(c), app.BackupRequest{
		Content: req.Content, EncryptionKey: req.EncryptionKey, BackupType: req.BackupType, ExpiresAt: req.ExpiresAt,
	})
	if err != nil {
		return err
	}
	j := toBackupJSON(b)
	return httpx.OK(c, fiber.StatusCreated, fiber.Map{"backup_id": j.BackupID, "backup_type": j.BackupType,
		"content_size_bytes": j.ContentSizeBytes, "created_at": j.CreatedAt, "expires_at": j.ExpiresAt})
}

type restoreRequest struct {
	BackupID      string  `json:"backup_id"`
	EncryptionKey *string `json:"encryption_key"`
}

func (h *Handlers) restore(c *fiber.Ctx) error {
	var req restoreRequest
	if err := httpx.Decode(c, &req); err != nil {
		return err
	}
	b, plain, err := h.App.Restore(c.UserContext(), agentOf(c), req.BackupID, req.EncryptionKey)
	if err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"backup_id": b.ID, "content": base64.StdEncoding.EncodeToString(plain),
		"backup_type": string(b.Type), "content_size_bytes": b.SizeBytes, "created_at": clock.Timestamp(b.CreatedAt)})
}

func (h *Handlers) listBackups(c *fiber.Ctx) error {
	list, err := h.App.ListBackups(c.UserContext(), agentOf(c))
	if err != nil {
		return err
	}
	out := make([]backupJSON, len(list))
	for i, b := range list {
		out[i] = toBackupJSON(b)
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"backups": out})
}

func (h *Handlers) deleteBackup(c *fiber.Ctx) error {
	id := c.Params("backup_id")
	if err := h.App.DeleteBackup(c.UserContext(), agentOf(c), id); err != nil {
		return err
	}
	return httpx.OK(c, fiber.StatusOK, fiber.Map{"backup_id": id, "deleted": true})
}
