package acctest

import (
	"context"
	"fmt"
	"strings"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
)

// APIClusterSpec is the cluster APICluster makes when a test needs nothing particular: the
// controller named after the cluster, /home on NFS and an agent build that is never fetched.
func APIClusterSpec(name string) cc.Cluster {
	return cc.Cluster{
		Name:       name,
		Controller: cc.Controller{Hostname: cc.ControllerName(name)},
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: "10.0.9.2", Share: "/home"}},
		Agents:     []cc.AgentRef{{Version: "0.1.0", URL: "https://example.com/hypercompute-agent", SHA256: strings.Repeat("ab", 32)}},
	}
}

// ControllerKey is the value of metadata key key on cluster's controller VM, as a resource wrote
// it there; ok is false when the VM or the key is missing.
func (e *Env) ControllerKey(cluster, key string) (value string, ok bool) {
	svc := e.Server.Component("instances").(*instances.Service)
	inst, found := svc.Instance(instances.InstanceKey(Project, Zone, cc.ControllerName(cluster)))
	if !found {
		return "", false
	}
	for _, it := range inst.GetMetadata().GetItems() {
		if it.GetKey() == key {
			return it.GetValue(), true
		}
	}
	return "", false
}

// RemoveControllerKey is a check that deletes metadata key key on cluster's controller VM, as
// someone outside Terraform would.
func (e *Env) RemoveControllerKey(cluster, key string) func(*terraform.State) error {
	return e.EditControllerKey(cluster, key, func(string) (string, bool) { return "", false })
}

// EditControllerKey is a check that replaces metadata key key on cluster's controller VM with what
// edit makes of its value (keep false: delete it), as someone outside Terraform — or an earlier
// version of the provider — would have written it.
func (e *Env) EditControllerKey(cluster, key string, edit func(value string) (string, bool)) func(*terraform.State) error {
	return func(*terraform.State) error {
		ctx, c, vm := context.Background(), e.Clients(), cc.ControllerName(cluster)
		inst, err := c.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: Project, Zone: Zone, Instance: vm})
		if err != nil {
			return fmt.Errorf("reading %s: %w", vm, err)
		}
		md := inst.GetMetadata()
		kept := md.GetItems()[:0:0]
		for _, it := range md.GetItems() {
			if it.GetKey() != key {
				kept = append(kept, it)
			} else if v, keep := edit(it.GetValue()); keep {
				it.Value = &v
				kept = append(kept, it)
			}
		}
		md.Items = kept
		if _, err := wait(ctx, c, func() (*compute.Operation, error) {
			return c.Instances.SetMetadata(ctx, &computepb.SetMetadataInstanceRequest{Project: Project, Zone: Zone, Instance: vm, MetadataResource: md})
		}); err != nil {
			return fmt.Errorf("editing %s on %s: %w", key, vm, err)
		}
		return nil
	}
}

// CheckControllerKeyGone is a check that metadata key key is no longer on cluster's controller VM,
// as a destroy leaves it.
func (e *Env) CheckControllerKeyGone(cluster, key string) func(*terraform.State) error {
	return func(*terraform.State) error {
		if _, ok := e.ControllerKey(cluster, key); ok {
			return fmt.Errorf("%s is still on %s", key, cc.ControllerName(cluster))
		}
		return nil
	}
}
