package agent

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// A running job's progress becomes the job series the alert policies read; a job without progress
// only reports whether it runs.
func TestJobSamples(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	p, _ := json.Marshal(recipes.Progress{Step: 120, LastLoss: 2.5, MFU: 0.4, IntervalSeconds: 600,
		StartedAt: now.Add(-time.Hour).Format(time.RFC3339), LastCheckpointTime: now.Add(-5 * time.Minute).Format(time.RFC3339)})
	got := map[string]float64{}
	for _, s := range jobSamples(map[string]*jobRecord{
		"tiny":   {Name: "tiny", Report: &cc.JobReport{State: "RUNNING", Progress: p}},
		"queued": {Name: "queued", Report: &cc.JobReport{State: "PENDING"}},
	}, now) {
		got[s.Labels["recipe_job"]+" "+s.Name] = s.Value
	}
	want := map[string]float64{
		"tiny " + cloudmon.JobRunning: 1, "tiny " + cloudmon.JobStep: 120, "tiny " + cloudmon.JobLoss: 2.5, "tiny " + cloudmon.JobMFU: 0.4,
		"tiny " + cloudmon.JobCheckpointInterval: 600, "tiny " + cloudmon.JobCheckpointAge: 300,
		"tiny " + cloudmon.JobRunStart: float64(now.Add(-time.Hour).Unix()), "queued " + cloudmon.JobRunning: 0,
	}
	if len(got) != len(want) {
		t.Fatalf("samples %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
