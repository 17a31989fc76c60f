// Package images builds one OCI image per binary of the world without a
// container daemon: each binary is built static (CGO_ENABLED=0), put in a
// single layer beside a passwd entry for the non-root user, and written as
// an image tarball (docker load, crane push, kind load) and into one OCI
// layout. Every timestamp is fixed, so the same source and toolchain give
// the same digests.
package images

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// The user every image runs as: the conventional "nonroot" of distroless
// images, so a cluster's runAsNonRoot check passes without a numeric
// override.
const (
	UID    = 65532
	User   = "65532:65532"
	BinDir = "/usr/local/bin"
	// CAFile is where OpenSSL, curl and Go look for the trusted roots by
	// default (SSL_CERT_FILE unset).
	CAFile = "/etc/ssl/certs/ca-certificates.crt"
	// ZoneDir is where Go, glibc and musl look for time zones.
	ZoneDir = "/usr/share/zoneinfo"
	Labels  = "org.opencontainers.image."
	refAnno = "org.opencontainers.image.ref.name"
)

// Target is one binary to put in an image.
type Target struct {
	Name string // image and binary name
	Pkg  string // Go package of its main, relative to the repository root
}

// Options say what to build and how to label it.
type Options struct {
	Root     string    // repository root (go.work lives there)
	Out      string    // output directory: <name>.tar per image, oci/ with all
	Version  string    // linked into the binary and labelled
	Revision string    // source revision label
	Source   string    // source label (repository address)
	Repo     string    // image repository prefix of the tarballs' tags
	Epoch    time.Time // every timestamp of the images
	Arch     string    // GOARCH; empty: this machine's
}

// Result is one built image.
type Result struct {
	Name   string
	Ref    string
	Digest v1.Hash
	Size   int64 // compressed: what a registry stores and a node pulls
	Path   string
}

// VersionFlag is the link-time variable every binary reports under
// --version (the operator and the probe have their own main but the same
// variable name).
var VersionFlag = map[string]string{"operator": "main.version", "probe": "main.version"}

// Targets reads the service table (the JSON of `go run ./hack/cmd/services`)
// and adds the operator and the probe (the chart's `helm test` image: the
// service images have no shell or HTTP client).
func Targets(ctx context.Context, root string) ([]Target, error) {
	cmd := exec.CommandContext(ctx, "go", "run", "./hack/cmd/services")
	cmd.Dir, cmd.Stderr = root, os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("read the service table: %w", err)
	}
	var table []struct{ Name, Cmd string }
	if err := json.Unmarshal(raw, &table); err != nil {
		return nil, fmt.Errorf("read the service table: %w", err)
	}
	out := make([]Target, 0, len(table)+1)
	for _, e := range table {
		out = append(out, Target{Name: e.Name, Pkg: e.Cmd})
	}
	return append(out, Target{Name: "operator", Pkg: "./operator/cmd"}, Target{Name: "probe", Pkg: "./hack/k8s/cmd/probe"}), nil
}

// Build builds every target's binary and image.
func Build(ctx context.Context, o Options, targets []Target) ([]Result, error) {
	if o.Arch == "" {
		o.Arch = runtime.GOARCH
	}
	bins := filepath.Join(o.Out, "bin")
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return nil, err
	}
	// A layout is appended to: start it afresh so it holds this build only.
	if err := os.RemoveAll(filepath.Join(o.Out, "oci")); err != nil {
		return nil, err
	}
	lay, err := layout.Write(filepath.Join(o.Out, "oci"), empty.Index)
	if err != nil {
		return nil, err
	}
	base, err := baseLayer(ctx, o.Epoch)
	if err != nil {
		return nil, err
	}
	platform := v1.Platform{OS: "linux", Architecture: o.Arch}
	var results []Result
	for _, t := range targets {
		bin := filepath.Join(bins, t.Name)
		if err := goBuild(ctx, o, t, bin); err != nil {
			return nil, err
		}
		img, err := image(o, base, t.Name, bin)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		ref, err := name.NewTag(fmt.Sprintf("%s/%s:%s", o.Repo, t.Name, tagOf(o.Version)))
		if err != nil {
			return nil, err
		}
		path := filepath.Join(o.Out, t.Name+".tar")
		if err := tarball.WriteToFile(path, ref, img); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		if err := lay.AppendImage(img, layout.WithAnnotations(map[string]string{refAnno: ref.String()}), layout.WithPlatform(platform)); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		r := Result{Name: t.Name, Ref: ref.String(), Path: path}
		if r.Digest, err = img.Digest(); err != nil {
			return nil, err
		}
		if r.Size, err = compressedSize(img); err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return results, nil
}

func goBuild(ctx context.Context, o Options, t Target, out string) error {
	variable := "sharedworld.dev/pkg/platform.Version"
	if v, ok := VersionFlag[t.Name]; ok {
		variable = v
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", fmt.Sprintf("-s -w -buildid= -X %s=%s", variable, o.Version), "-o", out, t.Pkg)
	cmd.Dir, cmd.Stdout, cmd.Stderr = o.Root, os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.Arch)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s: %w", t.Name, err)
	}
	return nil
}

