package recipejob_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// monitoringConfig is a real cluster with monitoring on (Prometheus on the controller, a 5 s
// scrape), a CPU partition of two static nodes, a partition of one dynamic node, a health policy whose disk
// check drains a node whose /tmp runs full, and the CPU recipe training on both static nodes.
func monitoringConfig(agentPath, agentSHA string) string {
	return acctest.ClusterConfig("hmo", "file://"+agentPath, agentSHA, `  deletion_protection = false
  timeouts            = { create = "5m", update = "3m" }
  monitoring          = { prometheus = true, scrape_interval = "5s", cloud_monitoring = true }
`) + acctest.RuntimeCPUPartitionConfig + `
resource "hypercompute_node_partition" "dyn" {
  cluster                = hypercompute_training_cluster.c.id
  name                   = "dyn"
  machine_type           = "n2-standard-2"
  max_dynamic_node_count = 1
  slurm                  = { resume_timeout = 180 }
  timeouts               = { create = "5m" }
}

resource "hypercompute_health_policy" "disk" {
  cluster          = hypercompute_training_cluster.c.id
  name             = "disk"
  partitions       = [hypercompute_node_partition.cpu.name]
  interval_seconds = 2
  checks           = [{ name = "disk", paths = ["/tmp"], min_free_gb = 0.05, schedules = ["periodic"], action = "drain" }]
  timeouts         = { create = "3m", delete = "2m" }
}
` + acctest.RuntimeTinyGPTJob("long", "cpu", `  overrides  = { max_steps = 1000000 }
  checkpoint = { interval = "10s" }
  wait_for   = "running"
`)
}

