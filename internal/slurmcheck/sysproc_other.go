//go:build !linux

package slurmcheck

import "syscall"

// sysProcAttr puts a daemon in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
