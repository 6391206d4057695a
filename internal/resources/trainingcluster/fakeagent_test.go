package trainingcluster_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// fakeAgent plays the node agent of every cluster VM in API-only tests, where VMs do not boot: it
// reads each VM's metadata from the emulator and publishes guest attributes the way the agent
// does — phase=ready and the applied config-hash, or config-error for a configuration it rejects
// (keeping the hash it applied before), or a bootstrap error for VMs told to fail.
type fakeAgent struct {
	svc *instances.Service
	env *acctest.Env

	mu sync.Mutex
	// reject returns slurmctld's complaint about a cluster config, "" to accept it.
	reject func(clusterconfig.Cluster) string
	// failing maps a VM name to the error text its bootstrap reports.
	failing map[string]string
	// seen counts the cluster configs the controller was asked to apply.
	seen map[string]bool
}

func startFakeAgent(t *testing.T, env *acctest.Env) *fakeAgent {
	t.Helper()
	svc, ok := env.Server.Component("instances").(*instances.Service)
	if !ok {
		t.Fatal("the emulator has no instances service")
	}
	f := &fakeAgent{svc: svc, env: env, failing: map[string]string{}, seen: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			f.tick()
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

func (f *fakeAgent) setReject(fn func(clusterconfig.Cluster) string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reject = fn
}

func (f *fakeAgent) failVM(vm, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[vm] = text
}

func (f *fakeAgent) tick() {
	for _, rec := range f.env.Store().List(instances.KindInstances, "") {
		inst, ok := f.svc.Instance(rec.Key)
		if !ok || inst.GetStatus() != "RUNNING" {
			continue
		}
		f.play(rec.Key, inst)
	}
}

func (f *fakeAgent) play(key string, inst *computepb.Instance) {
	md := map[string]string{}
	for _, it := range inst.GetMetadata().GetItems() {
		md[it.GetKey()] = it.GetValue()
	}
	nodeJSON, ok := md[clusterconfig.NodeConfigKey]
	if !ok {
		return
	}
	node, err := clusterconfig.DecodeNode([]byte(nodeJSON))
	if err != nil {
		f.put(key, "phase", "error")
		f.put(key, "error", err.Error())
		return
	}
	f.mu.Lock()
	failText, failing := f.failing[inst.GetName()]
	reject := f.reject
	f.mu.Unlock()
	if failing {
		f.put(key, "phase", "error")
		f.put(key, "error", failText)
		return
	}
	if node.Role != clusterconfig.RoleController {
		f.put(key, "phase", "ready")
		return
	}
	c, err := clusterconfig.DecodeCluster([]byte(md[clusterconfig.ClusterKey]))
	if err != nil {
		f.put(key, "phase", "error")
		f.put(key, "error", err.Error())
		return
	}
	var parts []clusterconfig.Partition
	for k, v := range md {
		if strings.HasPrefix(k, clusterconfig.PartitionKeyPrefix) {
			if p, err := clusterconfig.DecodePartition(c.Name, []byte(v)); err == nil {
				parts = append(parts, p)
			}
		}
	}
	hash, err := clusterconfig.Hash(c, parts)
	if err != nil {
		f.put(key, "phase", "error")
		f.put(key, "error", err.Error())
		return
	}
	f.mu.Lock()
	f.seen[hash] = true
	f.mu.Unlock()
	cur := f.svc.GuestAttributes(key).Values["hypercompute"]
	if reject != nil {
		if msg := reject(c); msg != "" {
			if cur["config-hash"] == "" {
				f.put(key, "phase", "error")
				f.put(key, "error", msg)
				return
			}
			f.put(key, "config-error", hash+" "+msg)
			return
		}
	}
	f.put(key, "config-hash", hash)
	f.put(key, "agent-version", "fake")
	f.put(key, "phase", "ready")
}

// put writes a guest attribute when it differs, as the agent's metadata-server PUT would.
func (f *fakeAgent) put(key, name, value string) {
	if f.svc.GuestAttributes(key).Values["hypercompute"][name] == value {
		return
	}
	_ = f.svc.PutGuestAttribute(key, "hypercompute", name, value)
}

// controllerHash is the config-hash the fake controller reports.
func (f *fakeAgent) controllerHash(cluster string) string {
	key := "projects/" + acctest.Project + "/zones/" + acctest.Zone + "/instances/" + clusterconfig.ControllerName(cluster)
	return f.svc.GuestAttributes(key).Values["hypercompute"]["config-hash"]
}
