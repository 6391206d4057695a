//go:build linux

package vmruntime

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime/runtimetest"
)

// fakeMetadata is the smallest metadata server a guest-attribute write needs.
type fakeMetadata struct {
	mu    sync.Mutex
	attrs map[string]string
	addr  string
}

func startMetadata(t *testing.T, instance string) *fakeMetadata {
	t.Helper()
	// The recommended setup: any root-namespace address (loopback here); the
	// runtime makes it 169.254.169.254:80 inside the host.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &fakeMetadata{attrs: map[string]string{}, addr: l.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("/computeMetadata/v1/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Metadata-Flavor") != "Google" {
			http.Error(w, "missing Metadata-Flavor", http.StatusForbidden)
			return
		}
		w.Header().Set("Metadata-Flavor", "Google")
		path := strings.TrimPrefix(r.URL.Path, "/computeMetadata/v1/")
		switch {
		case path == "instance/name":
			io.WriteString(w, instance)
		case strings.HasPrefix(path, "instance/guest-attributes/") && r.Method == http.MethodPut:
			body, _ := io.ReadAll(r.Body)
			m.mu.Lock()
			m.attrs[strings.TrimPrefix(path, "instance/guest-attributes/")] = string(body)
			m.mu.Unlock()
		default:
			http.NotFound(w, r)
		}
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return m
}

func (m *fakeMetadata) attr(key string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.attrs[key]
}

