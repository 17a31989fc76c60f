// Command images builds one OCI image per service of the service table plus
// the operator, without a container daemon, into ./bin/images: an image
// tarball per binary (<name>.tar, for `crane push`, `docker load` or `kind
// load image-archive`) and an OCI layout holding them all (oci/).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"sharedworld.dev/hack/k8s/images"
)

func main() {
	o := images.Options{}
	flag.StringVar(&o.Root, "root", ".", "repository root")
	flag.StringVar(&o.Out, "out", "bin/images", "output directory")
	flag.StringVar(&o.Version, "version", "dev", "version linked into the binaries and labelled")
	flag.StringVar(&o.Revision, "revision", "unknown", "source revision label")
	flag.StringVar(&o.Source, "source", "https://sharedworld.dev/source", "source label")
	flag.StringVar(&o.Repo, "repo", "sharedworld", "image repository prefix")
	flag.StringVar(&o.Arch, "arch", "", "GOARCH (default: this machine's)")
	epoch := flag.Int64("epoch", envEpoch(), "unix time of every timestamp (default: $SOURCE_DATE_EPOCH, else 0)")
	flag.Parse()
	o.Epoch = time.Unix(*epoch, 0).UTC()

	ctx := context.Background()
	targets, err := images.Targets(ctx, o.Root)
	if err == nil {
		var built []images.Result
		if built, err = images.Build(ctx, o, targets); err == nil {
			for _, r := range built {
				fmt.Printf("%-14s %6.1f MB  %s  %s\n", r.Name, float64(r.Size)/1e6, r.Digest, r.Ref)
			}
			return
		}
	}
	fmt.Fprintln(os.Stderr, "images:", err)
	os.Exit(1)
}

func envEpoch() int64 {
	n, _ := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	return n
}
