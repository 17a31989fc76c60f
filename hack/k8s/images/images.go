// Package images builds one OCI image per binary of the world without a
// container daemon: each binary is built static (CGO_ENABLED=0), put in a
// single layer beside a passwd entry for the non-root user, and written as
// an image tarball (docker load, crane push, kind load) and into one OCI
// layout. Every timestamp is fixed, so the same source and toolchain give
// the same digests.
package images

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user every image runs as: the conventional "nonroot" of distroless
// images, so a cluster's runAsNonRoot check passes without a numeric
// override.
const (
	UID     = 65532
	User    = "65532:65532"
	BinDir  = "/usr/local/bin"
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
// --version (the operator has its own main but the same variable name).
var VersionFlag = map[string]string{"operator": "main.version"}

// Targets reads the service table (the JSON of `go run ./hack/cmd/services`)
// and adds the operator.
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
	return append(out, Target{Name: "operator", Pkg: "./operator/cmd"}), nil
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
	var results []Result
	for _, t := range targets {
		bin := filepath.Join(bins, t.Name)
		if err := goBuild(ctx, o, t, bin); err != nil {
			return nil, err
		}
		img, err := image(o, t.Name, bin)
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
		if err := lay.AppendImage(img, layout.WithAnnotations(map[string]string{refAnno: ref.String()})); err != nil {
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

func image(o Options, binName, bin string) (v1.Image, error) {
	raw, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	files, err := layerTar(o.Epoch, binName, raw)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: o.Epoch}, CreatedBy: "sharedworld images: " + binName, Comment: "static Go binary"},
	})
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

func mustConfig(img v1.Image, cf *v1.ConfigFile) v1.Image {
	out, err := mutate.ConfigFile(img, cf)
	if err != nil {
		panic(err) // only fails on a nil config, which cannot happen here
	}
	return out
}

// layerTar is the image's only layer: the directories the binary needs, a
// passwd and group naming the non-root user, and the binary, all owned by
// root (the user cannot change them) and dated at the epoch.
func layerTar(epoch time.Time, binName string, bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := func(name string, mode int64, typ byte, size int, uid int) *tar.Header {
		return &tar.Header{Name: name, Mode: mode, Typeflag: typ, Size: int64(size), Uid: uid, Gid: uid,
			ModTime: epoch, Format: tar.FormatPAX}
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, UID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", UID)
	entries := []struct {
		h    *tar.Header
		body []byte
	}{
		{hdr("etc/", 0o755, tar.TypeDir, 0, 0), nil},
		{hdr("etc/passwd", 0o644, tar.TypeReg, len(passwd), 0), []byte(passwd)},
		{hdr("etc/group", 0o644, tar.TypeReg, len(group), 0), []byte(group)},
		{hdr("home/", 0o755, tar.TypeDir, 0, 0), nil},
		{hdr("home/nonroot/", 0o700, tar.TypeDir, 0, UID), nil},
		{hdr("tmp/", 0o1777, tar.TypeDir, 0, 0), nil},
		{hdr("usr/", 0o755, tar.TypeDir, 0, 0), nil},
		{hdr("usr/local/", 0o755, tar.TypeDir, 0, 0), nil},
		{hdr("usr/local/bin/", 0o755, tar.TypeDir, 0, 0), nil},
		{hdr("usr/local/bin/"+binName, 0o755, tar.TypeReg, len(bin), 0), bin},
	}
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
