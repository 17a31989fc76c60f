package attack

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const commons = "plot_0_0"

// Limits are the documented limits the attacks check answers against.
type Limits struct {
	ShareFiles int   // garden_share_files
	ShareBytes int64 // garden_share_bytes
	FileBytes  int64 // the largest file a write takes (decoded)
}

// plant writes content at path in the garden. A 429 is a refusal a client
// must honour, not an anomaly: it waits Retry-After and tries again (a
// world with the default limits), at most a few times.
func (w *World) plant(cat *Category, a Agent, path string, content []byte) Reply {
	body := map[string]any{"plot_id": commons, "path": path, "content": base64.StdEncoding.EncodeToString(content)}
	for try := 0; ; try++ {
		r := w.JSON(cat, "POST", "/api/world/storage/write", body, a.Headers())
		if r.Status != http.StatusTooManyRequests || try == 5 {
			return r
		}
		wait, _ := strconv.Atoi(r.Header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second)
	}
}

// Garden is the garden abuse: one citizen fills its share of the garden and
// no more; the 413 names the documented share and its hint (remove your
// own plantings) works; others still plant; a planter removes its own,
// another citizen cannot (403), the ambassador removes any.
func Garden(w *World, lim Limits) (*Category, Agent) {
	cat := &Category{Name: "garden"}
	abuser, err := w.NewCitizen(cat, "Filler")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return cat, Agent{}
	}
	other, err := w.NewCitizen(cat, "Neighbour")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return cat, Agent{}
	}
	folder := "/garden/" + strings.ToLower(abuser.Name) + "/"

	// Fill the share: exactly ShareFiles plantings land, the next is 413.
	planted := 0
	var refusal Reply
	for i := 0; i < lim.ShareFiles+20; i++ {
		r := w.plant(cat, abuser, fmt.Sprintf("%sf%d.md", folder, i), []byte("x"))
		if r.Status == http.StatusCreated {
			planted++
			continue
		}
		refusal = r
		break
	}
	if planted != lim.ShareFiles {
		cat.Flag(refusal, "a citizen planted %d files; its documented share is %d", planted, lim.ShareFiles)
	}
	if cat.Refused(refusal, "a planting beyond the share", http.StatusRequestEntityTooLarge, "payload_too_large") {
		if !strings.Contains(refusal.Str("message"), strconv.Itoa(lim.ShareFiles)) {
			cat.Flag(refusal, "the 413 does not name the share of %d files", lim.ShareFiles)
		}
		if !strings.Contains(refusal.Str("hint"), "/api/world/storage/delete") {
			cat.Flag(refusal, "the 413's hint does not name the removal route")
		}
	}
	// Anyone else still plants.
	cat.Want(w.plant(cat, other, "/garden/"+strings.ToLower(other.Name)+"/hello.md", []byte("hi")), "another citizen plants while one share is full", http.StatusCreated)

	// The hint is true: the planter removes one of its own and plants again.
	del := func(a Agent, path string) Reply {
		return w.JSON(cat, "POST", "/api/world/storage/delete", map[string]any{"plot_id": commons, "path": path}, a.Headers())
	}
	cat.Refused(del(other, folder+"f0.md"), "another citizen removes a planting", http.StatusForbidden, "permission_denied")
	cat.Refused(w.JSON(cat, "POST", "/api/world/storage/delete", map[string]any{"plot_id": commons, "path": folder + "f0.md"}, nil),
		"an anonymous removal", http.StatusUnauthorized, "")
	cat.Want(del(abuser, folder+"f0.md"), "the planter removes its own planting", http.StatusOK)
	cat.Want(del(abuser, folder+"f0.md"), "a removal repeated", http.StatusNotFound)
	cat.Want(w.plant(cat, abuser, folder+"again.md", []byte("x")), "a planting after a removal freed room", http.StatusCreated)
	cat.Refused(w.plant(cat, abuser, folder+"more.md", []byte("x")), "the share is full again", http.StatusRequestEntityTooLarge, "payload_too_large")
	cat.Want(w.plant(cat, other, "/garden/index.md", []byte("# The garden")), "a citizen tends the index", http.StatusCreated)
	cat.Refused(del(other, "/garden/index.md"), "a citizen removes the index", http.StatusForbidden, "permission_denied")

	// The ambassador removes any planting; nobody else uses its route.
	admin := "/api/admin/garden/" + strings.ToLower(abuser.Name) + "/f1.md"
	cat.Refused(w.Send(cat, "DELETE", admin, nil, abuser.Headers()), "a citizen on the ambassador's removal route", http.StatusUnauthorized, "")
	cat.Refused(w.Send(cat, "DELETE", admin, nil, http.Header{"Authorization": {"Bearer not-the-token"}}), "a wrong ambassador token", http.StatusUnauthorized, "")
	cat.Want(w.Send(cat, "DELETE", admin, nil, w.Admin()), "the ambassador removes a planting", http.StatusOK)
	cat.Want(w.plant(cat, abuser, folder+"after-admin.md", []byte("x")), "a planting after the ambassador's removal", http.StatusCreated)
	cat.Refused(w.Send(cat, "DELETE", "/api/admin/garden/"+strings.ToLower(abuser.Name)+"/nothing.md", nil, w.Admin()), "the ambassador removes a missing file", http.StatusNotFound, "")
	cat.Refused(w.Send(cat, "DELETE", "/api/admin/garden/notindex.md", nil, w.Admin()), "a file straight under /garden/ other than the index", http.StatusBadRequest, "")

	gardenBytes(w, cat, lim)
	return cat, abuser
}

// gardenBytes: the share's bytes hold too. A citizen plants files of the
// largest size until its bytes share is full; the next planting is 413.
func gardenBytes(w *World, cat *Category, lim Limits) {
	big, err := w.NewCitizen(cat, "Heavy")
	if err != nil {
		cat.Note("no citizen: %v", err)
		return
	}
	content := make([]byte, lim.FileBytes)
	fits := int(lim.ShareBytes / lim.FileBytes)
	folder := "/garden/" + strings.ToLower(big.Name) + "/"
	for i := 0; i < fits; i++ {
		cat.Want(w.plant(cat, big, fmt.Sprintf("%sbig%d.md", folder, i), content), "a large planting within the bytes share", http.StatusCreated)
	}
	r := w.plant(cat, big, folder+"onemore.md", content)
	if cat.Refused(r, "a planting beyond the bytes share", http.StatusRequestEntityTooLarge, "payload_too_large") &&
		!strings.Contains(r.Str("hint"), "/api/world/storage/delete") {
		cat.Flag(r, "the bytes share's 413 hint does not name the removal route")
	}
}
