package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, &errb); err != nil || out.String() != version+"\n" {
		t.Errorf("version: %q %v", out.String(), err)
	}
	for _, args := range [][]string{nil, {"bogus"}, {"resume"}, {"suspend", "a", "b"}, {"run", "extra"}, {"healthcheck"}, {"goodput"}, {"goodput", "7d"}, {"goodput", "--since"}, {"nccl-pairs"}, {"nccl-pairs", "a", "b"},
		{"report"}, {"report", "--out", "x.html"}, {"report", "--since"}, {"report", "--since", "7d", "--out"}, {"report", "--since", "7d", "--html", "x"}, {"report", "--since", "7y"}} {
		var ue usageError
		if err := run(context.Background(), args, &out, &errb); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	out.Reset()
	// A window sacct would not understand is refused before sacct runs.
	if err := run(context.Background(), []string{"goodput", "--since", "7y"}, &out, &errb); err == nil || !strings.Contains(err.Error(), `window "7y"`) {
		t.Errorf("goodput --since 7y: %v", err)
	}
	if err := run(context.Background(), []string{"help"}, &out, &errb); err != nil || !strings.Contains(out.String(), "resume-fail <nodelist>") {
		t.Errorf("help: %v %q", err, out.String())
	}
}

func TestEnvironmentFileFillsOnlyMissingLocations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "environment")
	os.WriteFile(path, []byte("GCE_METADATA_HOST=\"169.254.169.254\"\nHYPERCOMPUTE_EMULATOR_HOST='169.254.169.253:80'\nPATH=/nope\n"), 0o644)
	t.Setenv("GCE_METADATA_HOST", "")
	t.Setenv("HYPERCOMPUTE_EMULATOR_HOST", "10.0.0.1:1")
	path0 := os.Getenv("PATH")
	loadEnvironmentFile(path)
	if got := os.Getenv("GCE_METADATA_HOST"); got != "169.254.169.254" {
		t.Errorf("GCE_METADATA_HOST = %q", got)
	}
	if got := os.Getenv("HYPERCOMPUTE_EMULATOR_HOST"); got != "10.0.0.1:1" {
		t.Errorf("a set variable was overwritten: %q", got)
	}
	if os.Getenv("PATH") != path0 {
		t.Error("PATH was taken from the file")
	}
}

// A report that cannot be made (no sacct here) fails and writes no file.
func TestReportFailsWithoutAFile(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "report.html")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"report", "--out", out, "--since", "7d"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "sacct") {
		t.Errorf("report without sacct: %v, want an error naming sacct", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("a failed report left %v behind", entries)
	}
}
