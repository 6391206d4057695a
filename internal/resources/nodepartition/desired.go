package nodepartition

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// desired is a fully known plan reduced to plain values: what the partition should be. Create and
// Update both reconcile the cloud towards it.
type desired struct {
	cluster cc.ClusterID
	name    string
	prefix  string
	machine catalog.MachineType
	project string // the cluster's project: VMs, template and policy live there
	zone    string
	region  string
	static  int
	dynamic int

	model       string
	reservation string
	// futureRes names the calendar partition's future reservation; calendar is its window as the
	// apply read it (calendar.go).
	futureRes   string
	calendar    *cc.Calendar
	maxRun      time.Duration
	termination string

	compact   bool
	bootGB    int64
	bootType  string
	localSSDs int
	image     string
	// startupScript is the user's per-boot script (cc.Node.StartupScript).
	startupScript string
	// storage are the mount paths of the cluster's storage its nodes mount (none: all).
	storage []string
	labels  map[string]string // effective labels, without the system labels

	slurm slurmOptions

	forceScaleDown bool
	// drainTimeout bounds a scale-down's wait for the jobs on removed nodes; drainAction says
	// what happens past it (drainActionFail, drainActionRequeue).
	drainTimeout time.Duration
	drainAction  string
	allowPartial bool
	// waitForNodes: the apply waits until the static nodes registered in Slurm.
	waitForNodes bool
	// roll is how outdated static nodes are replaced (roll.go).
	roll rollPolicy
}

type slurmOptions struct {
	isDefault, exclusive       bool
	maxTime                    string
	resumeTimeout, suspendTime int
	retryAfter                 *int // nil: the default
	features                   []string
	extra                      map[string]string
	// partition is the Slurm partition the node set joins ("": its own name); weight its nodes'
	// Slurm Weight (0: the provisioning model's default).
	partition string
	weight    int
}

// vmLabels are the labels every VM and the template carry: the user's, the provider's defaults,
// and the two the provider finds the VMs by.
func (d *desired) vmLabels() map[string]string {
	out := maps.Clone(d.labels)
	if out == nil {
		out = map[string]string{}
	}
	out[labelCluster] = d.cluster.Name
	out[labelPartition] = d.prefix
	return out
}

// partition is the Slurm side of the partition as the controller's agent reads it.
func (d *desired) partition(template string) cc.Partition {
	return cc.Partition{
		Schema: cc.SchemaVersion, Name: d.name, MachineType: d.machine.Name,
		StaticNodes: d.static, MaxDynamicNodes: d.dynamic,
		Default: d.slurm.isDefault, Exclusive: d.slurm.exclusive, MaxTime: d.slurm.maxTime,
		ResumeTimeout: d.slurm.resumeTimeout, SuspendTime: d.slurm.suspendTime, ResumeRetryAfter: d.slurm.retryAfter,
		Features: d.slurm.features, Extra: d.slurm.extra,
		SlurmPartition: d.slurm.partition, Weight: d.slurm.weight, Provisioning: d.model,
		Project: d.project, Zone: d.zone, InstanceTemplate: template, Calendar: d.calendar,
		StartupScript: d.startupScript, Storage: d.storage,
	}
}

// values feeds the plan-time rules, which run again here at apply where everything is known.
func (d *desired) values() values {
	static, dynamic := int64(d.static), int64(d.dynamic)
	maxRun := ""
	if d.model == modelFlexStart {
		maxRun = formatRunDuration(d.maxRun)
	}
	ssd := int64(d.localSSDs)
	return values{
		clusterName: &d.cluster.Name, clusterZone: &d.cluster.Zone, name: &d.name, machineType: &d.machine.Name,
		zone: &d.zone, static: &static, dynamic: &dynamic, model: &d.model, reservation: &d.reservation,
		futureRes: &d.futureRes, maxRun: &maxRun, termination: &d.termination, compact: &d.compact, image: &d.image,
		localSSDs: &ssd, labels: d.labels,
	}
}

