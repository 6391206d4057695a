package monitoring

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian package prometheus; scripts/install-deps.sh installs it)")
	}
	return p
}

// The rendered rules pass `promtool check rules`, and `promtool test rules` shows each alert
// firing on its fault and staying quiet on a healthy series (testdata/rules_test.yml).
func TestRules_promtool(t *testing.T) {
	tool := promtool(t)
	m := &cc.Monitoring{ScrapeInterval: 30, NoProgressIntervals: 10, GoodputTarget: 0.8}
	rules, err := Rules(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RulesFile), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadFile("testdata/rules_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules_test.yml"), cases, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, "check", "rules", filepath.Join(dir, RulesFile)).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s\n%s", err, out, rules)
	}
	cmd := exec.Command(tool, "test", "rules", "rules_test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
	// Every alert the issue names is shipped.
	for _, a := range []string{"HealthCheckDrainedNode", "RepairFailing", "RepairEscalated", "JobNoProgress", "CheckpointStale", "GoodputBelowTarget", "GPUECCErrors", "GPUXIDErrors"} {
		if !strings.Contains(string(rules), "alert: "+a+"\n") {
			t.Errorf("rules lack alert %s", a)
		}
	}
}

// Other thresholds render into the rules: a shorter stall window and another goodput target.
func TestRules_thresholds(t *testing.T) {
	rules, err := Rules(&cc.Monitoring{ScrapeInterval: 5, NoProgressIntervals: 3, GoodputTarget: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"changes(hypercompute_job_step[15s]) == 0", "> 15\n", `window="1d"} < 0.95`, "for: 10s", "interval: 5s"} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("rules lack %q:\n%s", want, rules)
		}
	}
}

// The configuration passes `promtool check config` with its rules and target file, and the
// targets are the VMs at their names and the metrics port, labelled, in a stable order.
func TestConfig_promtool(t *testing.T) {
	tool := promtool(t)
	dir := t.TempDir()
	m := &cc.Monitoring{}
	rules, err := Rules(m)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, RulesFile), rules, 0o644)
	ts := []Target{{Node: "hc-cpu-d0", Role: cc.RoleCompute, Partition: "cpu"}, {Node: "hc-controller", Role: cc.RoleController}}
	os.WriteFile(filepath.Join(dir, TargetsFile), Targets(ts, 9410), 0o644)
	conf := Config("hc", m, dir, "10.0.0.2:9090")
	os.WriteFile(filepath.Join(dir, ConfigFile), conf, 0o644)
	if out, err := exec.Command(tool, "check", "config", filepath.Join(dir, ConfigFile)).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s\n%s", err, out, conf)
	}
	if !strings.Contains(string(conf), "honor_labels: true") {
		t.Errorf("the controller's per-node series would lose their node label to the target's:\n%s", conf)
	}
	var groups []struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	if err := json.Unmarshal(Targets(ts, 9410), &groups); err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].Targets[0] != "hc-controller:9410" || groups[1].Targets[0] != "hc-cpu-d0:9410" ||
		groups[1].Labels["partition"] != "cpu" || groups[1].Labels["role"] != "compute" || groups[0].Labels["node"] != "hc-controller" {
		t.Errorf("targets: %+v", groups)
	}
}
