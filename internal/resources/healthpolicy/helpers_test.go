package healthpolicy_test

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/healthpolicy"
)

// factories serves the provider with this resource, whether or not the provider registers it yet.
var factories = acctest.FactoriesWith(healthpolicy.NewResource)

const addr = "hypercompute_health_policy.test"

// apiCluster is a training cluster made through the API (acctest.APICluster) with the partition
// keys cpu (n2-standard-4) and a3 (a3-highgpu-8g).
func apiCluster(t *testing.T, env *acctest.Env, name string) string {
	t.Helper()
	return env.APICluster(t, acctest.APIClusterSpec(name),
		[]cc.Partition{{Name: "cpu", MachineType: "n2-standard-4", StaticNodes: 2}, {Name: "a3", MachineType: "a3-highgpu-8g", StaticNodes: 2}})
}

// fakeController plays the controller agent's policy handling in API-only tests: it decodes every
// health policy key as the agent does and reports its generation applied; a key that went away
// loses its report. A key the agent could not decode is reported nowhere.
type fakeController struct {
	svc *instances.Service
	key string

	mu       sync.Mutex
	reported map[string]bool
	paused   bool
}

func startFakeController(t *testing.T, env *acctest.Env, cluster string) *fakeController {
	t.Helper()
	svc, key := env.ControllerVM(t, cluster)
	f := &fakeController{svc: svc, key: key, reported: map[string]bool{}}
	acctest.Every(t, 50*time.Millisecond, f.tick)
	return f
}

func (f *fakeController) pause(p bool) { f.mu.Lock(); f.paused = p; f.mu.Unlock() }

func (f *fakeController) tick() {
	f.mu.Lock()
	defer f.mu.Unlock()
	inst, ok := f.svc.Instance(f.key)
	if !ok || f.paused {
		return
	}
	now := map[string]bool{}
	for _, it := range inst.GetMetadata().GetItems() {
		if !strings.HasPrefix(it.GetKey(), cc.HealthPolicyKeyPrefix) {
			continue
		}
		p, err := cc.DecodeHealthPolicy([]byte(it.GetValue()))
		if err != nil {
			continue
		}
		now[p.Name] = true
		_ = f.svc.PutGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.HealthPolicyAttr(p.Name), p.Generation)
	}
	for name := range f.reported {
		if !now[name] {
			_ = f.svc.DeleteGuestAttribute(f.key, cc.GuestAttributeNamespace, cc.HealthPolicyAttr(name))
		}
	}
	f.reported = now
}

// controllerPolicy is the policy the provider wrote under its key on the controller.
func controllerPolicy(env *acctest.Env, cluster, name string) (cc.HealthPolicy, bool) {
	v, ok := env.ControllerKey(cluster, cc.HealthPolicyKey(name))
	if !ok {
		return cc.HealthPolicy{}, false
	}
	p, err := cc.DecodeHealthPolicy([]byte(v))
	return p, err == nil
}

func regexpOf(s string) *regexp.Regexp { return regexp.MustCompile(s) }