func image(o Options, base []byte, binName, bin string) (v1.Image, error) {
	raw, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	files, err := writeTar([]entry{file(o.Epoch, "usr/local/bin/"+binName, 0o755, raw)})
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1),
		addendum(o.Epoch, base, "sharedworld images: base", "non-root user, CA bundle, time zones"),
		addendum(o.Epoch, files, "sharedworld images: "+binName, "static Go binary"))
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Created = o.Arch, "linux", v1.Time{Time: o.Epoch}
	cf.Config = v1.Config{
		Entrypoint: []string{BinDir + "/" + binName},
		User:       User,
		WorkingDir: "/home/nonroot",
		Env:        []string{"PATH=" + BinDir, "HOME=/home/nonroot"},
		Labels: map[string]string{
			Labels + "title":    "sharedworld-" + binName,
			Labels + "source":   o.Source,
			Labels + "version":  o.Version,
			Labels + "revision": o.Revision,
			Labels + "created":  o.Epoch.UTC().Format(time.RFC3339),
		},
	}
	return mutate.CreatedAt(mustConfig(img, cf), v1.Time{Time: o.Epoch})
}

// addendum is one layer of an image, from its uncompressed tar.
func addendum(epoch time.Time, files []byte, by, comment string) mutate.Addendum {
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		panic(err) // the opener cannot fail: the bytes are in memory
	}
	return mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: by, Comment: comment}}
}

func mustConfig(img v1.Image, cf *v1.ConfigFile) v1.Image {
	out, err := mutate.ConfigFile(img, cf)
	if err != nil {
		panic(err) // only fails on a nil config, which cannot happen here
	}
	return out
}

// entry is one file or directory of a layer.
type entry struct {
	h    *tar.Header
	body []byte
}

// dir and file make entries owned by root and dated at the epoch; the
// non-root user can change none of them (but its home).
func dir(epoch time.Time, name string, mode int64) entry {
	return entry{&tar.Header{Name: name, Mode: mode, Typeflag: tar.TypeDir, ModTime: epoch, Format: tar.FormatPAX}, nil}
}

func file(epoch time.Time, name string, mode int64, body []byte) entry {
	return entry{&tar.Header{Name: name, Mode: mode, Typeflag: tar.TypeReg, Size: int64(len(body)), ModTime: epoch, Format: tar.FormatPAX}, body}
}

// baseLayer is the layer every image shares: the directories the binary
// needs, a passwd and group naming the non-root user, the trusted roots at
// CAFile and the time zone database under ZoneDir. Both come from the Go
// toolchain and modules alone (no package of the building machine), so a
// build on any machine gives the same bytes.
func baseLayer(ctx context.Context, epoch time.Time) ([]byte, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, UID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", UID)
	home := dir(epoch, "home/nonroot/", 0o700)
	home.h.Uid, home.h.Gid = UID, UID
	entries := []entry{
		dir(epoch, "etc/", 0o755),
		file(epoch, "etc/passwd", 0o644, []byte(passwd)),
		file(epoch, "etc/group", 0o644, []byte(group)),
		dir(epoch, "etc/ssl/", 0o755),
		dir(epoch, "etc/ssl/certs/", 0o755),
		file(epoch, strings.TrimPrefix(CAFile, "/"), 0o644, CABundle()),
		dir(epoch, "home/", 0o755),
		home,
		dir(epoch, "tmp/", 0o1777),
		dir(epoch, "usr/", 0o755),
		dir(epoch, "usr/local/", 0o755),
		dir(epoch, "usr/local/bin/", 0o755),
		dir(epoch, "usr/share/", 0o755),
	}
	zones, err := zoneEntries(ctx, epoch)
	if err != nil {
		return nil, err
	}
	return writeTar(append(entries, zones...))
}

// CABundle is the PEM bundle of the roots golang.org/x/crypto/x509roots/fallback
// carries (Mozilla's list, pinned by hack/k8s/go.mod). A root the list
// trusts only with a constraint (such as "not for certificates issued after
// a date") is left out: a PEM file cannot carry the constraint.
func CABundle() []byte {
	var buf bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})
	}
	return buf.Bytes()
}

// zoneEntries unpacks the Go toolchain's time zone database
// ($GOROOT/lib/time/zoneinfo.zip, the one time/tzdata embeds) under ZoneDir.
func zoneEntries(ctx context.Context, epoch time.Time) ([]entry, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	zr, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		return nil, fmt.Errorf("time zones: %w", err)
	}
	defer zr.Close()
	root := strings.TrimPrefix(ZoneDir, "/") + "/"
	seen := map[string]bool{"usr/": true, "usr/share/": true}
	var entries []entry
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range files {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		name := root + f.Name
		var dirs []string
		for d := path.Dir(name); d != "." && !seen[d+"/"]; d = path.Dir(d) {
			dirs = append(dirs, d+"/")
		}
		for i := len(dirs) - 1; i >= 0; i-- {
			seen[dirs[i]] = true
			entries = append(entries, dir(epoch, dirs[i], 0o755))
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		entries = append(entries, file(epoch, name, 0o644, body))
	}
	if len(entries) < 100 {
		return nil, fmt.Errorf("time zones: only %d entries in zoneinfo.zip", len(entries))
	}
	return entries, nil
}

func writeTar(entries []entry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := tw.WriteHeader(e.h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func compressedSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	n := m.Config.Size
	for _, l := range m.Layers {
		n += l.Size
	}
	return n, nil
}

// tagOf makes a version a valid tag (a dirty tree's "+" is not allowed).
func tagOf(version string) string {
	out := []byte(version)
	for i, c := range out {
		ok := c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			out[i] = '-'
		}
	}
	return string(out)
}
