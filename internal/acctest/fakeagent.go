package acctest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// FakeAgent plays the agent of controller and login VMs in API-only tests, where VMs do not boot
// (compute nodes are left to the test: it writes their reports itself). Whenever a controller's
// metadata changes it does what the agent promises in the payload contract: it renders the
// cluster and every partition key, reports config-hash (or config-error, keeping the hash it
// applied before, when Reject says slurmctld would refuse; phase=error with slurmctld's words when
// there is no configuration to keep) and phase=ready, and answers a partition's Drain with the
// drained-<partition> report, leaving out nodes the test marked busy until they are released — the
// way a node running a job stays until the job ends. It reports registered-<partition> as the
// static nodes whose VMs exist, less those the test told it to keep unregistered (the way a node
// whose slurmd never starts stays "idle~"). A login VM reports phase=ready; a VM told to fail
// (FailVM) reports phase=error with the given text instead.
type FakeAgent struct {
	svc   *instances.Service
	store *core.Store
	kick  chan struct{}

	mu     sync.Mutex
	reject func(cc.Cluster, []cc.Partition) string
	busy   map[string]bool
	// jobs are the jobs RunJob put on busy nodes, reported in drain-jobs-<partition>.
	jobs   map[string]cc.DrainJob
	drains map[string]cc.Drain // partition → the last drain the controller was asked for
	// unregistered are nodes never reported registered, whether their VM exists or not.
	unregistered map[string]bool
	// failing maps a VM name to the error text its bootstrap reports.
	failing map[string]string
	// rewrites is the Rewrite generation each controller last saw.
	rewrites map[string]int
}

