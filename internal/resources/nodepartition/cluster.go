package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

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
	ref        clusterRef
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

// errNoCluster says the cluster's controller VM does not exist.
var errNoCluster = errors.New("the cluster's controller VM does not exist")

func (c clusterRef) getController(ctx context.Context, cl *gcp.Clients) (*computepb.Instance, error) {
	inst, err := findController(ctx, cl, c)
	if tfutil.IsNotFound(err) {
		return nil, fmt.Errorf("%w: %s in %s (is the training cluster %s created?)", errNoCluster, c.controller(), c.zone, c.id())
	}
	if err != nil {
		return nil, fmt.Errorf("reading the controller %s: %w", c.controller(), err)
	}
	return inst, nil
}

func metadataItems(inst *computepb.Instance) map[string]string {
	return tfutil.MetadataMap(inst.GetMetadata())
}

// vm is the controller as the shared metadata and report helpers name it.
func (c clusterRef) vm() tfutil.VM {
	return tfutil.VM{Project: c.project, Zone: c.zone, Name: c.controller()}
}

// readCluster reads the controller and decodes the cluster it holds.
func readCluster(ctx context.Context, cl *gcp.Clients, ref clusterRef) (*clusterInfo, error) {
	inst, err := ref.getController(ctx, cl)
	if err != nil {
		return nil, err
	}
	return clusterFrom(ref, inst)
}

func clusterFrom(ref clusterRef, inst *computepb.Instance) (*clusterInfo, error) {
	items := metadataItems(inst)
	raw, ok := items[cc.ClusterKey]
	if !ok {
		return nil, fmt.Errorf("the controller %s has no %s metadata: it was not created by hypercompute_training_cluster", ref.controller(), cc.ClusterKey)
	}
	cfg, err := cc.DecodeCluster([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("the cluster configuration on %s is invalid: %w", ref.controller(), err)
	}
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
		if cl.ServiceAccount != "" {
			ci.serviceAccounts = []*computepb.ServiceAccount{{Email: proto.String(cl.ServiceAccount), Scopes: slices.Clone(cl.Scopes)}}
		}
		ci.publicIPs = cl.PublicIPs
	}
	ci.tags = slices.Clone(inst.GetTags().GetItems())
	return ci, nil
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
func setPartitionKey(ctx context.Context, cl *gcp.Clients, ref clusterRef, inst *computepb.Instance, key string, value *string) (*computepb.Instance, error) {
	return tfutil.SetMetadataKey(ctx, cl, ref.vm(), inst, key, value)
}

// appliedWait is how the provider waits for the controller's agent to take a configuration.
type appliedWait struct {
	cl  *gcp.Clients
	ref clusterRef
	// what names the change in errors ("partition a3mega").
	what string
	// poll bounds the interval between two looks.
	poll time.Duration
}

// report waits on the controller's report. Its failure is checked after its rejection of this
// configuration, which names the cause better.
func (w appliedWait) report() tfutil.ReportWait {
	return tfutil.ReportWait{Clients: w.cl, VM: w.ref.vm(), Max: w.poll, IgnoreFailure: true}
}

// untilApplied waits until the controller reports config-hash equal to the hash of the cluster and
// every partition in its metadata now (not only this one's: another partition applied at the same
// time is part of what the agent applies). It fails with the agent's own words when the agent
// rejected that configuration or failed.
func (w appliedWait) untilApplied(ctx context.Context) error {
	var expected string
	last, err := w.report().Until(ctx, func(r tfutil.Report) (bool, error) {
		inst, err := w.ref.getController(ctx, w.cl)
		if err != nil {
			return false, err
		}
		ci, err := clusterFrom(w.ref, inst)
		if err != nil {
			return false, err
		}
		expected, err = cc.Hash(ci.cfg, ci.partitionsWith("", nil))
		if err != nil {
			return false, fmt.Errorf("the cluster's configuration cannot be rendered: %w", err)
		}
		if rest, ok := r.Rejected(expected); ok {
			return false, fmt.Errorf("the controller %s rejected the configuration with %s and kept the previous one: %s", w.ref.controller(), w.what, rest)
		}
		if r.Failed() {
			return false, fmt.Errorf("the controller %s failed (phase %s): %s", w.ref.controller(), r.Phase, r.Error)
		}
		return r.Ready(expected), nil
	})
	if err != nil && ctx.Err() != nil {
		phase := last.Phase
		if phase == "" {
			phase = "none reported"
		}
		return fmt.Errorf("timed out waiting for the controller %s to apply the configuration with %s (config hash %s); last phase seen: %s, last applied hash: %q. Check the controller's serial console",
			w.ref.controller(), w.what, tfutil.ShortHash(expected), phase, tfutil.ShortHash(last.ConfigHash))
	}
	return err
}

// untilDrained waits for the agent's drain report and hands each node to gone as soon as the
// report names it (drained, no job left), so idle nodes go at once and busy ones when their jobs
// end. It returns once every node of the drain was handed over.
func (w appliedWait) untilDrained(ctx context.Context, partition string, drain cc.Drain, gone func([]string) error) error {
	want, err := cc.ExpandHostlist(drain.Nodes)
	if err != nil {
		return err
	}
	pending := slices.Clone(want)
	_, err = w.report().Until(ctx, func(r tfutil.Report) (bool, error) {
		id, done, ok := r.Drained(partition)
		if !ok || id != drain.ID {
			return false, nil
		}
		var ready []string
		pending = slices.DeleteFunc(pending, func(n string) bool {
			if slices.Contains(done, n) {
				ready = append(ready, n)
				return true
			}
			return false
		})
		if len(ready) > 0 {
			if err := gone(ready); err != nil {
				return false, err
			}
		}
		return len(pending) == 0, nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for %s to finish their jobs: they are drained (no new jobs start on them) and will be deleted by the next apply once idle; set force_scale_down = true to delete them now, killing their jobs",
			cc.CompressHostlist(pending))
	}
	return err
}
