package nodepartition

import (
	"context"
	"errors"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// What the benchmarks drive directly, below Terraform: the resource's own apply, refresh and plan
// code, without terraform's process start-up and state handling around them.

// benchDesired is a partition with every default ModifyPlan fills.
func benchDesired(clusterID, name, machine string, static int) (*desired, error) {
	ref, err := cc.ParseClusterID(clusterID)
	if err != nil {
		return nil, err
	}
	m, _ := catalog.Machine(machine)
	return &desired{
		cluster: ref, name: name, prefix: cc.NodeNamePrefix(ref.Name, name), machine: m, project: ref.Project,
		zone: ref.Zone, region: regionOf(ref.Zone), static: static, model: modelStandard,
		bootGB: defaultBootDiskGB(m), bootType: defaultBootDiskType(m), localSSDs: bundledLocalSSDs(m), image: defaultImage(m),
		slurm: slurmOptions{exclusive: true}, waitForNodes: true,
	}, nil
}

func regionOf(zone string) string {
	r, _ := catalog.RegionOf(zone)
	return r
}

// ApplyForBench runs Create's reconcile for a partition of static nodes.
func ApplyForBench(ctx context.Context, cl *gcp.Clients, clusterID, name, machine string, static int) error {
	d, err := benchDesired(clusterID, name, machine, static)
	if err != nil {
		return err
	}
	_, err = (&applier{cl: cl, d: d, poll: 50 * time.Millisecond}).reconcile(ctx)
	return err
}

// InstanceForBench is one VM exactly as the partition makes its nodes, for the per-VM baseline.
func InstanceForBench(ctx context.Context, cl *gcp.Clients, clusterID, name, machine string) (*computepb.Instance, error) {
	d, err := benchDesired(clusterID, name, machine, 1)
	if err != nil {
		return nil, err
	}
	p, err := (&applier{cl: cl, d: d}).prepare(ctx)
	if err != nil {
		return nil, err
	}
	pr := p.props
	return &computepb.Instance{
		MachineType: pr.MachineType, Disks: pr.Disks, NetworkInterfaces: pr.NetworkInterfaces, Metadata: pr.Metadata,
		Labels: pr.Labels, Scheduling: pr.Scheduling, ServiceAccounts: pr.ServiceAccounts, Tags: pr.Tags,
		ReservationAffinity: pr.ReservationAffinity, ResourcePolicies: pr.ResourcePolicies,
	}, nil
}

// RefreshAndPlanForBench runs what `terraform plan` asks of the provider for an unchanged
// partition: Read (observe and flatten) and then ModifyPlan. It returns how long each took and the
// node count the refresh saw.
func RefreshAndPlanForBench(ctx context.Context, p *providerdata.Data, clusterID, name string, static int) (refresh, plan time.Duration, total int, err error) {
	ref, err := cc.ParseClusterID(clusterID)
	if err != nil {
		return 0, 0, 0, err
	}
	r := &partitionResource{}
	r.Provider = p
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)

	m := model{
		Cluster: types.StringValue(clusterID), Name: types.StringValue(name), Zone: types.StringValue(ref.Zone),
		StaticNodeCount: types.Int64Value(int64(static)), ForceScaleDown: types.BoolValue(false), AllowPartial: types.BoolValue(false),
		Provisioning: types.ObjectNull(provisioningAttrTypes), Placement: types.ObjectNull(placementAttrTypes),
		BootDisk: types.ObjectNull(bootDiskAttrTypes), Slurm: types.ObjectNull(slurmAttrTypes),
		Labels: types.MapNull(types.StringType), EffectiveLabels: types.MapNull(types.StringType),
	}
	start := time.Now()
	o, err := observe(ctx, p.Clients, ref, name, ref.Zone)
	if err != nil {
		return 0, 0, 0, err
	}
	if d := flatten(ctx, p, ref, o, &m); d.HasError() {
		return 0, 0, 0, errFromDiags(d)
	}
	refresh = time.Since(start)

	m.Timeouts.Object = types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})
	state := tfsdk.State{Schema: sresp.Schema}
	if d := state.Set(ctx, &m); d.HasError() {
		return 0, 0, 0, errFromDiags(d)
	}
	cfg := m
	cfg.ID, cfg.NodeNamePrefix, cfg.StaticNodeNames, cfg.DynamicNodeNames = types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()
	cfg.InstanceTemplate, cfg.PlacementPolicy, cfg.NodeNames = types.StringNull(), types.StringNull(), types.StringNull()
	cfg.NodesTotal, cfg.NodesRunning, cfg.EffectiveLabels = types.Int64Null(), types.Int64Null(), types.MapNull(types.StringType)
	cfg.Provisioning, cfg.BootDisk, cfg.LocalSSDCount, cfg.Image = types.ObjectNull(provisioningAttrTypes), types.ObjectNull(bootDiskAttrTypes), types.Int64Null(), types.StringNull()
	config := tfsdk.Config{Schema: sresp.Schema}
	cstate := tfsdk.State{Schema: sresp.Schema}
	if d := cstate.Set(ctx, &cfg); d.HasError() {
		return 0, 0, 0, errFromDiags(d)
	}
	config.Raw = cstate.Raw
	start = time.Now()
	req := resource.ModifyPlanRequest{Config: config, Plan: tfsdk.Plan{Schema: sresp.Schema, Raw: state.Raw}, State: state}
	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	r.ModifyPlan(ctx, req, &resp)
	plan = time.Since(start)
	if resp.Diagnostics.HasError() {
		return 0, 0, 0, errFromDiags(resp.Diagnostics)
	}
	if len(resp.RequiresReplace) > 0 || !resp.Plan.Raw.Equal(state.Raw) {
		return refresh, plan, len(o.inv), errPlanNotEmpty
	}
	return refresh, plan, len(o.inv), nil
}

var errPlanNotEmpty = errors.New("the plan of an unchanged partition is not empty")

func errFromDiags(d diag.Diagnostics) error {
	var msgs []string
	for _, e := range d.Errors() {
		msgs = append(msgs, e.Summary()+": "+e.Detail())
	}
	return errors.New(strings.Join(msgs, "; "))
}

// SetNodeErrorsAfterForTest shortens how long the wait for registration trusts the controller's
// report alone before it reads the nodes' own; it returns the restore function.
func SetNodeErrorsAfterForTest(d time.Duration) (restore func()) {
	old := nodeErrorsAfter
	nodeErrorsAfter = d
	return func() { nodeErrorsAfter = old }
}
