//go:build !linux

package slurmtest

import "syscall"

// dieWithParent has no kernel support outside Linux; the test's cleanup stops the daemons.
func dieWithParent(*syscall.SysProcAttr) {}
