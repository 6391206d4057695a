package slurm

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func fakeJWT(exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc([]byte(fmt.Sprintf(`{"exp":%d,"iat":%d,"sun":"root"}`, exp.Unix(), time.Now().Unix()))) + ".c2ln"
}

// fakeScontrol installs a scontrol that logs its arguments and SLURM_CONF
// and prints the given output.
func fakeScontrol(t *testing.T, output string, exit int) (logFile string) {
	t.Helper()
	dir := t.TempDir()
	logFile = filepath.Join(dir, "calls")
	out := filepath.Join(dir, "out")
	if err := os.WriteFile(out, []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\necho \"$SLURM_CONF|$*\" >> %s\ncat %s\nexit %d\n", logFile, out, exit)
	bin := filepath.Join(dir, "scontrol")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	old := scontrolBin
	scontrolBin = bin
	t.Cleanup(func() { scontrolBin = old })
	return logFile
}

func calls(t *testing.T, logFile string) []string {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestTokenFromScontrolCachesUntilNearExpiry(t *testing.T) {
	t.Setenv("SLURM_CONF", "/etc/test/slurm.conf")
	tok := fakeJWT(time.Now().Add(time.Hour))
	log := fakeScontrol(t, "SLURM_JWT="+tok+"\n", 0)
	get := TokenFromScontrol("ml", 90*time.Minute)
	for range 3 {
		got, err := get(context.Background())
		if err != nil || got != tok {
			t.Fatalf("token = %q, %v", got, err)
		}
	}
	c := calls(t, log)
	// slurmctld's exp (1 h) is earlier than the asked lifespan: it wins, and
	// one scontrol run serves all three calls.
	if len(c) != 1 || c[0] != "/etc/test/slurm.conf|token username=ml lifespan=5400" {
		t.Errorf("scontrol calls = %q", c)
	}
}

func TestTokenFromScontrolRenews(t *testing.T) {
	log := fakeScontrol(t, "SLURM_JWT="+fakeJWT(time.Now().Add(-time.Second))+"\n", 0)
	get := TokenFromScontrol("root", time.Hour)
	for range 2 {
		if _, err := get(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(calls(t, log)); n != 2 {
		t.Errorf("%d scontrol runs for an expired token, want 2", n)
	}
}

func TestTokenFromScontrolErrors(t *testing.T) {
	fakeScontrol(t, "scontrol: error: Unable to create token: Access/permission denied\n", 1)
	_, err := TokenFromScontrol("ml", time.Hour)(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Access/permission denied") {
		t.Errorf("err = %v, want scontrol's message", err)
	}
	fakeScontrol(t, "no token here\n", 0)
	if _, err := TokenFromScontrol("ml", time.Hour)(context.Background()); err == nil {
		t.Error("output without SLURM_JWT= accepted")
	}
}

func TestUpdateNodeScontrolArgs(t *testing.T) {
	t.Setenv("SLURM_CONF", "/c")
	log := fakeScontrol(t, "", 0)
	ctx := context.Background()
	if err := UpdateNodeScontrol(ctx, "a3-7", NodeUpdate{State: "drain", Reason: "GPU XID 79 on 3"}); err != nil {
		t.Fatal(err)
	}
	if err := UpdateNodeScontrol(ctx, "a3-7", NodeUpdate{State: "RESUME"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"/c|update nodename=a3-7 state=drain reason=GPU XID 79 on 3", "/c|update nodename=a3-7 state=resume"}
	if got := calls(t, log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scontrol calls = %q, want %q", got, want)
	}
	if err := UpdateNodeScontrol(ctx, "a3-7 a3-8", NodeUpdate{State: "RESUME"}); err == nil {
		t.Error("node name with a space accepted")
	}
	fakeScontrol(t, "slurm_update error: Invalid node name specified\n", 1)
	err := UpdateNodeScontrol(ctx, "nosuch", NodeUpdate{State: "RESUME"})
	if err == nil || !strings.Contains(err.Error(), "Invalid node name specified") {
		t.Errorf("err = %v, want scontrol's message", err)
	}
}
