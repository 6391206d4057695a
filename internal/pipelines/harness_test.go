package pipelines_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// agentVar is the blueprints' agent variable: on the API-only local cloud no VM boots, so the
// build is never fetched (the fake agent reports in its place), but a plan needs one named.
const agentVar = `{url="file:///opt/hypercompute/hypercompute-agent",sha256="0000000000000000000000000000000000000000000000000000000000000000"}`

// checkout copies what the pipeline reads (pipelines/, tools/, modules/ and examples/blueprints/)
// into a temporary tree of the repository's layout, so the script finds everything relative to
// itself, as in a CI clone, and nothing the runs write lands in the checkout.
func checkout(tb testing.TB) string {
	tb.Helper()
	root, tree := acctest.RepoRoot(tb), tb.TempDir()
	for _, dir := range []string{"pipelines", "tools", "modules", filepath.Join("examples", "blueprints")} {
		acctest.CopyTree(tb, filepath.Join(root, dir), filepath.Join(tree, dir))
	}
	return tree
}

// cli runs commands as a CI runner would against the local cloud emu: a clean environment (PATH,
// HOME, no Terraform CLI configuration of the machine's, HYPERCOMPUTE_EMULATOR_HOST) plus env, with
// the provider under test served in-process for each command (TF_REATTACH_PROVIDERS).
type cli struct {
	tb  testing.TB
	env []string
}

func newCLI(tb testing.TB, emu *emulatortest.Env, env ...string) *cli {
	tb.Helper()
	if _, err := exec.LookPath("terraform"); err != nil {
		tb.Fatal("terraform is not on PATH; install Terraform >= 1.9")
	}
	// The provider runs in this process, so it reads the emulator's address from here.
	emu.Setenv()
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + tb.TempDir(),
		"TF_CLI_CONFIG_FILE=", "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "HYPERCOMPUTE_EMULATOR_HOST=" + emu.Host}
	return &cli{tb: tb, env: append(base, env...)}
}

// proc is a command running in the background.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	rc   int
	stop func()
}

// start starts name args in dir; wait ends it.
func (c *cli) start(dir string, env []string, name string, args ...string) *proc {
	c.tb.Helper()
	reattach, stop := acctest.ServeProvider(c.tb)
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(append([]string{}, c.env...), env...), "TF_REATTACH_PROVIDERS="+reattach)
	// Its own process group: a test that kills the command kills what it started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{}), stop: stop}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		stop()
		c.tb.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		err := cmd.Wait()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			p.rc = exit.ExitCode()
		case err != nil:
			p.rc = -1
		}
		close(p.done)
	}()
	c.tb.Cleanup(func() { p.kill(); p.wait() })
	return p
}

// wait waits for the command (at most commandTimeout) and returns its output and exit status.
func (p *proc) wait() (string, int) {
	select {
	case <-p.done:
	case <-time.After(commandTimeout):
		p.kill()
		<-p.done
		p.rc = -1
	}
	p.stop()
	return p.out.String(), p.rc
}

// kill kills the command's process group at once, as a runner that dies would leave it.
func (p *proc) kill() {
	select {
	case <-p.done:
	default:
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// commandTimeout bounds one command: the longest is an apply of ml-dev.
const commandTimeout = 5 * time.Minute

// run runs name args in dir to the end and returns its output and exit status.
func (c *cli) run(dir string, env []string, name string, args ...string) (string, int) {
	c.tb.Helper()
	return c.start(dir, env, name, args...).wait()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// lockInfo is the lock object the gcs backend writes next to the state (<prefix>/default.tflock).
// Its lock ID, the one Terraform prints and force-unlock takes, is the object's generation.
type lockInfo struct {
	ID, Operation, Who, Version, Created, Path string
}

// generation is the generation of an object of the state bucket.
func generation(tb testing.TB, env *emulatortest.Env, name string) string {
	tb.Helper()
	resp, err := http.Get(env.URL + "/storage/v1/b/" + acctest.StateBucket + "/o/" + url.PathEscape(name))
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var o struct{ Generation string }
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil || o.Generation == "" {
		tb.Fatalf("reading the generation of gs://%s/%s: %s %v", acctest.StateBucket, name, resp.Status, err)
	}
	return o.Generation
}

// object reads an object of the state bucket: ok false when it does not exist.
func object(tb testing.TB, env *emulatortest.Env, name string) (data []byte, ok bool) {
	tb.Helper()
	resp, err := http.Get(env.URL + "/storage/v1/b/" + acctest.StateBucket + "/o/" + url.PathEscape(name) + "?alt=media")
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ = io.ReadAll(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
		return data, true
	case http.StatusNotFound:
		return nil, false
	}
	tb.Fatalf("reading gs://%s/%s: %s %s", acctest.StateBucket, name, resp.Status, data)
	return nil, false
}

// waitLock waits until the state lock of prefix is held and returns what its holder wrote; p is
// the command expected to take it, whose output a failure shows.
func waitLock(tb testing.TB, env *emulatortest.Env, prefix string, p *proc) lockInfo {
	tb.Helper()
	deadline := time.Now().Add(commandTimeout)
	for time.Now().Before(deadline) {
		if data, ok := object(tb, env, prefix+"/default.tflock"); ok {
			var l lockInfo
			if err := json.Unmarshal(data, &l); err != nil || l.Who == "" {
				tb.Fatalf("the lock object holds no lock info: %v: %s", err, data)
			}
			l.ID = generation(tb, env, prefix+"/default.tflock")
			return l
		}
		select {
		case <-p.done:
			out, rc := p.wait()
			tb.Fatalf("the command that should hold the lock ended first (exit %d):\n%s", rc, out)
		case <-time.After(100 * time.Millisecond):
		}
	}
	tb.Fatalf("the state lock of %s was not taken", prefix)
	return lockInfo{}
}

// requireRefusedByLock fails unless out is Terraform refusing to run because l holds the lock, and
// naming that holder.
func requireRefusedByLock(tb testing.TB, what, out string, rc int, l lockInfo) {
	tb.Helper()
	if rc == 0 {
		tb.Fatalf("%s ran while another run held the state lock:\n%s", what, out)
	}
	for _, want := range []string{"Error acquiring the state lock", "Lock Info:", "ID:        " + l.ID, "Who:       " + l.Who} {
		if !strings.Contains(out, want) {
			tb.Fatalf("%s was refused without naming the lock's holder (%q missing):\n%s", what, want, out)
		}
	}
}

// tfState is what the test reads of a state snapshot.
type tfState struct {
	Version   int    `json:"version"`
	Serial    int    `json:"serial"`
	Lineage   string `json:"lineage"`
	Resources []struct {
		Type, Name string
	} `json:"resources"`
}

// readState parses the state object of prefix and fails the test unless it is a whole state.
func readState(tb testing.TB, env *emulatortest.Env, prefix string) tfState {
	tb.Helper()
	data, ok := object(tb, env, prefix+"/default.tfstate")
	if !ok {
		tb.Fatalf("no state at gs://%s/%s/default.tfstate", acctest.StateBucket, prefix)
	}
	var s tfState
	if err := json.Unmarshal(data, &s); err != nil || s.Version != 4 || s.Lineage == "" {
		tb.Fatalf("the state at %s is not a whole Terraform state (%v):\n%s", prefix, err, data)
	}
	return s
}
