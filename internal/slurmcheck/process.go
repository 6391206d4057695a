package slurmcheck

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// lockedBuffer collects a process's output while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// daemon is a process started in a process group of its own, so stopping
// it also stops what it forked (slurmctld's slurmscriptd).
type daemon struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
}

func startDaemon(env []string, name string, args ...string) (*daemon, error) {
	cmd := exec.Command(name, args...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	d := &daemon{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(d.done)
	}()
	return d, nil
}

func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// stop ends the process group: SIGTERM, then SIGKILL after grace (at
// once when grace is 0: a sandbox's state is thrown away anyway, and
// slurmctld spends a second shutting down cleanly).
func (d *daemon) stop(grace time.Duration) {
	if d.exited() {
		return
	}
	pgid := d.cmd.Process.Pid
	sig := syscall.SIGTERM
	if grace == 0 {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pgid, sig)
	select {
	case <-d.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-d.done
	}
	// Children that outlived their leader (none expected) go too.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// startMunge runs a private munged in the foreground on the sandbox's
// socket with a fresh key, and waits until the socket exists.
func startMunge(sb sandbox) (*daemon, error) {
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	keyFile := sb.path("munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		return nil, err
	}
	d, err := startDaemon(os.Environ(), "munged", "--foreground",
		"--key-file="+keyFile, "--socket="+sb.mungeSocket,
		"--pid-file="+sb.path("run", "munged.pid"),
		"--log-file="+sb.path("log", "munged.log"),
		"--seed-file="+sb.path("munge", "munged.seed"))
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		if _, err := os.Stat(sb.mungeSocket); err == nil {
			return d, nil
		}
		if d.exited() || time.Now().After(deadline) {
			d.stop(time.Second)
			return nil, fmt.Errorf("munged did not start: %s", strings.TrimSpace(d.out.String()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// newSandbox creates the validation directory tree. Directories are
// world-searchable because munged refuses a socket directory others cannot
// reach; the key directory stays private.
func newSandbox(parent string) (sandbox, error) {
	dir, err := os.MkdirTemp(parent, "slurmtest-")
	if err != nil {
		return sandbox{}, err
	}
	sb := sandbox{dir: dir}
	if err := os.Chmod(dir, 0o755); err != nil {
		return sb, err
	}
	for _, d := range []string{"etc", "run", "log", "state", "spool"} {
		if err := os.Mkdir(sb.path(d), 0o755); err != nil {
			return sb, err
		}
	}
	if err := os.Mkdir(sb.path("munge"), 0o700); err != nil {
		return sb, err
	}
	sb.confPath = sb.path("etc", "slurm.conf")
	sb.mungeSocket = sb.path("run", "munge.sock")
	sb.jwtKey = sb.path("etc", "jwt_hs256.key")
	sb.stub = sb.path("etc", "program-stub")
	jwt := make([]byte, 32)
	if _, err := rand.Read(jwt); err != nil {
		return sb, err
	}
	if err := os.WriteFile(sb.jwtKey, jwt, 0o600); err != nil {
		return sb, err
	}
	if err := os.WriteFile(sb.stub, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		return sb, err
	}
	ports, err := FreePorts(2)
	if err != nil {
		return sb, err
	}
	sb.slurmctldPort, sb.slurmdPort = ports[0], ports[1]
	host, err := os.Hostname()
	if err != nil {
		return sb, err
	}
	// slurmctld compares SlurmctldHost with the short host name.
	sb.hostname, _, _ = strings.Cut(host, ".")
	return sb, nil
}

// FreePorts asks the kernel for n distinct unused TCP ports on 127.0.0.1 (slurmctld and
// slurmd of a sandbox, or of a test cluster).
func FreePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func writeFiles(sb sandbox, files map[string][]byte) error {
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(sb.dir, "etc", name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
