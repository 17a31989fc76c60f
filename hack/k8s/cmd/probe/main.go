// Command probe checks that a deployed world answers: it sends GET to each
// address given and succeeds when every one answered 2xx before the
// deadline, retrying the others meanwhile. It is the chart's `helm test`
// (image sharedworld/probe): the service images carry no shell or HTTP
// client to run such a check.
//
//	probe [-timeout 60s] [-interval 2s] URL...
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// version is set at link time (hack/k8s/images).
var version = "dev"

func main() {
	timeout := flag.Duration("timeout", 60*time.Second, "longest wait for every address to answer 2xx")
	interval := flag.Duration("interval", 2*time.Second, "pause between attempts at an address that did not")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("probe", version)
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: probe [-timeout 60s] [-interval 2s] URL...")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	failed := 0
	for _, url := range flag.Args() {
		if err := await(ctx, url, *interval); err != nil {
			fmt.Printf("FAIL %s: %v\n", url, err)
			failed++
			continue
		}
		fmt.Printf("ok   %s\n", url)
	}
	if failed > 0 {
		fmt.Printf("%d of %d addresses did not answer 2xx within %s\n", failed, flag.NArg(), *timeout)
		os.Exit(1)
	}
}

// await asks url until it answers 2xx or ctx ends, returning the last failure.
func await(ctx context.Context, url string, interval time.Duration) error {
	for {
		err := get(ctx, url)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(interval):
		}
	}
}

func get(ctx context.Context, url string) error {
	attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(attempt, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}