// Issue 21's proof on the local runtime: with monitoring on, the controller's Prometheus scrapes
// every VM (targets up, the dynamic node too once it powers up), the CPU recipe's step, loss and
// MFU series come in and the step rises, and a health check's drain fires its alert — all read
// through Prometheus' own HTTP API on the controller.
func TestAccMonitoring_localRuntime(t *testing.T) {
	acctest.RequireTorch(t)
	env, agentPath, agentSHA := acctest.NewSlurmRuntime(t)
	const ctl = "hmo-controller"
	api := func(path string) (json.RawMessage, error) {
		out, err := env.RunOn(30*time.Second, ctl, "curl", "-sS", "--fail-with-body", "http://"+ctl+":9090/api/v1/"+path)
		if err != nil {
			return nil, fmt.Errorf("GET /api/v1/%s: %v: %s", path, err, out)
		}
		var r struct {
			Status string          `json:"status"`
			Data   json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Status != "success" {
			return nil, fmt.Errorf("GET /api/v1/%s: %q (%v)", path, out, err)
		}
		return r.Data, nil
	}
	diagnose := func() string {
		out, _ := env.RunOn(30*time.Second, ctl, "bash", "-c",
			"tail -n 15 /var/log/hypercompute/prometheus.log; grep -i -E 'prometheus|metrics|monitoring' /var/log/hypercompute/agent.log | tail -n 15; cat /var/lib/hypercompute/prometheus/targets.json")
		return out
	}
	waitFor := func(what string, timeout time.Duration, ok func() (bool, string)) error {
		deadline := time.Now().Add(timeout)
		for {
			done, state := ok()
			if done {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("timed out after %s waiting for %s; last: %s\n%s", timeout, what, state, diagnose())
			}
			time.Sleep(time.Second)
		}
	}
	// targetsUp: every target Prometheus has is up, and the named nodes are among them.
	targetsUp := func(nodes ...string) (bool, string) {
		data, err := api("targets?state=active")
		if err != nil {
			return false, err.Error()
		}
		var r struct {
			ActiveTargets []struct {
				Labels    map[string]string `json:"labels"`
				Health    string            `json:"health"`
				LastError string            `json:"lastError"`
			} `json:"activeTargets"`
		}
		json.Unmarshal(data, &r)
		up := map[string]bool{}
		var state []string
		for _, tg := range r.ActiveTargets {
			if tg.Labels["job"] != "hypercompute" {
				continue
			}
			up[tg.Labels["node"]] = tg.Health == "up"
			state = append(state, tg.Labels["node"]+"="+tg.Health+" "+tg.LastError)
		}
		for _, n := range nodes {
			if !up[n] {
				return false, strings.Join(state, "; ")
			}
		}
		return true, ""
	}
	// value is an instant query's single value.
	value := func(q string) (float64, error) {
		data, err := api("query?query=" + strings.NewReplacer(`"`, "%22", "{", "%7B", "}", "%7D", " ", "%20", "=", "%3D").Replace(q))
		if err != nil {
			return 0, err
		}
		var r struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		}
		json.Unmarshal(data, &r)
		if len(r.Result) != 1 {
			return 0, fmt.Errorf("%s: %d series: %s", q, len(r.Result), data)
		}
		s, _ := r.Result[0].Value[1].(string)
		return strconv.ParseFloat(s, 64)
	}
	// values is an instant query's series by their node label (figures the test logs).
	values := func(q string) string {
		data, err := api("query?query=" + strings.NewReplacer(`"`, "%22", "{", "%7B", "}", "%7D", " ", "%20", "=", "%3D", "[", "%5B", "]", "%5D").Replace(q))
		if err != nil {
			return err.Error()
		}
		var r struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		}
		json.Unmarshal(data, &r)
		var out []string
		for _, s := range r.Result {
			out = append(out, fmt.Sprintf("%s=%v", s.Metric["node"], s.Value[1]))
		}
		return strings.Join(out, " ")
	}
	start := time.Now()
	check := func(*terraform.State) error {
		t.Logf("apply done after %s", time.Since(start).Round(time.Second))
		if err := waitFor("every VM's target up", 2*time.Minute, func() (bool, string) {
			return targetsUp(ctl, "hmo-cpu-0", "hmo-cpu-1")
		}); err != nil {
			return err
		}
		t.Logf("targets up after %s", time.Since(start).Round(time.Second))
		// The job's series: the step rises between two scrapes, the loss and MFU are reported.
		var first float64
		if err := waitFor("the job's step series", time.Minute, func() (bool, string) {
			v, err := value(`hypercompute_job_step{recipe_job="long"}`)
			first = v
			return err == nil && v > 0, fmt.Sprint(err)
		}); err != nil {
			return err
		}
		if err := waitFor("the job's step to rise", time.Minute, func() (bool, string) {
			v, err := value(`hypercompute_job_step{recipe_job="long"}`)
			return err == nil && v > first, fmt.Sprintf("%v (first %v) %v", v, first, err)
		}); err != nil {
			return err
		}
		for _, q := range []string{`hypercompute_job_loss{recipe_job="long"}`, `hypercompute_job_mfu{recipe_job="long"}`, `hypercompute_job_tokens_per_second{recipe_job="long"}`} {
			if err := waitFor(q+" > 0", time.Minute, func() (bool, string) {
				v, err := value(q)
				return err == nil && v > 0, fmt.Sprintf("%v %v", v, err)
			}); err != nil {
				return err
			}
		}
		t.Logf("job series rising after %s", time.Since(start).Round(time.Second))
		// The dynamic node joins the targets once a job powers it up.
		powerUp := time.Now()
		out, err := env.Slurm(time.Minute, ctl, "sbatch --parsable -p dyn -N 1 -w hmo-dyn-d0 -J hold-d0 --wrap 'sleep 900'")
		if err != nil {
			return fmt.Errorf("sbatch: %v: %s", err, out)
		}
		defer env.Slurm(time.Minute, ctl, "scancel "+strings.TrimSpace(out))
		if err := waitFor("the dynamic node's target up", 4*time.Minute, func() (bool, string) {
			return targetsUp(ctl, "hmo-cpu-0", "hmo-cpu-1", "hmo-dyn-d0")
		}); err != nil {
			return err
		}
		t.Logf("dynamic node's target up %s after its job was submitted", time.Since(powerUp).Round(time.Second))
		t.Logf("scrape seconds: %s", values(`scrape_duration_seconds{job="hypercompute"}`))
		t.Logf("agent resident bytes: %s", values(`process_resident_memory_bytes{job="hypercompute"}`))
		t.Logf("agent CPU seconds per second over 1m: %s", values(`rate(process_cpu_seconds_total{job="hypercompute"}[1m])`))
		t.Logf("samples per scrape: %s", values(`scrape_samples_scraped{job="hypercompute"}`))
		// The same series reach Cloud Monitoring (the local cloud's), written by each VM with its own token:
		// the job's from the controller, the health checks' from the nodes.
		if err := waitFor("the key series in Cloud Monitoring", 2*time.Minute, func() (bool, string) {
			res, err := http.Get("http://" + env.Host + "/emulator/v1/monitoring/timeSeries?prefix=workload.googleapis.com/hypercompute/")
			if err != nil {
				return false, err.Error()
			}
			defer res.Body.Close()
			var all monitoring.ListTimeSeriesResponse
			if err := json.NewDecoder(res.Body).Decode(&all); err != nil {
				return false, err.Error()
			}
			seen := map[string]bool{}
			for _, ts := range all.TimeSeries {
				if ts.Resource != nil && ts.Resource.Type == "gce_instance" && ts.Metric != nil {
					seen[strings.TrimPrefix(ts.Metric.Type, "workload.googleapis.com/hypercompute/")] = true
				}
			}
			var names []string
			for n := range seen {
				names = append(names, n)
			}
			return seen["job_step"] && seen["job_mfu"] && seen["health_check_result"], fmt.Sprint(len(all.TimeSeries), " series: ", strings.Join(names, " "))
		}); err != nil {
			return err
		}
		fault := time.Now()
		defer func() { t.Logf("alert firing %s after the fault", time.Since(fault).Round(time.Second)) }()
		// A health fault: /tmp runs full on hmo-cpu-1, the disk check drains it, the alert fires.
		if out, err := env.RunOn(30*time.Second, "hmo-cpu-1", "mount", "-t", "tmpfs", "-o", "size=1m", "hcfault", "/tmp"); err != nil {
			return fmt.Errorf("mount: %v: %s", err, out)
		}
		return waitFor("HealthCheckDrainedNode firing for hmo-cpu-1", 2*time.Minute, func() (bool, string) {
			data, err := api("alerts")
			if err != nil {
				return false, err.Error()
			}
			var r struct {
				Alerts []struct {
					Labels map[string]string `json:"labels"`
					State  string            `json:"state"`
				} `json:"alerts"`
			}
			json.Unmarshal(data, &r)
			for _, a := range r.Alerts {
				if a.Labels["alertname"] == "HealthCheckDrainedNode" && a.Labels["node"] == "hmo-cpu-1" && a.Labels["check"] == "disk" && a.State == "firing" {
					return true, ""
				}
			}
			return false, string(data)
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		// The dashboard and the alert policies exist with the cluster and go with it.
		CheckDestroy: func(*terraform.State) error {
			for _, path := range []string{"/monitoring/v1/projects/" + acctest.Project + "/dashboards", "/monitoring/v3/projects/" + acctest.Project + "/alertPolicies"} {
				res, err := http.Get("http://" + env.Host + path)
				if err != nil {
					return err
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if strings.Contains(string(body), `"name"`) {
					return fmt.Errorf("left after destroy at %s: %s", path, body)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{{Config: env.Config(monitoringConfig(agentPath, agentSHA)), Check: resource.ComposeTestCheckFunc(
			resource.TestCheckResourceAttrSet("hypercompute_training_cluster.c", "monitoring.dashboard"),
			resource.TestCheckResourceAttr("hypercompute_training_cluster.c", "monitoring.alert_policies.#", "8"),
			check,
		)}},
	})
}