// StartFakeAgent runs a fake controller agent for every controller VM of env until the test ends.
func StartFakeAgent(t testing.TB, env *emulatortest.Env) *FakeAgent {
	t.Helper()
	svc, ok := env.Server.Component("instances").(*instances.Service)
	if !ok {
		t.Fatal("the emulator has no instances service")
	}
	f := &FakeAgent{svc: svc, store: env.Store(), kick: make(chan struct{}, 1), busy: map[string]bool{}, jobs: map[string]cc.DrainJob{}, drains: map[string]cc.Drain{}, unregistered: map[string]bool{}, failing: map[string]string{}}
	stop := f.store.Watch(func(c core.Change) {
		// Any VM: a node's VM appearing or going changes the registration report.
		if c.Kind == instances.KindInstances {
			f.poke()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f.tick()
			select {
			case <-ctx.Done():
				return
			case <-f.kick:
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { stop(); cancel(); <-done })
	return f
}

func (f *FakeAgent) poke() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// Reject makes the controller refuse configurations: fn returns slurmctld's complaint, "" to
// accept. nil accepts everything again.
func (f *FakeAgent) Reject(fn func(cc.Cluster, []cc.Partition) string) {
	f.mu.Lock()
	f.reject = fn
	f.mu.Unlock()
	f.poke()
}

// SetBusy marks a node as running a job (true) or idle (false): a busy node is never reported
// drained.
func (f *FakeAgent) SetBusy(node string, busy bool) {
	f.mu.Lock()
	f.busy[node] = busy
	f.mu.Unlock()
	f.poke()
}

// RunJob marks a node busy with a job of this id and name, which the drain jobs report names;
// SetBusy(node, false) ends it.
func (f *FakeAgent) RunJob(node string, id int, name string) {
	f.mu.Lock()
	f.busy[node] = true
	f.jobs[node] = cc.DrainJob{ID: id, Name: name, Nodes: node}
	f.mu.Unlock()
	f.poke()
}

// SetUnregistered keeps a node out of its partition's registration report (true), as when its
// slurmd never registers, or lets it register again once its VM exists (false).
func (f *FakeAgent) SetUnregistered(node string, unregistered bool) {
	f.mu.Lock()
	f.unregistered[node] = unregistered
	f.mu.Unlock()
	f.poke()
}

// FailVM makes a VM's bootstrap fail with text as its error.
func (f *FakeAgent) FailVM(vm, text string) {
	f.mu.Lock()
	f.failing[vm] = text
	f.mu.Unlock()
	f.poke()
}

// ControllerHash is the config-hash the controller of a cluster in the test project reports.
func (f *FakeAgent) ControllerHash(cluster string) string {
	return f.get("projects/"+Project+"/zones/"+Zone+"/instances/"+cc.ControllerName(cluster), cc.GuestAttrConfigHash)
}

// Drift reports files of a controller changed out of band, as the agent does when it finds them
// (clusterconfig.GuestAttrConfigDrift); the next apply's raised Rewrite clears it.
func (f *FakeAgent) Drift(cluster string, paths ...string) error {
	key := "projects/" + Project + "/zones/" + Zone + "/instances/" + cc.ControllerName(cluster)
	return f.svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrConfigDrift, cc.FormatDrift(f.get(key, cc.GuestAttrConfigHash), paths))
}

// DrainRequested returns the drain the controller was last asked for on a partition.
func (f *FakeAgent) DrainRequested(partition string) (cc.Drain, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drains[partition]
	return d, ok
}

func (f *FakeAgent) tick() {
	for _, rec := range f.store.List(instances.KindInstances, "") {
		if inst, ok := f.svc.Instance(rec.Key); ok && inst.GetStatus() == "RUNNING" {
			f.play(rec.Key, inst)
		}
	}
}

// role is the role a VM's node config gives it; a VM made without one by a test is a controller
// when its name says so.
func role(inst *computepb.Instance, md map[string]string) cc.Role {
	if raw, ok := md[cc.NodeConfigKey]; ok {
		if n, err := cc.DecodeNode([]byte(raw)); err == nil {
			return n.Role
		}
	}
	if strings.HasSuffix(inst.GetName(), "-controller") {
		return cc.RoleController
	}
	return ""
}

func (f *FakeAgent) play(key string, inst *computepb.Instance) {
	md := map[string]string{}
	for _, it := range inst.GetMetadata().GetItems() {
		md[it.GetKey()] = it.GetValue()
	}
	r := role(inst, md)
	if r != cc.RoleController && r != cc.RoleLogin {
		return
	}
	f.mu.Lock()
	failText, failing := f.failing[inst.GetName()]
	f.mu.Unlock()
	if failing {
		f.put(key, cc.GuestAttrPhase, cc.PhaseError)
		f.put(key, cc.GuestAttrError, failText)
		return
	}
	if r == cc.RoleLogin {
		f.put(key, cc.GuestAttrPhase, cc.PhaseReady)
		return
	}
	raw, ok := md[cc.ClusterKey]
	if !ok {
		return
	}
	c, err := cc.DecodeCluster([]byte(raw))
	if err != nil {
		f.put(key, cc.GuestAttrPhase, cc.PhaseError)
		f.put(key, cc.GuestAttrError, err.Error())
		return
	}
	// The real agent's rendering, health policies included (cc.Render), so the fake reports the
	// hash the agent would.
	parts := cc.PartitionsOf(c.Name, md)
	applied, err := cc.Render(c, parts, cc.HealthPoliciesOf(md))
	hash := applied.Hash()
	if err != nil {
		f.put(key, cc.GuestAttrConfigError, "- "+err.Error())
		return
	}
	f.mu.Lock()
	reject := f.reject
	f.mu.Unlock()
	if reject != nil {
		if msg := reject(c, parts); msg != "" {
			if f.get(key, cc.GuestAttrConfigHash) == "" {
				// Nothing applied before: slurmctld cannot start at all.
				f.put(key, cc.GuestAttrPhase, cc.PhaseError)
				f.put(key, cc.GuestAttrError, msg)
				return
			}
			f.put(key, cc.GuestAttrConfigError, hash+" "+msg)
			return
		}
	}
	// A raised Rewrite generation has the agent put drifted files back (clusterconfig.Cluster.Rewrite).
	f.mu.Lock()
	if f.rewrites == nil {
		f.rewrites = map[string]int{}
	}
	rewrite, seen := f.rewrites[key]
	f.rewrites[key] = c.Rewrite
	f.mu.Unlock()
	if seen && rewrite != c.Rewrite && f.get(key, cc.GuestAttrConfigDrift) != "" {
		_ = f.svc.DeleteGuestAttribute(key, cc.GuestAttributeNamespace, cc.GuestAttrConfigDrift)
	}
	// Registration goes out before the hash, as the agent does.
	f.register(key, c, parts)
	f.put(key, cc.GuestAttrConfigHash, hash)
	f.put(key, cc.GuestAttrAgentVersion, "fake")
	f.put(key, cc.GuestAttrPhase, cc.PhaseReady)
	for _, p := range parts {
		if p.Drain == nil {
			continue
		}
		nodes, _ := cc.ExpandHostlist(p.Drain.Nodes)
		f.mu.Lock()
		f.drains[p.Name] = *p.Drain
		if p.Drain.Requeue {
			// The agent requeues the jobs of a drain that asks for it: its nodes empty.
			for _, n := range nodes {
				f.busy[n] = false
			}
		}
		rep := cc.DrainJobs{ID: p.Drain.ID}
		for _, n := range nodes {
			if j, ok := f.jobs[n]; ok && f.busy[n] {
				rep.Jobs = append(rep.Jobs, j)
			}
		}
		idle := slices.DeleteFunc(nodes, func(n string) bool { return f.busy[n] })
		f.mu.Unlock()
		f.put(key, cc.DrainedAttr(p.Name), cc.FormatDrained(p.Drain.ID, idle))
		f.put(key, cc.DrainJobsAttr(p.Name), cc.FormatDrainJobs(rep))
	}
}

func (f *FakeAgent) get(key, name string) string {
	return f.svc.GuestAttributes(key).Values[cc.GuestAttributeNamespace][name]
}

// put writes a guest attribute when it differs, as the agent's metadata-server PUT would.
func (f *FakeAgent) put(key, name, value string) {
	if f.get(key, name) == value {
		return
	}
	_ = f.svc.PutGuestAttribute(key, cc.GuestAttributeNamespace, name, value)
}

// register reports each partition's static nodes whose VMs exist (in any zone of the project).
func (f *FakeAgent) register(key string, c cc.Cluster, parts []cc.Partition) {
	project, _, _, _ := instances.ParseInstanceKey(key)
	var exist map[string]bool
	for _, p := range parts {
		if p.StaticNodes <= 0 {
			continue
		}
		if exist == nil {
			exist = map[string]bool{}
			for _, rec := range f.store.List(instances.KindInstances, "") {
				if proj, _, name, ok := instances.ParseInstanceKey(rec.Key); ok && proj == project {
					exist[name] = true
				}
			}
		}
		nodes, _ := cc.ExpandHostlist(p.StaticNodeNames(c.Name))
		f.mu.Lock()
		up := slices.DeleteFunc(nodes, func(n string) bool { return !exist[n] || f.unregistered[n] })
		f.mu.Unlock()
		f.put(key, cc.RegisteredAttr(p.Name), cc.CompressHostlist(up))
	}
}
