package blueprints_test

import (
	"archive/zip"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mirrorPath is where Terraform's provider network mirror protocol looks for this provider under
// a mirror's base URL: <hostname>/<namespace>/<type>/.
const mirrorPath = "/registry.terraform.io/hypercompute/hypercompute/"

// tamperedBase is a second base URL of the same mirror whose index and hashes are the release's
// but whose zip is not the one SHA256SUMS names.
const tamperedBase = "/tampered/"

// mirror serves a release's provider zips by Terraform's provider network mirror protocol
// (index.json, <version>.json with the zh: hashes of SHA256SUMS, the zips beside them) over HTTPS,
// which the protocol requires; CAFile is the PEM of its self-signed certificate for terraform to
// trust (SSL_CERT_FILE).
type mirror struct {
	URL    string
	CAFile string
}

func serveMirror(t *testing.T, rel *releaseBuild) *mirror {
	t.Helper()
	tampered := tamperZip(t, filepath.Join(rel.dist, rel.zipName()))
	version := map[string]any{"archives": map[string]any{rel.platform: map[string]any{
		"url":    rel.zipName(),
		"hashes": []string{"zh:" + rel.sums[rel.zipName()]},
	}}}
	index := map[string]any{"versions": map[string]any{rel.version: map[string]any{}}}
	mux := http.NewServeMux()
	for _, base := range []string{"/", tamperedBase} {
		dir := strings.TrimSuffix(base, "/") + mirrorPath
		mux.HandleFunc("GET "+dir+"index.json", jsonHandler(index))
		mux.HandleFunc("GET "+dir+rel.version+".json", jsonHandler(version))
	}
	mux.HandleFunc("GET "+mirrorPath+rel.zipName(), func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(rel.dist, rel.zipName()))
	})
	mux.HandleFunc("GET "+strings.TrimSuffix(tamperedBase, "/")+mirrorPath+rel.zipName(), func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, tampered)
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "mirror-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &mirror{URL: srv.URL + "/", CAFile: ca}
}

func jsonHandler(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
}

// tamperZip writes a copy of the provider zip with one more file in it: a well-formed package
// whose digest is not the release's, as a compromised mirror or a corrupted cache would serve.
func tamperZip(t *testing.T, src string) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = zr.Close() }()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		if err := zw.Copy(e); err != nil {
			t.Fatal(err)
		}
	}
	w, err := zw.Create("injected.sh")
	if err == nil {
		_, err = w.Write([]byte("#!/bin/sh\necho not from the release\n"))
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
