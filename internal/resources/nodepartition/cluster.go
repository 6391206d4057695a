package nodepartition

import (
	"context"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// clusterInfo is what a partition learns from the cluster's controller VM: the cluster's own
// configuration (hypercompute-cluster), the partitions written so far, and the identity and
// network every node of the cluster shares with the controller.
type clusterInfo struct {
	ref        cc.ClusterID
	controller *computepb.Instance
	cfg        cc.Cluster
	// parts are the partitions in the controller's metadata, by name; broken holds the keys that
	// do not decode (another partition's problem, reported by the agent).
	parts  map[string]cc.Partition
	broken map[string]error

	network, subnetwork string // self links of the controller's nic0
	serviceAccounts     []*computepb.ServiceAccount
	tags                []string
	publicIPs           bool
}

func getController(ctx context.Context, cl *gcp.Clients, c cc.ClusterID) (*computepb.Instance, error) {
	inst, _, err := tfutil.ReadController(ctx, cl, c)
	return inst, err
}

func metadataItems(inst *computepb.Instance) map[string]string {
	return tfutil.MetadataMap(inst.GetMetadata())
}

// readCluster reads the controller and decodes the cluster it holds.
func readCluster(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID) (*clusterInfo, error) {
	inst, cfg, err := tfutil.ReadController(ctx, cl, ref)
	if err != nil {
		return nil, err
	}
	return clusterFrom(ref, inst, cfg), nil
}

// clusterFrom gathers what partitions need from the controller and the cluster it holds.
func clusterFrom(ref cc.ClusterID, inst *computepb.Instance, cfg cc.Cluster) *clusterInfo {
	items := metadataItems(inst)
	ci := &clusterInfo{ref: ref, controller: inst, cfg: cfg, parts: map[string]cc.Partition{}, broken: map[string]error{}}
	for k, v := range items {
		if name, ok := strings.CutPrefix(k, cc.PartitionKeyPrefix); ok {
			p, err := cc.DecodePartition(cfg.Name, []byte(v))
			if err != nil {
				ci.broken[name] = err
				continue
			}
			ci.parts[name] = p
		}
	}
	// The cluster's own record of where its VMs run wins; a cluster written without one shares the
	// controller's network and identity.
	if nics := inst.GetNetworkInterfaces(); len(nics) > 0 {
		ci.network, ci.subnetwork = nics[0].GetNetwork(), nics[0].GetSubnetwork()
	}
	for _, sa := range inst.GetServiceAccounts() {
		ci.serviceAccounts = append(ci.serviceAccounts, &computepb.ServiceAccount{Email: sa.Email, Scopes: slices.Clone(sa.GetScopes())})
	}
	if cl := cfg.Cloud; cl != nil {
		if cl.Network != "" && cl.Subnet != "" {
			ci.network, ci.subnetwork = cl.Network, cl.Subnet
		}
		// Nodes run as the cluster's compute role: storage and telemetry, no Compute.
		if id := cl.Identity(cc.RoleCompute); id.Email != "" {
			ci.serviceAccounts = []*computepb.ServiceAccount{{Email: proto.String(id.Email), Scopes: slices.Clone(id.Scopes)}}
		}
		ci.publicIPs = cl.PublicIPs
	}
	ci.tags = slices.Clone(inst.GetTags().GetItems())
	return ci
}

// partitionsWith is every partition of the cluster with p in place of its namesake (or without
// it, for p == nil and a name), sorted by name.
func (ci *clusterInfo) partitionsWith(name string, p *cc.Partition) []cc.Partition {
	var out []cc.Partition
	for n, q := range ci.parts {
		if n != name {
			out = append(out, q)
		}
	}
	if p != nil {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b cc.Partition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// setPartitionKey writes (value != nil) or removes the partition's key on the controller, racing
// other partitions and the cluster on the metadata fingerprint (tfutil.SetMetadataKey). It returns
// the controller as the write left it.
func setPartitionKey(ctx context.Context, cl *gcp.Clients, ref cc.ClusterID, inst *computepb.Instance, key string, value *string) (*computepb.Instance, error) {
	return tfutil.SetMetadataKey(ctx, cl, tfutil.ControllerVM(ref), inst, key, value)
}
