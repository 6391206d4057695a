// Package power is Slurm power saving for cloud nodes: slurmctld runs the agent's ResumeProgram
// with the nodes to power up, SuspendProgram with the idle nodes to power down and
// ResumeFailProgram with the nodes that did not come up in ResumeTimeout. Each is one bulk action
// on the Compute API: VMs are created with bulkInsert from their partition's instance template
// (the very template the provider creates the static nodes from) and deleted concurrently.
//
// Every function is idempotent, because slurmctld may call again for the same nodes: a VM that
// exists already is kept (a stopped one is started), a VM that is already gone is deleted.
package power

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/bulk"
)

// Env is what the power programs act in: the controller's clients (the VM's own credentials, or
// the emulator), its project and zone, and the cluster and partitions it runs.
type Env struct {
	Clients    *gcp.Clients
	Project    string
	Zone       string
	Cluster    cc.Cluster
	Partitions []cc.Partition
}

// labelPartition is the label every VM of a partition carries (hypercompute_node_partition sets
// it in the partition's template); its value is the partition's node name prefix.
const labelPartition = "hypercompute-partition"

// NodesError names the nodes an action failed for, so the agent can tell Slurm about exactly
// those (e.g. mark them down with the reason) and leave the others alone.
type NodesError struct {
	Nodes []string
	Err   error
	// Reasons is, for Resume, each failed node's own error (the Compute API's "CODE: message"
	// where it gave one per VM), the reason Slurm is told (MarkResumeFailed).
	Reasons map[string]string
}

func (e *NodesError) Error() string {
	return fmt.Sprintf("%s: %v", cc.CompressHostlist(e.Nodes), e.Err)
}

func (e *NodesError) Unwrap() error { return e.Err }

// group is the nodes of one partition an action touches.
type group struct {
	part    cc.Partition
	project string
	zone    string
	prefix  string
	nodes   []string
}

