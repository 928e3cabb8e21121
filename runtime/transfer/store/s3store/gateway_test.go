package s3store_test

// The tests run against real S3 servers: versitygw (github.com/versity/
// versitygw), started by TestMain on loopback ports over a temporary
// directory, twice: over https, where the SDK sends trailing checksums, and
// over plain http, where it cannot. Without the versitygw binary the tests
// skip, or fail under CI=true (internal/prereq).

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mcpfile/mcpfile/internal/prereq"
	"github.com/mcpfile/mcpfile/runtime/transfer/store/s3store"
)

const (
	accessKey = "mcpfile-test"
	secretKey = "mcpfile-test-secret"
	bucket    = "mcpfile"

	versitygwVersion = "v1.8.0"
	installFix       = "go install github.com/versity/versitygw/cmd/versitygw@" + versitygwVersion +
		" (the tests look in PATH and in $(go env GOPATH)/bin)"
)

// A gateway is a running versitygw with one bucket.
type gateway struct {
	name     string // "https" or "http"
	endpoint string
	caFile   string       // the certificate to trust, "" over http
	http     *http.Client // trusts the certificate
	cmd      *exec.Cmd
	exited   chan error // receives the process's end
}

var (
	// gateways are the running servers; nil when versitygw is missing or
	// failed to start, and then gatewayErr says why.
	gateways   []*gateway
	gatewayErr error
	// versitygwMissing is set when the binary was not found.
	versitygwMissing bool
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	bin := findVersitygw()
	if bin == "" {
		versitygwMissing = true
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "s3store-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"https", "http"} {
		gw, err := startGateway(bin, filepath.Join(dir, name), name == "https")
		if err != nil {
			gatewayErr = fmt.Errorf("starting versitygw (%s): %w", name, err)
			break
		}
		defer gw.stop()
		gateways = append(gateways, gw)
	}
	if gatewayErr != nil {
		gateways = nil
	}
	return m.Run()
}

// findVersitygw returns the path of the versitygw binary, "" if there is
// none in PATH or in $(go env GOPATH)/bin.
func findVersitygw() string {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
		p := filepath.Join(dir, "bin", "versitygw")
		if runtime.GOOS == "windows" {
			p += ".exe"
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// startGateway starts versitygw on a free loopback port over the directory
// root, with the bucket, and waits until it answers.
func startGateway(bin, root string, useTLS bool) (*gateway, error) {
	if err := os.MkdirAll(filepath.Join(root, "data", bucket), 0o700); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	gw := &gateway{name: "http", endpoint: "http://" + port, http: &http.Client{Timeout: time.Minute}}
	args := []string{"--access", accessKey, "--secret", secretKey, "--port", port, "--quiet"}
	if useTLS {
		cert, key, pool, err := selfSignedCert(root)
		if err != nil {
			return nil, err
		}
		gw.name, gw.endpoint, gw.caFile = "https", "https://"+port, cert
		gw.http.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
		args = append(args, "--cert", cert, "--key", key)
	}
	args = append(args, "posix", filepath.Join(root, "data"))
	gw.cmd = exec.Command(bin, args...)
	log, err := os.Create(filepath.Join(root, "versitygw.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	gw.cmd.Stdout, gw.cmd.Stderr = log, log
	if err := gw.cmd.Start(); err != nil {
		return nil, err
	}
	gw.exited = make(chan error, 1)
	go func() { gw.exited <- gw.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := gw.http.Get(gw.endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return gw, nil
		}
		select {
		case err := <-gw.exited:
			b, _ := os.ReadFile(log.Name())
			return nil, fmt.Errorf("exited (%v): %s", err, b)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			gw.stop()
			return nil, fmt.Errorf("no answer on %s after 30s: %v", gw.endpoint, err)
		}
	}
}

// stop ends the gateway's process and waits for it.
func (gw *gateway) stop() {
	gw.cmd.Process.Kill()
	<-gw.exited
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// selfSignedCert writes a certificate for 127.0.0.1 and its key into dir,
// and returns their paths and a pool that trusts the certificate.
func selfSignedCert(dir string) (certFile, keyFile string, pool *x509.CertPool, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "s3store test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return "", "", nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", nil, err
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", nil, err
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool, nil
}

// servers returns the running gateways, and requires versitygw: without
// it the test skips, or fails under CI=true.
func servers(t testing.TB) []*gateway {
	t.Helper()
	prereq.Require(t, !versitygwMissing, "versitygw", installFix)
	if gatewayErr != nil {
		t.Fatal(gatewayErr)
	}
	return gateways
}

// server returns the gateway of the given name ("https" or "http").
func server(t testing.TB, name string) *gateway {
	t.Helper()
	for _, gw := range servers(t) {
		if gw.name == name {
			return gw
		}
	}
	t.Fatalf("no %s gateway", name)
	return nil
}

// client returns an S3 client of gw; record, if not nil, sees each request.
func (gw *gateway) client(record func(*http.Request)) *s3.Client {
	var hc aws.HTTPClient = gw.http
	if record != nil {
		hc = recorder{gw.http, record}
	}
	return s3.New(s3.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		BaseEndpoint: aws.String(gw.endpoint),
		UsePathStyle: true,
		HTTPClient:   hc,
	})
}

type recorder struct {
	c      *http.Client
	record func(*http.Request)
}

func (r recorder) Do(req *http.Request) (*http.Response, error) {
	r.record(req)
	return r.c.Do(req)
}

var prefixes atomic.Int64

// prefix returns a key prefix no other test, or run of a test, uses.
func prefix(t testing.TB) string {
	return fmt.Sprintf("%s-%d/", strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()), prefixes.Add(1))
}

// newStore returns a Store on gw under a prefix of its own, so that it
// starts empty. o.Bucket, o.Prefix and o.Client are set unless given.
func newStore(t testing.TB, gw *gateway, o s3store.Options) *s3store.Store {
	t.Helper()
	if o.Bucket == "" {
		o.Bucket = bucket
	}
	if o.Prefix == "" {
		o.Prefix = prefix(t)
	}
	if o.Client == nil {
		o.Client = gw.client(nil)
	}
	s, err := s3store.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
