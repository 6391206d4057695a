package slurmtest

import "syscall"

// dieWithParent has the kernel kill the daemon when the test process dies, so a crashed test
// leaves no slurmctld behind.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
