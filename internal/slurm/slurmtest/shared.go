package slurmtest

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// Shared is one test cluster for every test of a test binary: started by the first Get, stopped
// by Main. A package's tests declare one and call Main from TestMain:
//
//	var testSlurm = &slurmtest.Shared{Options: func() slurmtest.Options { ... }}
//	func TestMain(m *testing.M) { os.Exit(testSlurm.Main(m)) }
type Shared struct {
	// Options is called once, by the first Get.
	Options func() Options

	once sync.Once
	c    *Cluster
	skip string
	err  error
}

// Get returns the running cluster, starting it on first use, or skips the test with the reason
// the cluster cannot run here (-short, no root, a Slurm package missing).
func (s *Shared) Get(t testing.TB) *Cluster {
	t.Helper()
	s.once.Do(func() {
		if testing.Short() {
			s.skip = "-short: no Slurm daemons"
			return
		}
		o := s.Options()
		if s.skip = Unavailable(o); s.skip != "" {
			return
		}
		start := time.Now()
		s.c, s.err = Start(o)
		if s.err == nil {
			fmt.Fprintf(os.Stderr, "test Slurm up in %s (%s)\n", time.Since(start).Round(time.Millisecond), s.c.Dir)
		}
	})
	if s.skip != "" {
		t.Skip("skipping: " + s.skip)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.c
}

// Main runs the tests and stops the cluster if one started; a failed stop fails the run.
func (s *Shared) Main(m *testing.M) int {
	code := m.Run()
	if s.c != nil {
		if err := s.c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}
