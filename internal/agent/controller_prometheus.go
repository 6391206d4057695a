package agent

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/monitoring"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// prometheusDir holds the controller's Prometheus configuration, rules, targets and (under
// monitoring.DataDir) its time series, on the controller's own disk.
func (c *controller) prometheusDir() string { return filepath.Join(c.stateDir, "prometheus") }

// prometheusDaemon is Debian's prometheus. The unit takes the package's own name, so on a VM with
// systemd it replaces the unit the package ships (which would listen on the same port with the
// package's configuration).
func (c *controller) prometheusDaemon(m *cc.Monitoring, listen string) daemon {
	dir := c.prometheusDir()
	return daemon{
		Name: "prometheus",
		User: "prometheus",
		Argv: []string{"/usr/bin/prometheus",
			"--config.file=" + filepath.Join(dir, monitoring.ConfigFile),
			"--storage.tsdb.path=" + filepath.Join(dir, monitoring.DataDir),
			"--storage.tsdb.retention.time=" + strconv.Itoa(m.Retention()) + "d",
			"--web.listen-address=" + listen,
		},
	}
}

// prometheus runs Prometheus on the controller while the cluster's monitoring block asks for it:
// its configuration and rules from the block, and a target list of every VM of the cluster that
// runs (the controller, the login VMs, static nodes, dynamic nodes powered up), rewritten when a
// node comes or goes; Prometheus re-reads the list by itself (file_sd). A changed configuration
// or rule file restarts it; a block without Prometheus stops it.
func (c *controller) prometheus(ctx context.Context, cluster cc.Cluster, parts []cc.Partition, nodes slurmNodes) error {
	m := cluster.Monitoring
	ip := c.listenIP
	if ip == "" && m != nil && m.Prometheus {
		var err error
		if ip, err = c.md.InternalIP(ctx); err != nil {
			return fmt.Errorf("prometheus: the controller's internal address: %w", err)
		}
	}
	listen := net.JoinHostPort(ip, strconv.Itoa(m.PrometheusListenPort()))
	d := c.prometheusDaemon(m, listen)
	if m == nil || !m.Prometheus {
		return c.sup.stop(ctx, d)
	}
	acct, err := lookupAccount(d.User, "prometheus")
	if err != nil {
		return fmt.Errorf("prometheus: %w", err)
	}
	dir := c.prometheusDir()
	if err := ensureDir(dir, 0o755, rootAccount); err != nil {
		return err
	}
	if err := ensureDir(filepath.Join(dir, monitoring.DataDir), 0o750, acct); err != nil {
		return err
	}
	rules, err := monitoring.Rules(m)
	if err != nil {
		return fmt.Errorf("prometheus: rendering the alert rules: %w", err)
	}
	changed := false
	for name, b := range map[string][]byte{
		monitoring.RulesFile:   rules,
		monitoring.ConfigFile:  monitoring.Config(cluster.Name, m, dir, listen),
		monitoring.TargetsFile: monitoring.Targets(clusterTargets(cluster, parts, nodes), m.Port()),
	} {
		ch, err := writeFile(filepath.Join(dir, name), b, 0o644, rootAccount)
		if err != nil {
			return fmt.Errorf("prometheus: %w", err)
		}
		changed = changed || (ch && name != monitoring.TargetsFile)
	}
	// The listen address is in the command line, so a new port also restarts it.
	if changed || !c.sup.running(d) || c.prometheusListen != listen {
		if err := c.sup.restart(ctx, d); err != nil {
			return fmt.Errorf("starting prometheus: %w", err)
		}
		c.prometheusListen = listen
		c.log.Info("prometheus (re)started", "listen", listen)
		return c.waitPrometheus(ctx, d, listen, time.Minute)
	}
	return nil
}

// waitPrometheus waits until Prometheus says it is ready (its TSDB opened, rules loaded).
func (c *controller) waitPrometheus(ctx context.Context, d daemon, listen string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+listen+"/-/ready", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/-/ready answers %s", resp.Status)
		}
		if !c.sup.running(d) {
			return fmt.Errorf("prometheus exited; %s", c.sup.describe(d))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("prometheus is not ready on %s after %s: %v; %s", listen, timeout, err, c.sup.describe(d))
		}
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

// clusterTargets is every VM that serves metrics now: the controller and login VMs, every static
// node, and the dynamic nodes Slurm does not hold powered down or powering up or down.
func clusterTargets(cluster cc.Cluster, parts []cc.Partition, nodes slurmNodes) []monitoring.Target {
	ts := []monitoring.Target{{Node: cc.ControllerName(cluster.Name), Role: cc.RoleController}}
	for _, vm := range cluster.LoginVMs() {
		ts = append(ts, monitoring.Target{Node: vm, Role: cc.RoleLogin})
	}
	for _, p := range parts {
		static, _ := cc.ExpandHostlist(p.SlurmStaticNames(cluster.Name))
		for _, n := range static {
			ts = append(ts, monitoring.Target{Node: n, Role: cc.RoleCompute, Partition: p.Name})
		}
		dynamic, _ := cc.ExpandHostlist(p.SlurmDynamicNames(cluster.Name))
		for _, n := range dynamic {
			if st, ok := nodes.state[n]; ok && !strings.ContainsAny(st, "~#%") {
				ts = append(ts, monitoring.Target{Node: n, Role: cc.RoleCompute, Partition: p.Name})
			}
		}
	}
	return ts
}
