package platform_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rootsChildEnv makes the test binary, run again by TestPublicRootsWithoutSystemBundle,
// check the trust store it was started with instead of starting others:
// the system roots are read once per process, from the environment of that
// moment, so each case needs a process of its own.
const rootsChildEnv = "PLATFORM_ROOTS_CHILD"

// verifyPublicCA checks GTS CA 1C3 (Google's intermediate, issued by GTS
// Root R1, a root of every public bundle) against the process's system
// roots, at a time it was valid.
func verifyPublicCA() error {
	raw, err := os.ReadFile(filepath.Join("testdata", "gts-ca-1c3.pem"))
	if err != nil {
		return err
	}
	block, _ := pem.Decode(raw)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		return err
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err
}

// verifyMountedCA checks that the CA in SSL_CERT_FILE is trusted.
func verifyMountedCA() error {
	raw, err := os.ReadFile(os.Getenv("SSL_CERT_FILE"))
	if err != nil {
		return err
	}
	block, _ := pem.Decode(raw)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		return err
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool})
	return err
}

// The images carry no CA bundle: with no system roots at all (as in the
// image: SSL_CERT_FILE and SSL_CERT_DIR pointing nowhere) a public CA still
// verifies, from the roots compiled into every binary through this package.
// A CA mounted with SSL_CERT_FILE replaces them: the fallback is used only
// when the system has no roots.
func TestPublicRootsWithoutSystemBundle(t *testing.T) {
	switch os.Getenv(rootsChildEnv) {
	case "empty":
		if err := verifyPublicCA(); err != nil {
			fmt.Println("public CA not trusted:", err)
			os.Exit(3)
		}
		return
	case "mounted":
		if err := verifyMountedCA(); err != nil {
			fmt.Println("mounted CA not trusted:", err)
			os.Exit(3)
		}
		if err := verifyPublicCA(); err == nil {
			fmt.Println("the compiled-in roots were used beside a mounted CA")
			os.Exit(3)
		}
		return
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, selfSignedCA(t), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mode, certFile string }{{"empty", "/nonexistent"}, {"mounted", ca}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPublicRootsWithoutSystemBundle$", "-test.count=1")
		cmd.Env = append(os.Environ(), rootsChildEnv+"="+c.mode, "SSL_CERT_FILE="+c.certFile, "SSL_CERT_DIR=/nonexistent")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s trust store: %v\n%s", c.mode, err, strings.TrimSpace(string(out)))
		}
	}
}

func selfSignedCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mounted test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
