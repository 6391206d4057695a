package slurmcheck

import (
	"fmt"
	"os"
	"os/exec"
)

// Programs Validate runs.
var requiredPrograms = []string{"slurmctld", "scontrol", "sinfo", "munged"}

// Available reports why Validate cannot run on this machine, or nil.
func Available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("slurmctld validation needs root (it runs slurmctld with SlurmUser=root)")
	}
	for _, p := range requiredPrograms {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not installed (run scripts/install-deps.sh)", p)
		}
	}
	return nil
}

// Skipper is the part of testing.TB that Require uses.
type Skipper interface {
	Helper()
	Skipf(format string, args ...any)
}

// Require skips the test when Validate cannot run here.
func Require(t Skipper) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
}
