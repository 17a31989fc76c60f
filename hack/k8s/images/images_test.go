package images_test

import (
	"archive/tar"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
// built with, the trusted roots and the time zones are where tools look
// for them, the OCI index names each image's platform, and a second build
// gives the same digests.
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
	if last := targets[len(targets)-1]; last.Name != "probe" {
		t.Fatalf("targets %v: want the probe (the chart's helm test image) last", targets)
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
			files := extract(t, img, opts.Epoch, images.BinDir+"/"+r.Name, images.CAFile, images.ZoneDir+"/Europe/Berlin", images.ZoneDir+"/Etc/UTC")
			checkRoots(t, files[images.CAFile])
			for _, zone := range []string{"Europe/Berlin", "Etc/UTC"} {
				if _, err := time.LoadLocationFromTZData(zone, files[images.ZoneDir+"/"+zone]); err != nil {
					t.Errorf("time zone %s: %v", zone, err)
				}
			}
			bin := filepath.Join(t.TempDir(), r.Name)
			if err := os.WriteFile(bin, files[images.BinDir+"/"+r.Name], 0o755); err != nil {
				t.Fatal(err)
			}
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
		if d.Platform == nil || d.Platform.OS != "linux" || d.Platform.Architecture != opts.Arch {
			t.Errorf("layout entry %d (%s): platform %v, want linux/%s", i, built[i].Ref, d.Platform, opts.Arch)
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

// checkRoots: the CA bundle parses, holds a public root set, and verifies
// a chain to one of its roots (the bundle is what a TLS client trusts
// when SSL_CERT_FILE is unset).
func checkRoots(t *testing.T, pemBytes []byte) {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s holds no certificate", images.CAFile)
	}
	n := 0
	for rest := pemBytes; ; n++ {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatalf("certificate %d: %v", n, err)
		}
		if n == 0 {
			if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: cert.NotBefore.Add(time.Hour)}); err != nil {
				t.Errorf("%s does not verify against the bundle: %v", cert.Subject, err)
			}
		}
	}
	if n < 100 {
		t.Errorf("%s holds %d roots, want a public root set (>100)", images.CAFile, n)
	}
}

// extract reads the files at paths out of the image's layers (the last
// layer holding a path wins), checking every entry's timestamp on the way
// and that only the home directory belongs to the image's user (nothing
// else must be writable by it).
func extract(t *testing.T, img v1.Image, epoch time.Time, paths ...string) map[string][]byte {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
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
			if !slices.Contains(paths, "/"+h.Name) {
				continue
			}
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			out["/"+h.Name] = body
		}
		rc.Close()
	}
	for _, p := range paths {
		if _, ok := out[p]; !ok {
			t.Fatalf("%s not in the image", p)
		}
	}
	return out
}
