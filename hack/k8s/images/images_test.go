package images_test

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"sharedworld.dev/hack/k8s/images"
)

const version = "v0.0.0-imagetest"

// Every image of the world, opened from what `make images` writes: the
// entrypoint is the binary, the user is not root, the labels name source
// and version, the binary inside runs and reports the version it was
// built with, and a second build gives the same digests.
func TestImages(t *testing.T) {
	ctx := context.Background()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	targets, err := images.Targets(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) < 6 {
		t.Fatalf("targets %v: want every service of the table", targets)
	}
	opts := images.Options{Root: root, Version: version, Revision: "abc123", Source: "https://example.org/src",
		Repo: "registry.example/sw", Epoch: time.Unix(1700000000, 0).UTC(), Arch: runtime.GOARCH}
	first, second := opts, opts
	first.Out, second.Out = t.TempDir(), t.TempDir()
	built, err := images.Build(ctx, first, targets)
	if err != nil {
		t.Fatal(err)
	}
	again, err := images.Build(ctx, second, targets)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range built {
		t.Run(r.Name, func(t *testing.T) {
			if again[i].Digest != r.Digest {
				t.Errorf("not reproducible: %s then %s", r.Digest, again[i].Digest)
			}
			img, err := tarball.ImageFromPath(r.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkConfig(t, img, r.Name, opts)
			bin := extract(t, img, images.BinDir+"/"+r.Name, opts.Epoch)
			out, err := exec.Command(bin, "--version").CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != r.Name+" "+version {
				t.Errorf("%s --version: %v, %q", r.Name, err, out)
			}
			t.Logf("%s: %.1f MB compressed", r.Name, float64(r.Size)/1e6)
		})
	}
	// The OCI layout holds the same images under their references.
	idx, err := layout.ImageIndexFromPath(filepath.Join(first.Out, "oci"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != len(built) {
		t.Fatalf("layout has %d images, want %d", len(m.Manifests), len(built))
	}
	for i, d := range m.Manifests {
		if d.Digest != built[i].Digest || d.Annotations["org.opencontainers.image.ref.name"] != built[i].Ref {
			t.Errorf("layout entry %d: %s %v, want %s %s", i, d.Digest, d.Annotations, built[i].Digest, built[i].Ref)
		}
	}
}

func checkConfig(t *testing.T, img v1.Image, name string, o images.Options) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if len(c.Entrypoint) != 1 || c.Entrypoint[0] != images.BinDir+"/"+name || len(c.Cmd) != 0 {
		t.Errorf("entrypoint %v cmd %v", c.Entrypoint, c.Cmd)
	}
	if c.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", c.User)
	}
	want := map[string]string{"source": o.Source, "version": version, "revision": o.Revision}
	for k, v := range want {
		if got := c.Labels["org.opencontainers.image."+k]; got != v {
			t.Errorf("label %s = %q, want %q", k, got, v)
		}
	}
	if !cf.Created.Time.Equal(o.Epoch) || cf.OS != "linux" || cf.Architecture != o.Arch {
		t.Errorf("created %s os %s arch %s", cf.Created, cf.OS, cf.Architecture)
	}
}

// extract writes the file at path out of the image's layers, checking
// every entry's timestamp on the way and that only the home directory
// belongs to the image's user (the binary must not be writable by it).
func extract(t *testing.T, img v1.Image, path string, epoch time.Time) string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	found := false
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !h.ModTime.Equal(epoch) {
				t.Errorf("%s dated %s, want %s", h.Name, h.ModTime, epoch)
			}
			if h.Uid != 0 && h.Name != "home/nonroot/" {
				t.Errorf("%s owned by %d", h.Name, h.Uid)
			}
			if "/"+h.Name != path {
				continue
			}
			found = true
			f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY, 0o755)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		rc.Close()
	}
	if !found {
		t.Fatalf("%s not in the image", path)
	}
	return out
}