// toDesired reads a plan whose every value is known (ModifyPlan filled the defaults).
func toDesired(ctx context.Context, m *model) (*desired, diag.Diagnostics) {
	var diags diag.Diagnostics
	ref, err := cc.ParseClusterID(m.Cluster.ValueString())
	if err != nil {
		diags.AddAttributeError(pathOf("cluster"), "Invalid cluster", "cluster: "+err.Error())
		return nil, diags
	}
	machine, ok := catalog.Machine(m.MachineType.ValueString())
	if !ok {
		diags.AddAttributeError(pathOf("machine_type"), "Invalid machine_type", "machine_type: "+catalog.ValidateMachineType(m.MachineType.ValueString()).Error())
		return nil, diags
	}
	d := &desired{
		cluster: ref, name: m.Name.ValueString(), machine: machine, project: ref.Project,
		zone: m.Zone.ValueString(), static: int(m.StaticNodeCount.ValueInt64()), dynamic: int(m.MaxDynamicNodeCount.ValueInt64()),
		localSSDs: int(m.LocalSSDCount.ValueInt64()), image: m.Image.ValueString(), startupScript: m.StartupScript.ValueString(),
		forceScaleDown: m.ForceScaleDown.ValueBool(), allowPartial: m.AllowPartial.ValueBool(),
		waitForNodes: m.WaitForNodes.IsNull() || m.WaitForNodes.IsUnknown() || m.WaitForNodes.ValueBool(),
	}
	d.storage = storageOf(ctx, m.Storage, &diags)
	d.drainTimeout, d.drainAction = drainPolicy(m, &diags)
	d.roll = rollPolicyOf(ctx, m.RollingUpdate, &diags)
	if d.zone == "" {
		d.zone = ref.Zone
	}
	d.region, _ = catalog.RegionOf(d.zone)
	d.prefix = cc.NodeNamePrefix(ref.Name, d.name)

	var prov provisioningModel
	diags.Append(m.Provisioning.As(ctx, &prov, tfutil.ObjectOpts)...)
	d.model = prov.Model.ValueString()
	if d.model == "" {
		d.model = modelStandard
	}
	d.reservation = prov.Reservation.ValueString()
	d.futureRes = prov.FutureReservation.ValueString()
	d.termination = prov.TerminationAction.ValueString()
	if d.model == modelFlexStart {
		d.maxRun = maxRunDuration
		if s := prov.MaxRunDuration.ValueString(); s != "" {
			if d.maxRun, err = parseRunDuration(s); err != nil {
				diags.AddAttributeError(pathOf("provisioning.max_run_duration"), "Invalid provisioning.max_run_duration", "provisioning.max_run_duration: "+err.Error())
			}
		}
	}
	if !m.Placement.IsNull() && !m.Placement.IsUnknown() {
		var pl placementModel
		diags.Append(m.Placement.As(ctx, &pl, tfutil.ObjectOpts)...)
		d.compact = pl.Compact.ValueBool()
	}
	var boot bootDiskModel
	diags.Append(m.BootDisk.As(ctx, &boot, tfutil.ObjectOpts)...)
	d.bootGB, d.bootType = boot.SizeGB.ValueInt64(), boot.Type.ValueString()
	if d.bootGB == 0 {
		d.bootGB = defaultBootDiskGB(machine)
	}
	if d.bootType == "" {
		d.bootType = defaultBootDiskType(machine)
	}
	if d.image == "" {
		d.image = defaultImage(machine)
	}
	d.labels, _ = tfutil.LabelMap(ctx, m.EffectiveLabels)

	if !m.Slurm.IsNull() && !m.Slurm.IsUnknown() {
		var s slurmModel
		diags.Append(m.Slurm.As(ctx, &s, tfutil.ObjectOpts)...)
		d.slurm = slurmOptions{
			isDefault: s.Default.ValueBool(), exclusive: s.Exclusive.ValueBool(), maxTime: s.MaxTime.ValueString(),
			resumeTimeout: int(s.ResumeTimeout.ValueInt64()), suspendTime: int(s.SuspendTime.ValueInt64()),
			partition: s.Partition.ValueString(), weight: int(s.Weight.ValueInt64()),
		}
		// Naming its own name is the default spelled out: the key records it as the default.
		if d.slurm.partition == d.name {
			d.slurm.partition = ""
		}
		if !s.RetryAfter.IsNull() && !s.RetryAfter.IsUnknown() {
			v := int(s.RetryAfter.ValueInt64())
			d.slurm.retryAfter = &v
		}
		if !s.Features.IsNull() {
			diags.Append(s.Features.ElementsAs(ctx, &d.slurm.features, false)...)
		}
		if !s.Extra.IsNull() {
			diags.Append(s.Extra.ElementsAs(ctx, &d.slurm.extra, false)...)
		}
	}
	for _, p := range check(d.values()) {
		diags.AddAttributeError(pathOf(p.attr), "Invalid "+p.attr, p.msg)
	}
	return d, diags
}

func formatRunDuration(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

// pathOf is the framework path of a dotted attribute name.
func pathOf(dotted string) pathType { return tfutil.AttrPath(dotted) }
