package cloudmon_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	monitoring "google.golang.org/api/monitoring/v3"
	"google.golang.org/api/option"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

const project = "proj-agent"

func api(t *testing.T) (*emulatortest.Env, *monitoring.Service) {
	t.Helper()
	e := emulatortest.Start(t)
	svc, err := monitoring.NewService(context.Background(), option.WithEndpoint(e.URL+"/monitoring/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	return e, svc
}

func list(t *testing.T, svc *monitoring.Service, filter string, since time.Time) []*monitoring.TimeSeries {
	t.Helper()
	res, err := svc.Projects.TimeSeries.List("projects/" + project).Filter(filter).
		IntervalStartTime(since.Format(time.RFC3339Nano)).IntervalEndTime(time.Now().Add(time.Minute).Format(time.RFC3339Nano)).Context(context.Background()).Do()
	if err != nil {
		t.Fatalf("list %s: %v", filter, err)
	}
	return res.TimeSeries
}

// What the agent's writer sends is listed back from the emulator's Cloud Monitoring: metric types under
// workload.googleapis.com/hypercompute/, gce_instance with the VM's labels, one point per interval,
// counters as CUMULATIVE; series outside the key set are not written.
func TestWriterSeriesReachCloudMonitoring(t *testing.T) {
	_, svc := api(t)
	begin := time.Now().Add(-time.Second)
	step := 10.0
	w := &cloudmon.Writer{
		API:      svc,
		Instance: cloudmon.Instance{Project: project, Zone: "us-central1-a", InstanceID: "4242"},
		Filter:   cloudmon.KeySeries,
		Labels:   map[string]string{cloudmon.ClusterLabel: "hc"},
		Sources: []cloudmon.Source{cloudmon.SourceFunc(func() ([]cloudmon.Sample, error) {
			step += 5
			return []cloudmon.Sample{
				{Name: cloudmon.JobStep, Labels: map[string]string{"recipe_job": "tiny", "partition": "cpu"}, Value: step},
				{Name: cloudmon.JobMFU, Labels: map[string]string{"recipe_job": "tiny", "partition": "cpu"}, Value: 0.41},
				{Name: cloudmon.GPUXID, Labels: map[string]string{"gpu": "0", "Hostname": "hc-a3-0"}, Value: 79},
				{Name: cloudmon.HealthRepairsTotal, Labels: map[string]string{"partition": "a3", "action": "reboot", "outcome": "failed"}, Value: 1, Cumulative: true},
				{Name: "go_goroutines", Value: 12},
			}, nil
		})},
	}
	for range 2 {
		if err := w.Write(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	steps := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/job_step" AND metric.labels.recipe_job = "tiny" AND metric.labels.cluster = "hc" AND resource.labels.instance_id = "4242"`, begin)
	if len(steps) != 1 || len(steps[0].Points) != 2 || *steps[0].Points[0].Value.DoubleValue != 20 || *steps[0].Points[1].Value.DoubleValue != 15 {
		t.Fatalf("job_step series %+v: want one series with the points 20, 15 (newest first)", steps)
	}
	if r := steps[0].Resource; r.Type != "gce_instance" || r.Labels["zone"] != "us-central1-a" || r.Labels["project_id"] != project {
		t.Errorf("resource %+v", r)
	}
	xid := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/dcgm_fi_dev_xid_errors" AND metric.labels.hostname = "hc-a3-0"`, begin)
	if len(xid) != 1 {
		t.Errorf("XID series (label Hostname lower-cased): %+v", xid)
	}
	rep := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/health_repairs_total"`, begin)
	if len(rep) != 1 || rep[0].MetricKind != "CUMULATIVE" || rep[0].Points[0].Interval.StartTime == "" {
		t.Errorf("repairs counter %+v: want CUMULATIVE with a start time", rep)
	}
	if got := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/go_goroutines"`, begin); len(got) != 0 {
		t.Errorf("a series outside KeySeries was written: %+v", got)
	}
	if s := w.Stats(); s.Written != 8 || s.Dropped != 0 {
		t.Errorf("stats %+v, want 8 written", s)
	}
}

// More than 200 series go in several calls; a failing source and refused series are dropped and counted,
// the rest is written.
func TestWriterBatchesAndDrops(t *testing.T) {
	e, svc := api(t)
	begin := time.Now().Add(-time.Second)
	many := cloudmon.SourceFunc(func() ([]cloudmon.Sample, error) {
		var out []cloudmon.Sample
		for i := range 450 {
			out = append(out, cloudmon.Sample{Name: cloudmon.HealthCheckResult, Labels: map[string]string{"check": "gpu", "node": fmt.Sprintf("n%03d", i)}, Value: 1})
		}
		return out, nil
	})
	broken := cloudmon.SourceFunc(func() ([]cloudmon.Sample, error) { return nil, errors.New("nvidia-smi: not found") })
	w := &cloudmon.Writer{API: svc, Instance: cloudmon.Instance{Project: project, Zone: "us-central1-a", InstanceID: "1"}, Sources: []cloudmon.Source{broken, many}}
	err := w.Write(context.Background())
	if err == nil {
		t.Fatal("a failing source was not reported")
	}
	if got := list(t, svc, `metric.type = "workload.googleapis.com/hypercompute/health_check_result"`, begin); len(got) != 450 {
		t.Fatalf("%d series written, want 450", len(got))
	}
	if c := e.Server.Calls.Count("monitoring.projects.timeSeries.create"); c != 3 {
		t.Errorf("%d timeSeries.create calls, want 3 (200 + 200 + 50)", c)
	}
	// A series whose value type changed is refused by the API; the others of its call are written.
	bad := &cloudmon.Writer{API: svc, Instance: cloudmon.Instance{Project: project, Zone: "us-central1-a", InstanceID: "1"},
		Sources: []cloudmon.Source{cloudmon.SourceFunc(func() ([]cloudmon.Sample, error) {
			return []cloudmon.Sample{
				{Name: cloudmon.HealthCheckResult, Labels: map[string]string{"check": "gpu", "node": "n000"}, Value: 1, Cumulative: true},
				{Name: cloudmon.GoodputRatio, Labels: map[string]string{"kind": "runtime", "window": "1d", "partition": ""}, Value: 0.93},
			}, nil
		})}}
	if err := bad.Write(context.Background()); err == nil {
		t.Fatal("a refused series was not reported")
	}
	if s := bad.Stats(); s.Written != 1 || s.Dropped != 1 || s.FailedCalls != 1 {
		t.Errorf("stats %+v, want 1 written, 1 dropped in 1 failed call", s)
	}
}

// With the VM's own token, as the local cloud mints it: the monitoring.write scope lets the writer
// write; a VM without it gets Google's 403 and the points are dropped and counted.
func TestWriterWithTheVMsToken(t *testing.T) {
	e, _ := api(t)
	write := func(scopes ...string) (cloudmon.Stats, error) {
		tok, _ := e.Server.Tokens.Mint("projects/"+project+"/zones/us-central1-a/instances/vm", "sa@"+project+".iam.gserviceaccount.com", scopes)
		svc, err := monitoring.NewService(context.Background(), option.WithEndpoint(e.URL+"/monitoring/"),
			option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"})))
		if err != nil {
			t.Fatal(err)
		}
		w := &cloudmon.Writer{API: svc, Instance: cloudmon.Instance{Project: project, Zone: "us-central1-a", InstanceID: "5"},
			Sources: []cloudmon.Source{cloudmon.SourceFunc(func() ([]cloudmon.Sample, error) {
				return []cloudmon.Sample{{Name: cloudmon.GoodputRatio, Labels: map[string]string{"kind": "runtime", "window": "1d", "partition": ""}, Value: 0.8}}, nil
			})}}
		err = w.Write(context.Background())
		return w.Stats(), err
	}
	if s, err := write(gcpScope("logging.write"), gcpScope("monitoring.write")); err != nil || s.Written != 1 {
		t.Fatalf("with monitoring.write: %+v %v", s, err)
	}
	s, err := write(gcpScope("devstorage.read_only"))
	if err == nil || !strings.Contains(err.Error(), "insufficient authentication scopes") || s.Dropped != 1 {
		t.Fatalf("without monitoring.write: %+v %v, want a 403 and the point dropped", s, err)
	}
}

func gcpScope(s string) string { return "https://www.googleapis.com/auth/" + s }
