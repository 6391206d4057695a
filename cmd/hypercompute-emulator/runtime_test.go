package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
)

// startRun runs the command with args until the test cancels it; it returns the listen address, the log and
// the channel run's result arrives on.
func startRun(t *testing.T, args ...string) (addr string, log *syncBuffer, cancel func(), done chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	log = &syncBuffer{}
	done = make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--listen", "127.0.0.1:0", "--op-latency", "0s"}, args...), pw, log)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listen line: %v (log %s)", err, log.String())
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(strings.TrimPrefix(line, "hypercompute-emulator listening on ")), log, cancel, done
}

func waitRun(t *testing.T, done chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not stop after cancel")
	}
}

func TestRuntimeNoneSaysVMsDoNotBoot(t *testing.T) {
	_, log, cancel, done := startRun(t)
	cancel()
	waitRun(t, done)
	if !strings.Contains(log.String(), "runtime none: serving the APIs only") {
		t.Errorf("log does not say VMs will not boot:\n%s", log.String())
	}
}

var prefixRE = regexp.MustCompile(`prefix=(hc[a-z0-9]+) stateDir=(\S+)`)

// --runtime=local boots a VM created through the Compute API and tears it down at exit; where the runtime
// cannot run, the emulator serves the APIs and says why.
func TestRuntimeLocal(t *testing.T) {
	addr, log, cancel, done := startRun(t, "--runtime", "local")
	if reason := emulator.LocalRuntimeAvailable(); reason != nil {
		cancel()
		waitRun(t, done)
		if !strings.Contains(log.String(), "local runtime unavailable: serving the APIs only") || !strings.Contains(log.String(), reason.Error()) {
			t.Errorf("log does not say why the runtime is off (%v):\n%s", reason, log.String())
		}
		return
	}
	m := prefixRE.FindStringSubmatch(log.String())
	if m == nil {
		t.Fatalf("log does not name the runtime's prefix:\n%s", log.String())
	}
	prefix, stateDir := m[1], m[2]
	base := "http://" + addr + "/compute/v1/projects/p"
	post(t, base+"/global/networks", `{"name":"vpc","autoCreateSubnetworks":false}`)
	post(t, base+"/regions/us-central1/subnetworks", `{"name":"sub","network":"global/networks/vpc","ipCidrRange":"10.9.0.0/24"}`)
	post(t, base+"/zones/us-central1-a/instances", `{"name":"vm","machineType":"zones/us-central1-a/machineTypes/e2-standard-2",
		"disks":[{"boot":true,"autoDelete":true,"initializeParams":{"sourceImage":"projects/debian-cloud/global/images/family/debian-12"}}],
		"networkInterfaces":[{"subnetwork":"regions/us-central1/subnetworks/sub"}],
		"metadata":{"items":[{"key":"startup-script","value":"echo hello from $(hostname) at $(curl -s -H Metadata-Flavor:Google http://metadata.google.internal/computeMetadata/v1/instance/network-interfaces/0/ip)"}]}}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var out struct{ Contents string }
		resp, err := http.Get(base + "/zones/us-central1-a/instances/vm/serialPort")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
		}
		if strings.Contains(out.Contents, "startup-script: hello from vm at 10.9.0.2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the VM's startup script never ran; serial:\n%s\nlog:\n%s", out.Contents, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); !bytes.Contains(out, []byte(prefix+"-h")) {
		t.Fatalf("no netns of prefix %s while the VM runs:\n%s", prefix, out)
	}

	cancel() // what SIGINT/SIGTERM do
	waitRun(t, done)
	for _, args := range [][]string{{"netns", "list"}, {"-o", "link", "show"}} {
		if out, _ := exec.Command("ip", args...).Output(); bytes.Contains(out, []byte(prefix+"-")) {
			t.Errorf("after exit, ip %s lists %s-*:\n%s", strings.Join(args, " "), prefix, out)
		}
	}
	if _, err := os.Stat(stateDir); err == nil {
		t.Errorf("after exit, the state dir %s remains", stateDir)
	}
}

func post(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var op struct {
		Status string
		Error  any
	}
	raw, _ := io.ReadAll(resp.Body)
	json.Unmarshal(raw, &op)
	if resp.StatusCode != 200 || op.Error != nil {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, raw)
	}
}

// syncBuffer is the log, written by the emulator while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
