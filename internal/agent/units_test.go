package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRestdPluginsFollowWhatSlurmrestdOffers(t *testing.T) {
	debian := "slurmrestd: Possible OpenAPI plugins:\nslurmrestd: openapi/dbv0.0.36\nslurmrestd: openapi/v0.0.38\nslurmrestd: openapi/v0.0.36\nslurmrestd: openapi/v0.0.37\nslurmrestd: openapi/dbv0.0.38\n"
	got, err := restdPlugins(debian)
	if err != nil || strings.Join(got, ",") != "openapi/v0.0.38,openapi/v0.0.37,openapi/v0.0.36" {
		t.Errorf("Slurm 22.05: %v %v", got, err)
	}
	newer := "slurmrestd: Possible OpenAPI plugins:\nslurmrestd: openapi/slurmdbd\nslurmrestd: openapi/slurmctld\nslurmrestd: openapi/util\n"
	if got, err := restdPlugins(newer); err != nil || strings.Join(got, ",") != "openapi/slurmctld" {
		t.Errorf("Slurm 24.05: %v %v", got, err)
	}
	if _, err := restdPlugins("slurmrestd: fatal: Unable to process configuration file\n"); err == nil {
		t.Error("no plugin listed, no error")
	}
}

func TestUnitFilesQuoteAndKeepJobsAlive(t *testing.T) {
	u := unitFile(daemon{Name: "slurmd", Argv: []string{"/usr/sbin/slurmd", "-D", "--conf-server", "tc-controller:6817", "-N", "tc-a3-0"}, Delegate: true, KeepChildren: true})
	for _, want := range []string{"ExecStart=/usr/sbin/slurmd -D --conf-server tc-controller:6817 -N tc-a3-0\n", "Delegate=yes\n", "KillMode=process\n", "Restart=on-failure\n"} {
		if !strings.Contains(u, want) {
			t.Errorf("slurmd unit lacks %q:\n%s", want, u)
		}
	}
	if strings.Contains(u, "User=") {
		t.Errorf("slurmd must run as root:\n%s", u)
	}
	u = unitFile(daemon{Name: "slurmrestd", Argv: []string{"/usr/sbin/slurmrestd", "a b", "50%"}, User: "slurm", Env: []string{"SLURM_JWT=daemon"}})
	for _, want := range []string{"User=slurm\n", "Environment=SLURM_JWT=daemon\n", `ExecStart=/usr/sbin/slurmrestd "a b" "50%%"` + "\n"} {
		if !strings.Contains(u, want) {
			t.Errorf("slurmrestd unit lacks %q:\n%s", want, u)
		}
	}
	a := agentUnitFile("/var/lib/hypercompute/agent/hypercompute-agent-1.0", []string{"HYPERCOMPUTE_EMULATOR_HOST=169.254.169.253:80"})
	for _, want := range []string{"ExecStart=/var/lib/hypercompute/agent/hypercompute-agent-1.0 run\n", "KillMode=process\n", "StandardOutput=journal+console\n", "Environment=HYPERCOMPUTE_EMULATOR_HOST=169.254.169.253:80\n"} {
		if !strings.Contains(a, want) {
			t.Errorf("agent unit lacks %q:\n%s", want, a)
		}
	}
}

func TestClipKeepsReportsWithinTheGuestAttributeLimit(t *testing.T) {
	if got := clip("  short  "); got != "short" {
		t.Errorf("clip = %q", got)
	}
	long := strings.Repeat("é", 3000) // 6000 bytes
	got := clip(long)
	if len(got) > maxReportLen || !strings.HasSuffix(got, " [...]") || !strings.HasPrefix(got, "éé") {
		t.Errorf("clip of 6000 bytes: %d bytes, ends %q", len(got), got[len(got)-10:])
	}
	if strings.ContainsRune(got, '\uFFFD') {
		t.Error("clip cut a character in half")
	}
}

