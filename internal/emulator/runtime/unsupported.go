//go:build !linux

package vmruntime

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
)

// Runtime needs Linux namespaces; elsewhere New reports ErrUnavailable and
// no Runtime exists, so these methods are never reached.
type Runtime struct{}

func unavailable() error {
	return fmt.Errorf("%w: needs Linux (this is %s)", ErrUnavailable, runtime.GOOS)
}

func Available() error                                { return unavailable() }
func New(Config) (*Runtime, error)                    { return nil, unavailable() }
func CleanupStale(string) error                       { return nil }
func (*Runtime) Boot(context.Context, HostSpec) error { return unavailable() }
func (*Runtime) Reset(string) error                   { return unavailable() }
func (*Runtime) Stop(string) error                    { return unavailable() }
func (*Runtime) Start(string) error                   { return unavailable() }
func (*Runtime) Delete(string) error                  { return unavailable() }
func (*Runtime) Close() error                         { return nil }
func (*Runtime) Hosts() []string                      { return nil }
func (*Runtime) Pids(string) ([]int, error)           { return nil, unavailable() }
func (*Runtime) InstallSbinFiles(context.Context, string, map[string][]byte) error {
	return unavailable()
}
func (*Runtime) Command(string, ...string) (*exec.Cmd, error) { return nil, unavailable() }
func (*Runtime) Exec(context.Context, string, ...string) ([]byte, []byte, error) {
	return nil, nil, unavailable()
}
func (*Runtime) WaitStartup(context.Context, string) (int, error) { return 0, unavailable() }
func (*Runtime) SerialOutput(string, int64) (string, int64, error) {
	return "", 0, unavailable()
}
