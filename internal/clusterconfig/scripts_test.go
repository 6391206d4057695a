package clusterconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The runner runs the scripts in list order, each with its own interpreter (a script that contains the
// obvious here-document marker too), and stops at the first failure with its exit code.
func TestScriptRunnerRunsInOrderAndStopsAtFailure(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	scripts := []string{
		"#!/bin/sh\necho first >> " + out + "\n",
		"#!/bin/bash\ncat >> " + out + " <<'EOF'\nsecond\nEOF\n",
		"#!/usr/bin/env bash\necho third >> " + out + "\nexit 7",
		"#!/bin/sh\necho never >> " + out + "\n",
	}
	runner := filepath.Join(dir, "50-cluster-prolog.sh")
	if err := os.WriteFile(runner, ScriptRunner("prolog", scripts), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(runner)
	msg, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !asExit(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("runner exit: %v (%s), want exit code 7", err, msg)
	}
	if !strings.Contains(string(msg), "slurm.prolog_scripts[2] failed with exit code 7") {
		t.Errorf("the runner's message does not name the failing script: %q", msg)
	}
	got, _ := os.ReadFile(out)
	if string(got) != "first\nsecond\nthird\n" {
		t.Errorf("scripts ran as %q, want first, second, third and not the fourth", got)
	}
	// Without a failure it exits 0.
	if err := os.WriteFile(runner, ScriptRunner("epilog", scripts[:2]), 0o755); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(runner).CombinedOutput(); err != nil {
		t.Fatalf("runner of good scripts: %v %s", err, msg)
	}
}

func asExit(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// Lists are checked: not with the single script, interpreter lines, size; slurm.conf names the prolog glob.
func TestScriptListsValidatedAndRendered(t *testing.T) {
	cases := []struct {
		s    SlurmSettings
		want string
	}{
		{SlurmSettings{Prolog: "#!/bin/sh\n", PrologScripts: []string{"#!/bin/sh\n"}}, "prolog_scripts: set either prolog"},
		{SlurmSettings{EpilogScripts: []string{"#!/bin/sh\n", "echo no interpreter"}}, "epilog_scripts[1]: the script must start with an interpreter line"},
		{SlurmSettings{PrologScripts: make([]string, MaxScripts+1)}, "prolog_scripts: 17 scripts, at most 16"},
	}
	for _, c := range cases {
		if err := validateScriptLists(c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	c := Cluster{Slurm: SlurmSettings{EpilogScripts: []string{"#!/bin/sh\ntrue\n"}}}
	files := Scripts(c)
	l := c.withDefaults().Layout
	if _, ok := files[filepath.Join(l.EpilogDir, ClusterEpilogScript)]; !ok {
		t.Fatalf("no epilog runner among %v", files)
	}
}
