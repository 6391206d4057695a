package acctest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
)

// FakeJobs plays the controller agent's job handling in API-only tests, where no Slurm runs: for
// every job key on the cluster's controller it reports the job submitted, then running, then
// (unless held) completed with a falling loss; for a key that went away it reports CANCELLING
// once, then deletes the report. It waits for the controller VM to exist, so it may start before
// the apply that creates the cluster.
type FakeJobs struct {
	svc *instances.Service
	key string

	mu      sync.Mutex
	hold    bool
	jobs    map[string]int // name → Slurm job id
	states  map[string]string
	nextID  int
	cancels []string
}

// StartFakeJobs reports the jobs of cluster's controller (in Project and Zone) until the test ends.
func StartFakeJobs(t *testing.T, env *Env, cluster string) *FakeJobs {
	t.Helper()
	svc, key := env.ControllerVM(t, cluster)
	f := &FakeJobs{svc: svc, key: key, jobs: map[string]int{}, states: map[string]string{}}
	Every(t, 100*time.Millisecond, f.tick)
	return f
}

// Hold keeps running jobs from completing (true) or lets them complete (false).
func (f *FakeJobs) Hold(h bool) { f.mu.Lock(); f.hold = h; f.mu.Unlock() }

// Cancelled names the jobs whose keys went away while they were pending or running, in order.
func (f *FakeJobs) Cancelled() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cancels...)
}

func (f *FakeJobs) tick() {
	inst, ok := f.svc.Instance(f.key)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	wanted := map[string]bool{}
	for _, it := range inst.GetMetadata().GetItems() {
		name, ok := strings.CutPrefix(it.GetKey(), cc.JobKeyPrefix)
		if !ok {
			continue
		}
		wanted[name] = true
		var j recipes.Job
		if err := json.Unmarshal([]byte(it.GetValue()), &j); err != nil {
			continue
		}
		f.report(name, j)
	}
	for name, state := range f.states {
		if wanted[name] {
			continue
		}
		if state != "CANCELLING" && state != "COMPLETED" {
			f.cancels = append(f.cancels, name)
			f.states[name] = "CANCELLING"
			continue
		}
		_ = f.svc.DeleteGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.JobAttr(name))
		delete(f.states, name)
		delete(f.jobs, name)
	}
}

// report moves job name one state on and writes its report.
func (f *FakeJobs) report(name string, j recipes.Job) {
	id := f.jobs[name]
	prev := f.states[name]
	if id == 0 {
		f.nextID++
		id = f.nextID
		f.jobs[name] = id
	}
	state := map[string]string{"": "PENDING", "PENDING": "RUNNING", "RUNNING": "COMPLETED", "COMPLETED": "COMPLETED"}[prev]
	if f.hold && state == "COMPLETED" && prev != "COMPLETED" {
		state = "RUNNING"
	}
	f.states[name] = state
	p := recipes.Progress{MaxSteps: j.MaxSteps, Restarts: 0}
	rep := cc.JobReport{Generation: j.Generation, JobID: id, State: state, LogPath: j.RunDir + fmt.Sprintf("/slurm-%d.out", id),
		SubmitTime: "2026-12-01T21:00:00Z"}
	if state != "PENDING" {
		rep.StartTime = "2026-12-01T21:00:01Z"
		p.Step, p.FirstLoss, p.LastLoss = j.MaxSteps/2, 5.5, 3.0
		p.LastCheckpointStep, p.Checkpoints = j.MaxSteps/2, 1
		p.MFU, p.TrainSeconds, p.PeakTFLOPS = 0.31, 12.5, 0.005
	}
	if state == "COMPLETED" {
		rep.EndTime = "2026-12-01T21:01:00Z"
		p.Step, p.LastLoss, p.LastCheckpointStep, p.Checkpoints = j.MaxSteps, 2.0, j.MaxSteps, 2
	}
	rep.Progress, _ = json.Marshal(p)
	v, _ := cc.EncodeJobReport(rep)
	_ = f.svc.PutGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.JobAttr(name), v)
}
