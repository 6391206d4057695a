package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// MungeKeySize is the size of a generated munge key (munge's own
// mungekey writes 1024 bytes by default).
const MungeKeySize = 1024

// Where munged looks for its key and keeps its state (munge's defaults).
const (
	mungeKeyPath = "/etc/munge/munge.key"
	mungeUser    = "munge"
)

var mungeDirs = []struct {
	path string
	mode os.FileMode
}{
	{"/etc/munge", 0o700},
	{"/var/lib/munge", 0o700},
	{"/var/log/munge", 0o700},
	{"/run/munge", 0o755},
}

var mungedDaemon = daemon{Name: "munge", Argv: []string{"/usr/sbin/munged", "--foreground"}, User: mungeUser}

// ensureSharedMungeKey makes the cluster's munge key exist at shared (on
// /home, mode 0400 in a 0700 root directory) and returns it. The first
// controller boot generates it; later boots, and a replaced controller,
// reuse it so running nodes keep authenticating.
func ensureSharedMungeKey(shared string) ([]byte, error) {
	if key, err := readMungeKey(shared); err == nil {
		return key, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := ensureDir(filepath.Dir(filepath.Dir(shared)), 0o755, rootAccount); err != nil {
		return nil, err
	}
	if err := ensureDir(filepath.Dir(shared), 0o700, rootAccount); err != nil {
		return nil, err
	}
	key := make([]byte, MungeKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generating the munge key: %w", err)
	}
	if _, err := writeFile(shared, key, 0o400, rootAccount); err != nil {
		return nil, fmt.Errorf("sharing the munge key: %w", err)
	}
	return key, nil
}

// readMungeKey reads a shared key and checks it is one.
func readMungeKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("the munge key at %s is %d bytes long; munge needs at least 32", path, len(key))
	}
	return key, nil
}

// waitSharedMungeKey waits for the controller to publish the key.
func waitSharedMungeKey(ctx context.Context, path, controller string, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		key, err := readMungeKey(path)
		if err == nil {
			return key, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the cluster's munge key did not appear at %s within %s; the controller %s creates it on /home when it boots: check the controller's phase and error", path, timeout, controller)
		}
		if err := sleepCtx(ctx, time.Second); err != nil {
			return nil, err
		}
	}
}

// startMunge installs key for munged and makes munged run with it,
// restarting it when the key changed, then proves a credential round trip.
func startMunge(ctx context.Context, sup supervisor, key []byte) error {
	if _, err := exec.LookPath("munged"); err != nil {
		return errors.New("munged is not installed on this VM's image; install the munge package")
	}
	acct, err := lookupAccount(mungeUser, "munge")
	if err != nil {
		return err
	}
	for _, d := range mungeDirs {
		if err := ensureDir(d.path, d.mode, acct); err != nil {
			return err
		}
	}
	changed, err := writeFile(mungeKeyPath, key, 0o400, acct)
	if err != nil {
		return err
	}
	if changed {
		err = sup.restart(ctx, mungedDaemon)
	} else {
		err = sup.start(ctx, mungedDaemon)
	}
	if err != nil {
		return fmt.Errorf("starting munged: %w", err)
	}
	return checkMunge(ctx, sup, 20*time.Second)
}

// checkMunge encodes and decodes a credential, as Slurm will.
func checkMunge(ctx context.Context, sup supervisor, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := mungeRoundTrip(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("munged does not answer: %v; %s", err, sup.describe(mungedDaemon))
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func mungeRoundTrip(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var cred, errb bytes.Buffer
	enc := exec.CommandContext(ctx, "munge", "-n")
	enc.Stdout, enc.Stderr = &cred, &errb
	if err := enc.Run(); err != nil {
		return fmt.Errorf("munge -n: %v: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	errb.Reset()
	dec := exec.CommandContext(ctx, "unmunge")
	dec.Stdin, dec.Stderr = &cred, &errb
	if err := dec.Run(); err != nil {
		return fmt.Errorf("unmunge: %v: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	return nil
}