// groups sorts Slurm's node list by partition. A node of no partition is an error: slurmctld only
// powers nodes of its own configuration, so it means the configuration changed under it.
func (env Env) groups(nodelist string) ([]*group, error) {
	names, err := cc.ExpandHostlist(nodelist)
	if err != nil {
		return nil, err
	}
	byName := map[string]*group{}
	var order []*group
	var unknown []string
	for _, n := range names {
		var g *group
		for _, p := range env.Partitions {
			if _, _, ok := p.NodeIndex(env.Cluster.Name, n); ok {
				g = byName[p.Name]
				if g == nil {
					g = &group{part: p, project: firstOf(p.Project, env.Project), zone: firstOf(p.Zone, env.Zone), prefix: p.Prefix(env.Cluster.Name)}
					byName[p.Name] = g
					order = append(order, g)
				}
				break
			}
		}
		if g == nil {
			unknown = append(unknown, n)
			continue
		}
		g.nodes = append(g.nodes, n)
	}
	if len(unknown) > 0 {
		return order, &NodesError{Nodes: unknown, Err: errors.New("these nodes belong to no partition of the cluster's configuration")}
	}
	return order, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Resume creates the VMs of the nodes: one bulkInsert per partition (and per 5,000 nodes) from the
// partition's instance template, names given one by one so each VM is its Slurm node. VMs that
// exist already are kept; stopped ones (Spot with termination action STOP) are started. Nodes
// that could not be created are returned in a *NodesError with the API's reasons; the others are
// being created.
func Resume(ctx context.Context, env Env, nodelist string) error {
	groups, gerr := env.groups(nodelist)
	reasons := map[string]string{}
	var errs []error
	if gerr != nil {
		errs = append(errs, gerr)
		var ne *NodesError
		if errors.As(gerr, &ne) {
			for _, n := range ne.Nodes {
				reasons[n] = ne.Err.Error()
			}
		}
	}
	for _, g := range groups {
		bad, err := resumeGroup(ctx, env.Clients, g)
		if err != nil {
			maps.Copy(reasons, bad)
			errs = append(errs, fmt.Errorf("partition %s: %w", g.part.Name, err))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &NodesError{Nodes: slices.Sorted(maps.Keys(reasons)), Err: errors.Join(errs...), Reasons: reasons}
}

// allFailed gives every node the same reason.
func allFailed(nodes []string, err error) map[string]string {
	out := make(map[string]string, len(nodes))
	for _, n := range nodes {
		out[n] = err.Error()
	}
	return out
}

// resumeGroup returns the nodes it could not bring up, each with its reason.
func resumeGroup(ctx context.Context, cl *gcp.Clients, g *group) (map[string]string, error) {
	if g.part.InstanceTemplate == "" {
		err := errors.New("the partition's configuration names no instance template yet (apply the hypercompute_node_partition again)")
		return allFailed(g.nodes, err), err
	}
	existing, err := listVMs(ctx, cl, g.project, g.zone, g.prefix)
	if err != nil {
		return allFailed(g.nodes, err), err
	}
	var create, start []string
	for _, n := range g.nodes {
		switch existing[n] {
		case "":
			create = append(create, n)
		case "TERMINATED", "STOPPED", "SUSPENDED":
			start = append(start, n)
		}
	}
	failed := map[string]string{}
	var errs []error
	for i := 0; i < len(create); i += bulk.MaxVMs {
		chunk := create[i:min(i+bulk.MaxVMs, len(create))]
		bad, err := bulkCreate(ctx, cl, g, chunk)
		if err != nil {
			maps.Copy(failed, bad)
			errs = append(errs, err)
		}
	}
	startErrs := map[string]string{}
	var mu sync.Mutex
	bad, err := forEach(ctx, start, func(ctx context.Context, n string) error {
		op, err := cl.Instances.Start(ctx, &computepb.StartInstanceRequest{Project: g.project, Zone: g.zone, Instance: n, RequestId: gcp.NewRequestIDPtr()})
		if err == nil {
			_, err = cl.WaitCompute(ctx, op)
		}
		if err = gcp.Classify(err); err != nil {
			mu.Lock()
			startErrs[n] = "starting the stopped VM: " + err.Error()
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		for _, n := range bad {
			failed[n] = startErrs[n]
		}
		errs = append(errs, err)
	}
	return failed, errors.Join(errs...)
}

// bulkCreate creates names from the partition's template. minCount is 1: Slurm asked for these
// nodes one by one, and every node that can be had is worth having; the ones that cannot are
// reported so they are marked down at once instead of after ResumeTimeout.
func bulkCreate(ctx context.Context, cl *gcp.Clients, g *group, names []string) (map[string]string, error) {
	req := bulk.Insert{Project: g.project, Zone: g.zone, Names: names, MinCount: 1, Template: g.part.InstanceTemplate}
	if g.part.Calendar != nil {
		props, err := calendarProperties(ctx, cl, g)
		if err != nil {
			return allFailed(names, err), err
		}
		req.Template, req.Properties = "", props
	}
	done, all, werr := req.Run(ctx, cl)
	if done == nil {
		return allFailed(names, werr), werr
	}
	if all {
		return nil, nil
	}
	reasons, lerr := groupFailures(ctx, cl, g.project, done.GetOperationGroupId())
	if werr != nil {
		// Nothing was kept: every node failed, for the reason the operation gives (each VM's own
		// where the operation group lists it).
		out := allFailed(names, werr)
		for n, r := range reasons {
			if _, ok := out[n]; ok {
				out[n] = r
			}
		}
		return out, fmt.Errorf("%w%s", werr, describe(reasons))
	}
	if lerr != nil {
		return nil, lerr
	}
	failed := map[string]string{}
	for n, r := range reasons {
		if slices.Contains(names, n) {
			failed[n] = r
		}
	}
	if len(failed) == 0 {
		return nil, nil
	}
	return failed, fmt.Errorf("%d of %d VMs were not created%s", len(failed), len(names), describe(reasons))
}

// groupFailures maps each VM of a bulk request that failed to its error ("CODE: message");
// RESOURCE_ALREADY_EXISTS is not a failure (the VM is there).
func groupFailures(ctx context.Context, cl *gcp.Clients, project, groupID string) (map[string]string, error) {
	fs, err := bulk.Failures(ctx, cl, project, groupID)
	out := map[string]string{}
	for _, f := range fs {
		if f.Code != "RESOURCE_ALREADY_EXISTS" {
			out[f.Name] = f.Code + ": " + f.Message
		}
	}
	return out, err
}

// describe writes the distinct reasons once each, with the nodes they hit.
func describe(reasons map[string]string) string {
	byReason := map[string][]string{}
	for n, r := range reasons {
		byReason[r] = append(byReason[r], n)
	}
	keys := make([]string, 0, len(byReason))
	for r := range byReason {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	var parts []string
	for _, r := range keys {
		parts = append(parts, fmt.Sprintf("%s (%s)", r, cc.CompressHostlist(byReason[r])))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; ")
}

// Suspend deletes the VMs of the nodes, all at once (bounded), so a thousand idle nodes go in
// about one operation's latency per 64. A VM that is already gone counts as deleted.
func Suspend(ctx context.Context, env Env, nodelist string) error {
	return deleteNodes(ctx, env, nodelist)
}

// ResumeFail deletes the VMs of nodes that did not register in time: a half-booted VM holds
// capacity and quota, and the next resume creates a fresh one.
func ResumeFail(ctx context.Context, env Env, nodelist string) error {
	return deleteNodes(ctx, env, nodelist)
}

func deleteNodes(ctx context.Context, env Env, nodelist string) error {
	groups, gerr := env.groups(nodelist)
	var failed []string
	var errs []error
	if gerr != nil {
		errs = append(errs, gerr)
	}
	for _, g := range groups {
		bad, err := forEach(ctx, g.nodes, func(ctx context.Context, n string) error {
			return bulk.DeleteVM(ctx, env.Clients, g.project, g.zone, n)
		})
		if err != nil {
			failed = append(failed, bad...)
			errs = append(errs, fmt.Errorf("partition %s: %w", g.part.Name, err))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &NodesError{Nodes: failed, Err: errors.Join(errs...)}
}

// forEach runs fn for every node, bulk.Parallelism at a time, and returns the nodes it failed for.
func forEach(ctx context.Context, nodes []string, fn func(context.Context, string) error) ([]string, error) {
	failed, errs := bulk.ForEach(ctx, nodes, bulk.Parallelism, func(ctx context.Context, n string) error {
		if err := fn(ctx, n); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		return nil
	})
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Errorf("and %d more", len(errs)-3))
	}
	return failed, errors.Join(errs...)
}

// listVMs returns the status of the partition's VMs by name: one list call per 500 VMs.
func listVMs(ctx context.Context, cl *gcp.Clients, project, zone, prefix string) (map[string]string, error) {
	out := map[string]string{}
	err := bulk.ListLabelled(ctx, cl, project, zone, labelPartition, prefix, func(inst *computepb.Instance) {
		out[inst.GetName()] = inst.GetStatus()
	})
	if err != nil {
		return nil, fmt.Errorf("listing the VMs of %s: %w", prefix, err)
	}
	return out, nil
}