// Each host mounts the "Filestore" share on /home with mount -t nfs, writes
// into it, reports through the metadata server, and the two talk over TCP.
func TestTwoHostsShareHomeMetadataAndNetwork(t *testing.T) {
	share := filepath.Join(t.TempDir(), "share")
	lustre := filepath.Join(t.TempDir(), "lustre")
	for _, d := range []string{share, lustre} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// The emulator's API, listening on loopback like any test server.
	api := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "compute api saw "+r.URL.Path)
	})}
	apiL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go api.Serve(apiL)
	t.Cleanup(func() { api.Close() })
	r := newTestRuntime(t, Config{EmulatorURL: "http://" + apiL.Addr().String(), ResolveStorage: func(fstype, source string) (string, error) {
		switch {
		case fstype == "nfs" && source == "10.6.0.100:/share":
			return share, nil
		case fstype == "lustre" && source == "10.6.0.101@tcp:/lfs":
			return lustre, nil
		}
		return "", fmt.Errorf("no %s instance serves %s", fstype, source)
	}})

	script := `set -e
mount -t nfs 10.6.0.100:/share /home
hostname > /home/from-$(hostname)
touch /home/marker-$(hostname)
curl -sSf -X PUT -H 'Metadata-Flavor: Google' --data "booted-$(hostname)" \
  "http://$GCE_METADATA_HOST/computeMetadata/v1/instance/guest-attributes/hypercompute/boot"
echo "name from metadata.google.internal: $(curl -sSf -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/instance/name)"
`
	md := map[string]*fakeMetadata{"h1": startMetadata(t, "h1"), "h2": startMetadata(t, "h2")}
	for i, name := range []string{"h1", "h2"} {
		bootOK(t, r, HostSpec{Name: name, Project: "proj", Zone: "us-central1-a", Network: "vpc-a",
			IP: fmt.Sprintf("10.6.0.%d", i+2), PrefixLen: 24, StartupScript: script, MetadataAddr: md[name].addr})
	}
	for _, name := range []string{"h1", "h2"} {
		if code := waitStartup(t, r, name); code != 0 {
			serial, _, _ := r.SerialOutput(name, 0)
			t.Fatalf("%s startup exit %d; serial:\n%s", name, code, serial)
		}
		if got := md[name].attr("hypercompute/boot"); got != "booted-"+name {
			t.Errorf("guest attribute from %s = %q, want %q", name, got, "booted-"+name)
		}
		serial, _, _ := r.SerialOutput(name, 0)
		if !strings.Contains(serial, "startup-script: name from metadata.google.internal: "+name) {
			t.Errorf("%s could not reach metadata.google.internal; serial:\n%s", name, serial)
		}
	}

	// Each host sees the other's files; the machine's /home is untouched.
	if got := execOK(t, r, "h1", "cat", "/home/from-h2"); got != "h2\n" {
		t.Errorf("h1 reads h2's file: %q", got)
	}
	execOK(t, r, "h2", "test", "-f", "/home/marker-h1")
	if _, err := os.Stat(filepath.Join(share, "marker-h2")); err != nil {
		t.Errorf("backing dir lacks the marker: %v", err)
	}
	if _, err := os.Stat("/home/from-h1"); err == nil {
		t.Errorf("the machine's /home got a host's file")
	}
	if got := execOK(t, r, "h1", "bash", "-c", `curl -sSf http://$HYPERCOMPUTE_EMULATOR_HOST/compute/v1/projects`); got != "compute api saw /compute/v1/projects" {
		t.Errorf("emulator API from inside a host: %q", got)
	}
	if got := execOK(t, r, "h2", "cat", "/etc/environment"); !strings.Contains(got, `GCE_METADATA_HOST="169.254.169.254"`) {
		t.Errorf("/etc/environment:\n%s", got)
	}
	if got := execOK(t, r, "h1", "hostname"); got != "h1\n" {
		t.Errorf("hostname = %q", got)
	}
	if got := execOK(t, r, "h2", "getent", "hosts", "h1"); !strings.Contains(got, "10.6.0.2") || !strings.Contains(got, "h1.us-central1-a.c.proj.internal") {
		t.Errorf("h2 resolves h1 as %q", got)
	}

	// /etc/hosts follows hosts as they come and go.
	bootOK(t, r, HostSpec{Name: "h3", Network: "vpc-a", IP: "10.6.0.4"})
	if got := execOK(t, r, "h1", "getent", "hosts", "h3"); !strings.Contains(got, "10.6.0.4") {
		t.Errorf("h1 resolves new host h3 as %q", got)
	}
	if err := r.Delete("h3"); err != nil {
		t.Fatal(err)
	}
	if got := execOK(t, r, "h1", "cat", "/etc/hosts"); strings.Contains(got, "h3") {
		t.Errorf("h1 still lists deleted h3:\n%s", got)
	}

	runtimetest.TCPRoundTrip(t, r, "h1", "h2", "10.6.0.3")
	runtimetest.TCPRoundTrip(t, r, "h2", "h1", "h1")

	// Lustre goes through its helper too; an unknown share fails clearly.
	execOK(t, r, "h1", "bash", "-c", "mkdir -p /tmp/lustre && mount -t lustre 10.6.0.101@tcp:/lfs /tmp/lustre && echo ck > /tmp/lustre/ckpt")
	if b, err := os.ReadFile(filepath.Join(lustre, "ckpt")); err != nil || string(b) != "ck\n" {
		t.Errorf("lustre backing dir: %q %v", b, err)
	}
	// ro is honoured; the machine's tree the helpers bind from is read-only.
	execOK(t, r, "h2", "bash", "-c", `mkdir -p /tmp/ro && mount -t nfs -o ro,vers=3 10.6.0.100:/share /tmp/ro &&
		test -f /tmp/ro/marker-h1 && ! touch /tmp/ro/nope 2>/dev/null && ! touch /run/hypercompute/rootfs/tmp/probe 2>/dev/null`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, stderr, err := r.Exec(ctx, "h1", "bash", "-c", "mkdir -p /tmp/x && mount -t nfs 10.6.0.99:/nope /tmp/x")
	if err == nil || !strings.Contains(string(stderr), "no nfs instance serves 10.6.0.99:/nope") {
		t.Errorf("mount of an unknown share: err=%v stderr=%q", err, stderr)
	}
	// The mounts live in the host only.
	mounts, _ := os.ReadFile("/proc/mounts")
	if strings.Contains(string(mounts), share) || strings.Contains(string(mounts), lustre) {
		t.Errorf("storage mount leaked into the machine's namespace")
	}
}