func TestMounterRetriesThenNamesSourceAndTarget(t *testing.T) {
	m := newMounter(quietLog(), 1500*time.Millisecond)
	m.markerDir = t.TempDir()
	target := filepath.Join(t.TempDir(), "home")
	calls := 0
	m.mount = func(ctx context.Context, e cc.MountEntry) error {
		calls++
		return errors.New("mount.nfs: access denied by server while mounting 10.0.0.9:/missing")
	}
	mounts := cc.Mounts{Home: cc.NFSMount{Server: "10.0.0.9", Share: "/missing", MountPoint: target}}
	err := m.mountAll(context.Background(), mounts)
	if err == nil || calls < 2 {
		t.Fatalf("err %v after %d attempts", err, calls)
	}
	for _, want := range []string{"NFS share 10.0.0.9:/missing on " + target, "access denied by server", fmt.Sprintf("after %d attempts", calls)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	// Once mounted, a later pass (same boot) does not mount again.
	calls = 0
	m.mount = func(ctx context.Context, e cc.MountEntry) error { calls++; return nil }
	for i := 0; i < 2; i++ {
		if err := m.mountAll(context.Background(), mounts); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("mounted %d times", calls)
	}
}

func TestMounterSaysGcsfuseIsMissing(t *testing.T) {
	m := newMounter(quietLog(), time.Second)
	m.markerDir = t.TempDir()
	m.lookPath = func(string) (string, error) { return "", errors.New("not found") }
	m.mount = func(ctx context.Context, e cc.MountEntry) error { return nil }
	mounts := cc.Mounts{
		Home:    cc.NFSMount{Server: "10.0.0.9", Share: "/home", MountPoint: filepath.Join(t.TempDir(), "home")},
		Buckets: []cc.BucketMount{{Bucket: "ml-datasets", MountPoint: filepath.Join(t.TempDir(), "data"), Profile: cc.BucketProfileTraining}},
	}
	err := m.mountAll(context.Background(), mounts)
	if err == nil || !strings.Contains(err.Error(), "gs://ml-datasets") || !strings.Contains(err.Error(), "gcsfuse is not installed") {
		t.Errorf("err = %v", err)
	}
}

// fakeAttributes records guest attribute writes.
type fakeAttributes struct {
	mu     sync.Mutex
	values map[string]string
	puts   []string
	err    error
}

func (f *fakeAttributes) SetGuestAttribute(_ context.Context, k, v string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.values[k] = v
	f.puts = append(f.puts, k+"="+v)
	return nil
}

func (f *fakeAttributes) DeleteGuestAttribute(_ context.Context, k string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.values, k)
	f.puts = append(f.puts, "-"+k)
	return nil
}

func TestReporterPhases(t *testing.T) {
	ga := &fakeAttributes{values: map[string]string{}}
	r := newReporter(ga, quietLog())
	ctx := context.Background()
	r.progress(ctx, cc.PhaseBooting)
	r.progress(ctx, cc.PhaseMounting)
	r.fail(ctx, errors.New("cannot mount NFS share 10.0.0.9:/home on /home"))
	// A retry after the failure must not look like a fresh bootstrap.
	r.progress(ctx, cc.PhaseMounting)
	if ga.values[cc.GuestAttrPhase] != cc.PhaseError || ga.values[cc.GuestAttrError] != "cannot mount NFS share 10.0.0.9:/home on /home" {
		t.Errorf("after a failure: %v", ga.values)
	}
	r.ready(ctx)
	r.progress(ctx, cc.PhaseConfiguring)
	if ga.values[cc.GuestAttrPhase] != cc.PhaseReady {
		t.Errorf("after ready: %v", ga.values)
	}
	if _, ok := ga.values[cc.GuestAttrError]; ok {
		t.Errorf("ready kept the old error: %v", ga.values)
	}
	// Unchanged values are not rewritten.
	n := len(ga.puts)
	r.ready(ctx)
	if len(ga.puts) != n {
		t.Errorf("ready again wrote %v", ga.puts[n:])
	}
}

func TestReporterSurvivesDisabledGuestAttributes(t *testing.T) {
	ga := &fakeAttributes{values: map[string]string{}, err: ErrGuestAttributesDisabled}
	var logged strings.Builder
	r := newReporter(ga, slog.New(slog.NewTextHandler(&logged, nil)))
	r.progress(context.Background(), cc.PhaseBooting)
	r.progress(context.Background(), cc.PhaseMounting)
	if c := strings.Count(logged.String(), "enable-guest-attributes=TRUE"); c != 1 {
		t.Errorf("the missing flag was logged %d times:\n%s", c, logged.String())
	}
}

