package slurmcheck

import "syscall"

// sysProcAttr puts a daemon in a process group of its own and has the
// kernel kill it if the validating process dies first (a test binary killed
// on timeout would otherwise leave slurmctld and munged running).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
