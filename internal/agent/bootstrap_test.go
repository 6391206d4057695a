package agent_test

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/filestore"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/slurmcheck"
)

// payload renders what the provider writes to a VM: the launcher and the
// node config.
func payload(t testing.TB, c cc.Cluster, role cc.Role, p *cc.Partition, edit func(*cc.Node)) map[string]string {
	t.Helper()
	n, err := cc.NewNode(c, role, p)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&n)
	}
	node, err := cc.RenderNodeConfig(n)
	if err != nil {
		t.Fatal(err)
	}
	launcher, err := cc.RenderLauncher(n.Agent)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{cc.StartupScriptKey: string(launcher), cc.NodeConfigKey: string(node)}
}

func encodeCluster(t testing.TB, c cc.Cluster) string {
	t.Helper()
	b, err := cc.EncodeCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hash(t *testing.T, c cc.Cluster, parts []cc.Partition) string {
	t.Helper()
	h, err := cc.Hash(c, parts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var showConfigLine = regexp.MustCompile(`(?m)^MaxJobCount\s*=\s*(\S+)`)

// maxJobCount is MaxJobCount as the controller's running slurmctld has it.
func maxJobCount(t *testing.T, c *cloud, controller string) string {
	t.Helper()
	out := c.exec(controller, "env", "SLURM_CONF=/etc/slurm/slurm.conf", "scontrol", "show", "config")
	m := showConfigLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("scontrol show config on %s has no MaxJobCount:\n%s", controller, out)
	}
	return m[1]
}

// The production payload on the local cloud: a controller, a login and a
// compute VM boot from the launcher and the node config alone. The
// controller generates the keys, validates and starts slurmctld and
// slurmrestd and reports the hash the provider computes; the login VM runs
// sinfo against it; the compute VM's configless slurmd registers. A
// configuration slurmctld refuses is reported with slurmctld's words and
// not applied; a valid one is applied by reconfigure. A /home that does not
// exist fails its VM with the source named. No key leaks anywhere a user or
// the provider can read.
func TestClusterBootstrapOnTheLocalRuntime(t *testing.T) {
	requireSlurm(t)
	slurmcheck.Require(t)
	c := startCloud(t)
	start := time.Now()
	agentPath, agentSum := buildAgent(t)
	t.Logf("agent built in %s", time.Since(start).Round(time.Millisecond))
	c.network()
	fsName, fsIP := c.createFilestore("home")

	cluster := cc.Cluster{
		Name:       "tc",
		Controller: cc.Controller{Hostname: cc.ControllerName("tc")},
		LoginCount: 1,
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: fsIP, Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: testVersion, URL: "file://" + agentPath, SHA256: agentSum}},
	}
	parts := []cc.Partition{{Name: "debug", MachineType: "e2-standard-2", StaticNodes: 1, MaxDynamicNodes: 1, Default: true}}
	partition, err := cc.EncodePartition(cluster.Name, parts[0])
	if err != nil {
		t.Fatal(err)
	}
	controller, login, node := cc.ControllerName("tc"), cc.LoginName("tc", 0), cc.NodeName(parts[0].Prefix("tc"), 0)

	// A VM whose /home share does not exist: the error names it.
	broken := cluster
	broken.Mounts.Home.Share = "/missing"
	c.createVM("other-login-0", payload(t, broken, cc.RoleLogin, nil, func(n *cc.Node) { n.MountTimeout = 2 }))

	ctlItems := payload(t, cluster, cc.RoleController, nil, nil)
	ctlItems[cc.ClusterKey] = encodeCluster(t, cluster)
	ctlItems[cc.PartitionKey("debug")] = string(partition)
	c.createVM(controller, ctlItems)
	c.createVM(login, payload(t, cluster, cc.RoleLogin, nil, nil))
	c.createVM(node, payload(t, cluster, cc.RoleCompute, &parts[0], nil))

	h1 := hash(t, cluster, parts)
	ready := func(want string) func(map[string]string) bool {
		return func(a map[string]string) bool {
			return a[cc.GuestAttrPhase] == cc.PhaseReady && a[cc.GuestAttrConfigHash] == want
		}
	}
	got := c.waitAttrs(controller, "phase=ready with config-hash "+h1, 90*time.Second, ready(h1), true)
	t.Logf("controller ready %s after the VMs were created", time.Since(start).Round(time.Millisecond))
	if got[cc.GuestAttrAgentVersion] != testVersion || got[cc.GuestAttrError] != "" || got[cc.GuestAttrConfigError] != "" {
		t.Errorf("controller reports %v", got)
	}

	t.Run("controller runs slurmctld and slurmrestd with JWT auth", func(t *testing.T) {
		for _, d := range []string{"slurmctld", "slurmrestd", "munged"} {
			if out := c.tryExec(controller, "pgrep", "-x", d); strings.TrimSpace(out) == "" || strings.Contains(out, "exit status") {
				t.Errorf("%s does not run on the controller: %q", d, out)
			}
		}
		if owner := c.exec(controller, "ps", "-o", "user=", "-C", "slurmctld"); strings.TrimSpace(owner) != "slurm" {
			t.Errorf("slurmctld runs as %q, want the SlurmUser slurm", owner)
		}
		token := strings.TrimPrefix(strings.TrimSpace(c.exec(controller, "env", "SLURM_CONF=/etc/slurm/slurm.conf", "scontrol", "token", "username=root", "lifespan=120")), "SLURM_JWT=")
		curl := func(path string, auth bool) string {
			args := []string{"curl", "-s", "-w", "\nHTTP %{http_code}"}
			if auth {
				args = append(args, "-H", "X-SLURM-USER-NAME: root", "-H", "X-SLURM-USER-TOKEN: "+token)
			}
			return c.exec(controller, append(args, "http://127.0.0.1:6820"+path)...)
		}
		if out := curl("/slurm/v0.0.38/ping", false); !strings.HasSuffix(out, "HTTP 401") {
			t.Errorf("slurmrestd answered a request without a token with %q, want 401", out)
		}
		spec := strings.ReplaceAll(curl("/openapi/v3", true), `\/`, "/")
		if !strings.Contains(spec, "/slurm/v0.0.38/ping") {
			t.Fatalf("slurmrestd's OpenAPI document lacks v0.0.38: %.400s", spec)
		}
		if out := curl("/slurm/v0.0.38/ping", true); !strings.HasSuffix(out, "HTTP 200") || !strings.Contains(out, `"pings"`) {
			t.Errorf("ping through slurmrestd with a token: %q", out)
		}
		if out := c.exec(controller, "stat", "-c", "%a %U", "/etc/slurm/jwt_hs256.key"); out != "600 slurm\n" {
			t.Errorf("JWT key mode and owner: %q", out)
		}
	})

	t.Run("login and compute join the cluster", func(t *testing.T) {
		c.waitAttrs(login, "phase=ready", 60*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseReady }, true)
		// A login shell, as a user would get over SSH.
		if out := c.exec(login, "bash", "-lc", "sinfo -h -o %P | sort -u"); out != "debug*\n" {
			t.Errorf("sinfo on the login VM printed %q, want the cluster's partition", out)
		}
		c.waitAttrs(node, "phase=ready", 60*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseReady }, true)
		deadline := time.Now().Add(30 * time.Second)
		for {
			out := c.exec(login, "bash", "-lc", "sinfo -h -N -n "+node+" -o '%N %t'")
			if out == node+" idle\n" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the compute node never became idle: sinfo says %q", out)
			}
			time.Sleep(200 * time.Millisecond)
		}
		// The controller tells the provider the static node registered, within its quick recheck.
		c.waitAttrs(controller, cc.RegisteredAttr("debug")+"="+node, 10*time.Second, func(a map[string]string) bool {
			return a[cc.RegisteredAttr("debug")] == node
		}, true)
	})

	t.Run("a failing mount names the share", func(t *testing.T) {
		a := c.waitAttrs("other-login-0", "phase=error", 60*time.Second, func(a map[string]string) bool { return a[cc.GuestAttrPhase] == cc.PhaseError }, false)
		want := "cannot mount NFS share " + fsIP + ":/missing on /home"
		if !strings.Contains(a[cc.GuestAttrError], want) {
			t.Errorf("error = %q, want it to say %q", a[cc.GuestAttrError], want)
		}
	})

	pidBefore := strings.TrimSpace(c.exec(controller, "pgrep", "-x", "slurmctld"))
	before := maxJobCount(t, c, controller)

	t.Run("a configuration slurmctld refuses is reported and not applied", func(t *testing.T) {
		bad := cluster
		bad.Slurm.Extra = map[string]string{"MaxJobCount": "abc"}
		if err := cc.ValidateExtraSlurmSettings(bad.Slurm.Extra); err != nil {
			t.Fatalf("the plan-time check already refuses the setting: %v", err)
		}
		h2 := hash(t, bad, parts)
		c.setMetadata(controller, cc.ClusterKey, encodeCluster(t, bad))
		a := c.waitAttrs(controller, "config-error for "+h2, 30*time.Second, func(a map[string]string) bool {
			return strings.HasPrefix(a[cc.GuestAttrConfigError], h2+" ")
		}, true)
		if text := a[cc.GuestAttrConfigError]; !strings.Contains(text, "MaxJobCount value (abc) is not a valid number") {
			t.Errorf("config-error = %q, want slurmctld's own text", text)
		}
		if a[cc.GuestAttrConfigHash] != h1 || a[cc.GuestAttrPhase] != cc.PhaseReady {
			t.Errorf("after a rejected change the controller reports %v; want it ready with %s", a, h1)
		}
		if got := maxJobCount(t, c, controller); got != before {
			t.Errorf("slurmctld runs with MaxJobCount=%s after a rejected change, want the old %s", got, before)
		}
		if conf := c.exec(controller, "cat", "/etc/slurm/slurm.conf"); strings.Contains(conf, "abc") {
			t.Errorf("the rejected configuration was written to /etc/slurm/slurm.conf")
		}
	})

	t.Run("a valid change is applied by reconfigure", func(t *testing.T) {
		good := cluster
		good.Slurm.Extra = map[string]string{"MaxJobCount": "12345"}
		h3 := hash(t, good, parts)
		c.setMetadata(controller, cc.ClusterKey, encodeCluster(t, good))
		a := c.waitAttrs(controller, "config-hash "+h3, 30*time.Second, ready(h3), true)
		if _, stale := a[cc.GuestAttrConfigError]; stale {
			t.Errorf("config-error is still reported after a good change: %v", a)
		}
		if got := maxJobCount(t, c, controller); got != "12345" {
			t.Errorf("MaxJobCount = %s after the change, want 12345", got)
		}
		if pid := strings.TrimSpace(c.exec(controller, "pgrep", "-x", "slurmctld")); pid != pidBefore {
			t.Errorf("slurmctld was restarted (pid %s, was %s); a change must be a reconfigure", pid, pidBefore)
		}
		if out := c.exec(login, "bash", "-lc", "scontrol show config | grep ^MaxJobCount"); !strings.Contains(out, "12345") {
			t.Errorf("the login VM does not see the new configuration: %q", out)
		}
	})

	t.Run("a scale-down drains its nodes and reports them", func(t *testing.T) {
		good := cluster
		good.Slurm.Extra = map[string]string{"MaxJobCount": "12345"}
		h3 := hash(t, good, parts)
		drain := parts[0]
		drain.Drain = &cc.Drain{ID: "d1", Nodes: node}
		b, err := cc.EncodePartition(cluster.Name, drain)
		if err != nil {
			t.Fatal(err)
		}
		if h := hash(t, good, []cc.Partition{drain}); h != h3 {
			t.Fatalf("a drain request changes the config hash")
		}
		c.setMetadata(controller, cc.PartitionKey("debug"), string(b))
		a := c.waitAttrs(controller, "the drain report", 30*time.Second, func(a map[string]string) bool {
			return a[cc.DrainedAttr("debug")] == "d1 "+node
		}, true)
		if a[cc.GuestAttrConfigHash] != h3 || a[cc.GuestAttrPhase] != cc.PhaseReady {
			t.Errorf("after a drain the controller reports %v", a)
		}
		if out := c.exec(login, "bash", "-lc", "sinfo -h -N -n "+node+" -o '%N %t %E'"); !strings.HasPrefix(out, node+" drain ") || !strings.Contains(out, cc.DrainReason) {
			t.Errorf("sinfo of the drained node: %q", out)
		}

		// The scale-down is reverted (the drain request disappears): the node goes back to
		// service instead of staying drained for ever.
		b, err = cc.EncodePartition(cluster.Name, parts[0])
		if err != nil {
			t.Fatal(err)
		}
		c.setMetadata(controller, cc.PartitionKey("debug"), string(b))
		deadline := time.Now().Add(45 * time.Second)
		for {
			out := c.exec(login, "bash", "-lc", "sinfo -h -N -n "+node+" -o '%t'")
			if !strings.HasPrefix(strings.TrimSpace(out), "drain") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the node stayed %q after its drain request was withdrawn", out)
			}
			time.Sleep(500 * time.Millisecond)
		}
	})

	// The field's first complaint: adding a partition breaks the cluster. Slurm 22.05 must restart
	// slurmctld for a new node set; a job already running elsewhere keeps running through it.
	t.Run("adding a partition does not disturb a running job", func(t *testing.T) {
		job := strings.TrimSpace(c.exec(login, "bash", "-lc", "sbatch --parsable -p debug -w "+node+" --wrap 'sleep 60'"))
		if job == "" {
			t.Fatal("sbatch printed no job id")
		}
		deadline := time.Now().Add(30 * time.Second)
		for state := ""; state != "RUNNING"; {
			state = strings.TrimSpace(c.exec(login, "bash", "-lc", "squeue -h -j "+job+" -o %T"))
			if time.Now().After(deadline) {
				t.Fatalf("job %s did not start (state %q)", job, state)
			}
			time.Sleep(300 * time.Millisecond)
		}
		good := cluster
		good.Slurm.Extra = map[string]string{"MaxJobCount": "12345"}
		extra := cc.Partition{Name: "extra", MachineType: "e2-standard-2", MaxDynamicNodes: 2}
		b, err := cc.EncodePartition(cluster.Name, extra)
		if err != nil {
			t.Fatal(err)
		}
		want := hash(t, good, append(append([]cc.Partition{}, parts...), extra))
		c.setMetadata(controller, cc.PartitionKey("extra"), string(b))
		a := c.waitAttrs(controller, "the configuration with the new partition", 60*time.Second, func(a map[string]string) bool {
			return a[cc.GuestAttrConfigHash] == want
		}, true)
		if a[cc.GuestAttrPhase] != cc.PhaseReady {
			t.Errorf("after adding a partition the controller reports %v", a)
		}
		if out := c.exec(login, "bash", "-lc", "sinfo -h -p extra -o '%P %D'"); strings.TrimSpace(out) != "extra 2" {
			t.Errorf("sinfo of the new partition: %q", out)
		}
		if state := strings.TrimSpace(c.exec(login, "bash", "-lc", "squeue -h -j "+job+" -o %T")); state != "RUNNING" {
			t.Errorf("job %s is %q after a partition was added; it must keep running", job, state)
		}
		c.exec(login, "bash", "-lc", "scancel "+job)
		// And the restarted slurmctld still schedules on the node at once.
		start := time.Now()
		if out := c.exec(login, "bash", "-lc", "timeout 20 srun -p debug -w "+node+" hostname"); strings.TrimSpace(out) != node {
			t.Errorf("a job right after the restart: %q (after %s)", out, time.Since(start).Round(time.Millisecond))
		}
		t.Logf("a job right after adding a partition ran in %s", time.Since(start).Round(time.Millisecond))
		// The partition goes again: the controller returns to the configuration the later
		// subtests expect.
		c.deleteMetadata(controller, cc.PartitionKey("extra"))
		c.waitAttrs(controller, "the configuration without the extra partition", 60*time.Second, func(a map[string]string) bool {
			return a[cc.GuestAttrConfigHash] == hash(t, good, parts)
		}, true)
	})

	t.Run("status, a new start and a reboot keep the cluster", func(t *testing.T) {
		good := cluster
		good.Slurm.Extra = map[string]string{"MaxJobCount": "12345"}
		h3 := hash(t, good, parts)
		status := c.exec(controller, "/var/lib/hypercompute/bin/hypercompute-agent", "status")
		for _, want := range []string{"hypercompute-agent " + testVersion, "phase:", "ready", "config-hash:   " + h3, "slurmctld:  running", "slurmrestd: running"} {
			if !strings.Contains(status, want) {
				t.Errorf("status on the controller lacks %q:\n%s", want, status)
			}
		}
		// The launcher runs start at every boot: a second start replaces the
		// running agent instead of adding one.
		agentBin := "/var/lib/hypercompute/agent/hypercompute-agent-" + testVersion
		c.exec(login, agentBin, "start")
		if n := strings.Count(c.exec(login, "ps", "-eo", "args"), agentBin+" run"); n != 1 {
			t.Errorf("%d agents run on the login VM after a second start", n)
		}
		// A VM has its own PID namespace, so a rebooted slurmctld may get its old PID back; its
		// start time (clock ticks since the machine booted) tells the processes apart.
		started := func() string {
			return strings.TrimSpace(c.tryExec(controller, "sh", "-c", "cut -d' ' -f22 /proc/$(pgrep -x slurmctld)/stat"))
		}
		ctld := started()
		op, err := c.instances.Reset(c.ctx, &computepb.ResetInstanceRequest{Project: project, Zone: zone, Instance: controller})
		if err == nil {
			err = op.Wait(c.ctx)
		}
		if err != nil {
			t.Fatalf("reset: %v", err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			out := c.tryExec(controller, "env", "SLURM_CONF=/etc/slurm/slurm.conf", "scontrol", "ping")
			pid := started()
			if strings.Contains(out, "is UP") && pid != "" && pid != ctld && !strings.Contains(pid, "exit status") && !strings.Contains(pid, "No such file") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("slurmctld did not come back after a reboot: %q %q\n%s", out, pid, c.serial(controller))
			}
			time.Sleep(200 * time.Millisecond)
		}
		c.waitAttrs(controller, "ready after the reboot", 30*time.Second, ready(h3), true)
		if got := maxJobCount(t, c, controller); got != "12345" {
			t.Errorf("after a reboot slurmctld runs with MaxJobCount=%s", got)
		}
		// The node keeps serving jobs after the controller's reboot.
		start := time.Now()
		if out := c.exec(login, "bash", "-lc", "timeout 20 srun -p debug -w "+node+" hostname"); strings.TrimSpace(out) != node {
			t.Errorf("a job right after the controller's reboot: %q (after %s)", out, time.Since(start).Round(time.Millisecond))
		}
		t.Logf("a job right after the controller's reboot ran in %s", time.Since(start).Round(time.Millisecond))
		// The munge key survived: the login VM still talks to the controller.
		if out := c.exec(login, "bash", "-lc", "sinfo -h -o %P | sort -u"); out != "debug*\n" {
			t.Errorf("sinfo on the login VM after the controller's reboot: %q", out)
		}
	})

	t.Run("keys never leave their files", func(t *testing.T) {
		share, ok := c.env.Server.Component(filestore.ComponentName).(*filestore.Service).BackingDir(fsName, "home")
		if !ok {
			t.Fatal("no backing directory for /home")
		}
		munge, err := os.ReadFile(filepath.Join(share, ".hypercompute", "secrets", "munge.key"))
		if err != nil || len(munge) != 1024 {
			t.Fatalf("munge key on /home: %d bytes, %v", len(munge), err)
		}
		if out := c.exec(controller, "stat", "-c", "%a %U", "/home/.hypercompute/secrets", "/home/.hypercompute/secrets/munge.key", "/etc/munge/munge.key"); out != "700 root\n400 root\n400 munge\n" {
			t.Errorf("modes and owners of the munge key: %q", out)
		}
		for _, vm := range []string{login, node} {
			if got := c.exec(vm, "cat", "/etc/munge/munge.key"); got != string(munge) {
				t.Errorf("%s runs munge with another key", vm)
			}
		}
		jwt := []byte(c.exec(controller, "cat", "/etc/slurm/jwt_hs256.key"))
		if len(jwt) < 32 {
			t.Fatalf("JWT key is %d bytes", len(jwt))
		}
		places := map[string]string{}
		for _, vm := range []string{controller, login, node, "other-login-0"} {
			places[vm+" metadata"] = c.metadataText(vm)
			attrs := ""
			for k, v := range c.attrs(vm) {
				attrs += k + "=" + v + "\n"
			}
			places[vm+" guest attributes"] = attrs
			places[vm+" serial console"] = c.serial(vm)
			places[vm+" agent logs"] = c.exec(vm, "sh", "-c", "cat /var/log/hypercompute/*.log")
		}
		if !strings.Contains(places[controller+" agent logs"], "configuration applied") {
			t.Errorf("the controller's agent log lacks its work:\n%s", places[controller+" agent logs"])
		}
		for name, key := range map[string][]byte{"munge key": munge, "JWT key": jwt} {
			for where, text := range places {
				for _, form := range encodings(key) {
					if strings.Contains(text, form) {
						t.Errorf("the %s appears in the %s", name, where)
						break
					}
				}
			}
		}
	})
}

// encodings are the forms a leaked key would take: raw, hex, base64, and
// the same for its first 24 bytes (a partial leak).
func encodings(key []byte) []string {
	var out []string
	for _, k := range [][]byte{key, key[:24]} {
		out = append(out, string(k), hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k), base64.RawURLEncoding.EncodeToString(k))
	}
	return out
}