func TestDesiredConfigNamesTheBadKey(t *testing.T) {
	c := cc.Cluster{Name: "tc", Controller: cc.Controller{Hostname: "tc-controller"}, Mounts: cc.Mounts{Home: cc.NFSMount{Server: "10.0.0.2", Share: "/home"}},
		Agents: []cc.AgentRef{{Version: "1.0", URL: "/opt/agent", SHA256: strings.Repeat("a", 64)}}}
	cluster, _ := cc.EncodeCluster(c)
	part, _ := cc.EncodePartition("tc", cc.Partition{Name: "debug", MachineType: "e2-standard-2", MaxDynamicNodes: 2})
	attrs := map[string]string{cc.ClusterKey: string(cluster), cc.PartitionKey("debug"): string(part)}
	if _, parts, err := DesiredConfig(attrs); err != nil || len(parts) != 1 {
		t.Fatalf("%v %v", parts, err)
	}
	attrs[cc.PartitionKey("other")] = string(part)
	if _, _, err := DesiredConfig(attrs); err == nil || !strings.Contains(err.Error(), "hypercompute-partition-other holds partition \"debug\"") {
		t.Errorf("misplaced partition: %v", err)
	}
	delete(attrs, cc.PartitionKey("other"))
	attrs[cc.PartitionKey("bad")] = "{"
	if _, _, err := DesiredConfig(attrs); err == nil || !strings.HasPrefix(err.Error(), "metadata key hypercompute-partition-bad: ") {
		t.Errorf("broken partition: %v", err)
	}
	if _, _, err := DesiredConfig(map[string]string{}); err == nil || !strings.Contains(err.Error(), "no hypercompute-cluster key") {
		t.Errorf("no cluster: %v", err)
	}
	if _, err := NodeConfig(map[string]string{}); err == nil || !strings.Contains(err.Error(), "no hypercompute-node key") {
		t.Errorf("no node config: %v", err)
	}
}

// self is the test's own account, so the file tests run without root.
func self() account { return account{UID: os.Getuid(), GID: os.Getgid()} }

func TestWriteFileIsAtomicAndIdempotent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "key")
	changed, err := writeFile(p, []byte("secret"), 0o400, self())
	if err != nil || !changed {
		t.Fatalf("%v %v", changed, err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o400 {
		t.Errorf("mode %v", fi.Mode())
	}
	if changed, err := writeFile(p, []byte("secret"), 0o400, self()); err != nil || changed {
		t.Errorf("rewrite of the same content: %v %v", changed, err)
	}
	os.Chmod(p, 0o644)
	if _, err := writeFile(p, []byte("secret"), 0o400, self()); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o400 {
		t.Errorf("a widened mode was not fixed: %v", fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestEnsureDirKeepsParentsTraversable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool", "slurm", "ctld")
	if err := ensureDir(dir, 0o700, self()); err != nil {
		t.Fatal(err)
	}
	parent, _ := os.Stat(filepath.Dir(dir))
	leaf, _ := os.Stat(dir)
	if parent.Mode().Perm() != 0o755 || leaf.Mode().Perm() != 0o700 {
		t.Errorf("parent %v, leaf %v", parent.Mode(), leaf.Mode())
	}
}

func TestSharedNames(t *testing.T) {
	l := cc.DefaultLayout()
	for p, want := range map[string]string{
		"/etc/slurm/slurm.conf":                    "slurm.conf",
		"/etc/slurm/prolog.d/50-cluster-prolog.sh": "prolog.d/50-cluster-prolog.sh",
		"/etc/slurm/epilog.d/50-cluster-epilog.sh": "epilog.d/50-cluster-epilog.sh",
		"/etc/slurm/cgroup.conf":                   "cgroup.conf",
	} {
		if got := sharedName(l, p); got != want {
			t.Errorf("sharedName(%s) = %s, want %s", p, got, want)
		}
	}
}

func TestProcessSupervisorTracksItsDaemons(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	p := &processSupervisor{log: quietLog(), runDir: t.TempDir(), logDir: t.TempDir()}
	d := daemon{Name: "sleeper", Argv: []string{"/bin/sleep", "30"}}
	ctx := context.Background()
	if err := p.start(ctx, d); err != nil {
		t.Fatal(err)
	}
	pid := p.pid(d)
	if pid == 0 || !p.running(d) {
		t.Fatal("the started daemon is not seen running")
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := p.start(ctx, d); err != nil || p.pid(d) != pid {
		t.Errorf("start of a running daemon started another: %v, pid %d → %d", err, pid, p.pid(d))
	}
	if err := p.restart(ctx, d); err != nil || p.pid(d) == pid || processAlive(pid, "sleep") {
		t.Errorf("restart: %v, pid %d → %d", err, pid, p.pid(d))
	}
	newPid := p.pid(d)
	t.Cleanup(func() { syscall.Kill(newPid, syscall.SIGKILL) })

	bad := daemon{Name: "bad", Argv: []string{"/bin/sh", "-c", "echo 'fatal: no config' >&2; exit 3"}}
	err := p.start(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), "fatal: no config") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("a daemon that dies at start: %v", err)
	}
}
