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
	inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: c.project, Zone: c.zone, Instance: c.controller()})
	if gcp.IsNotFound(err) {
		return nil, fmt.Errorf("%w: %s in %s (is the training cluster %s created?)", errNoCluster, c.controller(), c.zone, c.id())
	}
	if err != nil {
		return nil, fmt.Errorf("reading the controller %s: %w", c.controller(), gcp.Classify(err))
	}
	return inst, nil
}

func metadataItems(inst *computepb.Instance) map[string]string {
	out := map[string]string{}
	for _, it := range inst.GetMetadata().GetItems() {
		out[it.GetKey()] = it.GetValue()
	}
	return out
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

// setPartitionKey writes (value != nil) or removes the partition's key on the controller. The
// write is fingerprint-checked: another partition or the cluster may write the same metadata at
// the same time, and then Compute answers 412; the write is retried on fresh metadata with a new
// requestId (the same requestId would replay the failed call). It returns the controller as the
// write left it.
func setPartitionKey(ctx context.Context, cl *gcp.Clients, ref clusterRef, inst *computepb.Instance, key string, value *string) (*computepb.Instance, error) {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		items := inst.GetMetadata().GetItems()
		var next []*computepb.Items
		found := false
		for _, it := range items {
			if it.GetKey() == key {
				found = true
				if value != nil {
					next = append(next, &computepb.Items{Key: proto.String(key), Value: proto.String(*value)})
				}
				continue
			}
			next = append(next, &computepb.Items{Key: it.Key, Value: it.Value})
		}
		if !found {
			if value == nil {
				return inst, nil
			}
			next = append(next, &computepb.Items{Key: proto.String(key), Value: proto.String(*value)})
		} else if value != nil && metadataItems(inst)[key] == *value {
			return inst, nil
		}
		all := map[string]string{}
		for _, it := range next {
			all[it.GetKey()] = it.GetValue()
		}
		if err := cc.CheckMetadataSize(all); err != nil {
			return nil, fmt.Errorf("the controller's metadata would exceed Compute's limits: %w", err)
		}
		op, err := cl.Instances.SetMetadata(ctx, &computepb.SetMetadataInstanceRequest{
			Project: ref.project, Zone: ref.zone, Instance: ref.controller(), RequestId: gcp.NewRequestIDPtr(),
			MetadataResource: &computepb.Metadata{Fingerprint: inst.GetMetadata().Fingerprint, Items: next},
		})
		if err == nil {
			_, err = cl.WaitCompute(ctx, op)
		} else {
			err = gcp.Classify(err)
		}
		if err == nil {
			return ref.getController(ctx, cl)
		}
		if !gcp.IsPreconditionFailed(err) || attempt >= 20 {
			return nil, fmt.Errorf("writing %s on the controller %s: %w", key, ref.controller(), err)
		}
		// Someone else wrote the metadata first: read it again and redo the change on top.
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
		delay = min(delay*2, 2*time.Second)
		if inst, err = ref.getController(ctx, cl); err != nil {
			return nil, err
		}
	}
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

// guestAttributes reads the controller's hypercompute/ attributes; none yet is an empty map.
func guestAttributes(ctx context.Context, cl *gcp.Clients, ref clusterRef) (map[string]string, error) {
	ga, err := cl.Instances.GetGuestAttributes(ctx, &computepb.GetGuestAttributesInstanceRequest{
		Project: ref.project, Zone: ref.zone, Instance: ref.controller(), QueryPath: proto.String(cc.GuestAttributeNamespace + "/"),
	})
	out := map[string]string{}
	if gcp.IsNotFound(err) {
		return out, nil
	}
	if err != nil {
		return nil, gcp.Classify(err)
	}
	for _, e := range ga.GetQueryValue().GetItems() {
		out[e.GetKey()] = e.GetValue()
	}
	return out, nil
}

// untilApplied waits until the controller reports config-hash equal to the hash of the cluster and
// every partition in its metadata now (not only this one's: another partition applied at the same
// time is part of what the agent applies). It fails with the agent's own words when the agent
// rejected that configuration or failed.
func (w appliedWait) untilApplied(ctx context.Context) error {
	var lastPhase, lastHash, expected string
	err := pollUntil(ctx, w.poll, func() (bool, error) {
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
		attrs, err := guestAttributes(ctx, w.cl, w.ref)
		if err != nil {
			return false, err
		}
		lastPhase, lastHash = attrs[cc.GuestAttrPhase], attrs[cc.GuestAttrConfigHash]
		if rest, ok := strings.CutPrefix(attrs[cc.GuestAttrConfigError], expected+" "); ok {
			return false, fmt.Errorf("the controller %s rejected the configuration with %s and kept the previous one: %s", w.ref.controller(), w.what, rest)
		}
		switch lastPhase {
		case cc.PhaseError, cc.PhaseLauncherFailed:
			return false, fmt.Errorf("the controller %s failed (phase %s): %s", w.ref.controller(), lastPhase, attrs[cc.GuestAttrError])
		}
		return lastPhase == cc.PhaseReady && lastHash == expected, nil
	})
	if err != nil && ctx.Err() != nil {
		if lastPhase == "" {
			lastPhase = "none reported"
		}
		return fmt.Errorf("timed out waiting for the controller %s to apply the configuration with %s (config hash %s); last phase seen: %s, last applied hash: %q. Check the controller's serial console",
			w.ref.controller(), w.what, short(expected), lastPhase, short(lastHash))
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
	err = pollUntil(ctx, w.poll, func() (bool, error) {
		attrs, err := guestAttributes(ctx, w.cl, w.ref)
		if err != nil {
			return false, err
		}
		id, done, perr := cc.ParseDrained(attrs[cc.DrainedAttr(partition)])
		if perr != nil || id != drain.ID {
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

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// pollUntil calls check until it is done or fails, from 100 ms backing off to max.
func pollUntil(ctx context.Context, maxDelay time.Duration, check func() (bool, error)) error {
	delay := 100 * time.Millisecond
	if maxDelay <= 0 {
		maxDelay = 5 * time.Second
	}
	for {
		done, err := check()
		if done || err != nil {
			return err
		}
		if err := sleep(ctx, delay); err != nil {
			return err
		}
		delay = min(delay*3/2, maxDelay)
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
