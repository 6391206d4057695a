package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunServesAndSavesStateOnShutdown(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", "127.0.0.1:0", "--state-file", state, "--log-level", "debug", "--seed", "5", "--op-latency", "0s"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listen line: %v (stderr %s)", err, stderr.String())
	}
	const prefix = "hypercompute-emulator listening on "
	if !strings.HasPrefix(line, prefix) {
		t.Fatalf("first line = %q", line)
	}
	go io.Copy(io.Discard, pr)
	addr := strings.TrimSpace(strings.TrimPrefix(line, prefix))

	body := strings.NewReader(`{"name":"net","autoCreateSubnetworks":false}`)
	resp, err := http.Post("http://"+addr+"/compute/v1/projects/p/global/networks", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("insert answered %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop after cancel")
	}
	b, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(b), "projects/p/global/networks/net") {
		t.Errorf("state file after shutdown: %v %.200s", err, b)
	}
	if !strings.Contains(stderr.String(), "path=/compute/v1/projects/p/global/networks") {
		t.Errorf("debug log has no request line:\n%s", stderr.String())
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--runtime", "cloud"}, {"--log-level", "loud"}, {"stray"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%v) accepted", args)
		}
	}
}
