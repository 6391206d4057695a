package acctest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// NewWithRuntime starts an in-process emulator with the local VM runtime: VMs that reach RUNNING
// boot as hosts of this machine, run their startup-script (the launcher, then the agent) and real
// Slurm daemons. It skips the test, with the reason, where the runtime cannot run (not Linux, not
// root, tools missing) or TF_ACC is unset.
func NewWithRuntime(t *testing.T) *Env {
	t.Helper()
	PreCheck(t)
	return &Env{Env: emulatortest.Start(t, emulatortest.WithLocalRuntime()), t: t}
}

// clusterTools are what a cluster VM on the local runtime runs: the launcher (curl, sha256sum),
// the agent's daemons and the Slurm clients, and go to build the agent.
var clusterTools = []string{"curl", "sha256sum", "munged", "munge", "unmunge", "slurmctld", "slurmd", "slurmrestd", "scontrol", "sinfo", "go"}

// RequireClusterTools skips a test whose VMs run a real Slurm cluster on the local runtime when
// this machine lacks a program they need (scripts/install-deps.sh installs them).
func RequireClusterTools(t testing.TB) {
	t.Helper()
	for _, bin := range clusterTools {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("skipping: %s is not installed (run scripts/install-deps.sh)", bin)
		}
	}
}

var agentBuild struct {
	once         sync.Once
	path, sha256 string
	err          error
}

// AgentBinary builds ./cmd/hypercompute-agent once per test binary and returns the binary's path
// and SHA-256, for a cluster's agent = { url = "file://<path>", sha256 = ... }. The binary lives in
// the user's cache directory, not in /tmp: every local-runtime VM has a private /tmp but sees the
// rest of this machine's filesystem, as an image with the agent baked in would. It is named by its
// digest, so concurrent test binaries never overwrite a file a VM is reading.
func AgentBinary(t testing.TB) (path, sha256sum string) {
	t.Helper()
	agentBuild.once.Do(func() { agentBuild.path, agentBuild.sha256, agentBuild.err = buildAgent() })
	if agentBuild.err != nil {
		t.Fatalf("building the agent: %v", agentBuild.err)
	}
	return agentBuild.path, agentBuild.sha256
}

func buildAgent() (string, string, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", "", fmt.Errorf("cannot locate the module's source")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..")
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(cache, "hypercompute-acctest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	tmp, err := os.CreateTemp(dir, "agent-build-*")
	if err != nil {
		return "", "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/hypercompute-agent")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build ./cmd/hypercompute-agent: %v\n%s", err, out)
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return "", "", err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return "", "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	final := filepath.Join(dir, "hypercompute-agent-"+sum)
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return "", "", err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return "", "", err
	}
	return final, sum, nil
}

// RequireTorch skips where Debian's PyTorch is missing: the CPU recipe trains with it.
func RequireTorch(t testing.TB) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import torch.distributed").Run(); err != nil {
		t.Skip("skipping: /usr/bin/python3 cannot import torch (install python3-torch: scripts/install-deps.sh)")
	}
}

// RunOn runs argv on the local runtime's VM vm, for at most timeout, and returns its stdout; the
// error names the command and the VM and carries what it printed.
func (e *Env) RunOn(timeout time.Duration, vm string, argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, stderr, err := e.Runtime.Exec(ctx, instances.InstanceKey(Project, Zone, vm), argv...)
	if err != nil {
		return "", fmt.Errorf("%s on %s: %v\n%s%s", strings.Join(argv, " "), vm, err, out, stderr)
	}
	return string(out), nil
}

// JobReport is recipe job job's report on the controller VM controller, as its agent wrote it to
// the guest attributes, with the training progress it carries (zero while there is none).
func (e *Env) JobReport(controller, job string) (cc.JobReport, recipes.Progress) {
	svc := e.Server.Component("instances").(*instances.Service)
	raw := svc.GuestAttributes(instances.InstanceKey(Project, Zone, controller)).Values[cc.GuestAttributeNamespace][cc.JobAttr(job)]
	var p recipes.Progress
	r, err := cc.DecodeJobReport(raw)
	if err == nil {
		_ = json.Unmarshal(r.Progress, &p)
	}
	return r, p
}

// Slurm runs the shell command cmd on the local runtime's VM vm with the cluster's slurm.conf, as
// an administrator logged in there would, for at most timeout; it returns what RunOn returns.
func (e *Env) Slurm(timeout time.Duration, vm, cmd string) (string, error) {
	return e.RunOn(timeout, vm, "env", "SLURM_CONF=/etc/slurm/slurm.conf", "bash", "-c", cmd)
}

// NewSlurmRuntime opens a test whose VMs run a real Slurm cluster on the local runtime: it skips
// where the tools are missing (RequireClusterTools), starts the emulator with the runtime
// (NewWithRuntime) and returns the agent build's path and SHA-256 (AgentBinary).
func NewSlurmRuntime(t *testing.T) (env *Env, agentPath, agentSHA string) {
	t.Helper()
	PreCheck(t)
	RequireClusterTools(t)
	env = NewWithRuntime(t)
	agentPath, agentSHA = AgentBinary(t)
	return env, agentPath, agentSHA
}
