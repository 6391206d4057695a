package recipejob_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/recipejob"
)

// factories serves the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(recipejob.NewResource)

const addr = "hypercompute_recipe_job.test"

// apiCluster is a training cluster made through the API (acctest.APICluster) with the partition
// keys (cpu: 2 static n2-standard-4 nodes; l4 and a3h: 2 static g2-standard-24 and
// a3-highgpu-8g nodes; a3m: 2 static a3-megagpu-8g nodes), /home, a bucket mounted at /gcs/ckpt
// and, with lustre, Managed Lustre at /lustre.
func apiCluster(t *testing.T, env *acctest.Env, name string, lustre bool) string {
	t.Helper()
	c := acctest.APIClusterSpec(name)
	// A checkpointing bucket: the storage with a write bandwidth figure in the catalog, so a job
	// checkpointing there gets its checkpoint cost estimated at plan.
	c.Mounts.Buckets = []cc.BucketMount{{Bucket: name + "-ckpt", MountPoint: "/gcs/ckpt", Profile: cc.BucketProfileCheckpointing}}
	if lustre {
		// 18,000 GiB at 500 MBps/TiB: 8,789 MB/s of checkpoint bandwidth.
		c.Mounts.Lustre = &cc.LustreMount{Address: "10.0.9.3", FSName: "lfs", CapacityGiB: 18000, Throughput: 500}
	}
	return env.APICluster(t, c, []cc.Partition{
		{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2},
		{Name: "l4", MachineType: "g2-standard-24", StaticNodes: 2},
		{Name: "a3h", MachineType: "a3-highgpu-8g", StaticNodes: 2},
		{Name: "a3m", MachineType: "a3-megagpu-8g", StaticNodes: 2},
	})
}

// fakeJobs plays the controller agent's job handling in API-only tests: for every job key it
// reports the job submitted, then running, then (unless held) completed with a falling loss; for
// a key that went away it reports CANCELLING once, then deletes the report.
type fakeJobs struct {
	svc *instances.Service
	key string

	mu      sync.Mutex
	hold    bool
	jobs    map[string]int // name → Slurm job id
	states  map[string]string
	nextID  int
	cancels []string
}

func startFakeJobs(t *testing.T, env *acctest.Env, cluster string) *fakeJobs {
	t.Helper()
	svc, key := env.ControllerVM(t, cluster)
	f := &fakeJobs{svc: svc, key: key, jobs: map[string]int{}, states: map[string]string{}}
	acctest.Every(t, 100*time.Millisecond, f.tick)
	return f
}

func (f *fakeJobs) setHold(h bool) { f.mu.Lock(); f.hold = h; f.mu.Unlock() }

func (f *fakeJobs) cancelled() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cancels...)
}

func (f *fakeJobs) tick() {
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
		}
		if state == "COMPLETED" {
			rep.EndTime = "2026-12-01T21:01:00Z"
			p.Step, p.LastLoss, p.LastCheckpointStep, p.Checkpoints = j.MaxSteps, 2.0, j.MaxSteps, 2
		}
		rep.Progress, _ = json.Marshal(p)
		v, _ := cc.EncodeJobReport(rep)
		_ = f.svc.PutGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.JobAttr(name), v)
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

func jobConfig(cluster, name, partition, extra string) string {
	return fmt.Sprintf(`
resource "hypercompute_recipe_job" "test" {
  cluster   = %q
  name      = %q
  partition = %q
  recipe = {
    model = "tiny-gpt"
    size  = "2m"
    mode  = "pretrain"
  }
%s
}
`, cluster, name, partition, extra)
}
