package nodepartition

// The rolling replacement of static nodes (clusterconfig/roll.go has the protocol with the agent):
// when the nodes' payload changed (the cluster's agent build, mounts, controller address, network
// or identity: what its node_config_hash covers), each static node whose VM still runs the old
// one is drained, given rolling_update.job_timeout for its jobs, deleted, recreated from the new
// template and waited for until it registered, at most max_unavailable at a time and never
// leaving fewer than min_available in service. Dynamic nodes are created from the partition's
// template by the ResumeProgram, so they take the new one at their next power-up.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/bulk"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

const (
	rollRequeue           = "requeue"
	rollFail              = "fail"
	defaultMaxUnavailable = "1"
	defaultJobTimeout     = "1h"
	maxJobTimeout         = 7 * 24 * time.Hour
)

// rollPolicy is the rolling_update block.
type rollPolicy struct {
	maxUnavailable string
	minAvailable   int
	jobTimeout     time.Duration
	onJobTimeout   string
}

type rollingUpdateModel struct {
	MaxUnavailable types.String `tfsdk:"max_unavailable"`
	MinAvailable   types.Int64  `tfsdk:"min_available"`
	JobTimeout     types.String `tfsdk:"job_timeout"`
	OnJobTimeout   types.String `tfsdk:"on_job_timeout"`
}

var rollingUpdateAttrTypes = map[string]attr.Type{
	"max_unavailable": types.StringType, "min_available": types.Int64Type,
	"job_timeout": types.StringType, "on_job_timeout": types.StringType,
}

func clusterNodeConfigHashAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "The cluster's `node_config_hash` (`hypercompute_training_cluster.<name>.node_config_hash`). It is unknown in a " +
			"plan that changes what nodes boot with (the cluster's agent build, mounts, controller, network or service account), so " +
			"this partition's plan shows the update, and the apply replaces its static nodes as `rolling_update` says. Without it, " +
			"the partition notices such a change only at its next refresh after the cluster's apply.",
	}
}

func defaultRollingUpdate() types.Object {
	return types.ObjectValueMust(rollingUpdateAttrTypes, map[string]attr.Value{
		"max_unavailable": types.StringValue(defaultMaxUnavailable), "min_available": types.Int64Value(0),
		"job_timeout": types.StringValue(defaultJobTimeout), "on_job_timeout": types.StringValue(rollRequeue),
	})
}

func rollingUpdateAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true, Computed: true,
		Default: objectdefault.StaticValue(defaultRollingUpdate()),
		MarkdownDescription: "How static nodes are replaced when the cluster's node configuration changed (see `cluster_node_config_hash`): " +
			"a batch is drained (no new job starts there), its jobs get `job_timeout` to end, then its VMs are deleted, recreated " +
			"from the new template and waited for until they registered in Slurm; then the next batch. Dynamic nodes take the new " +
			"template at their next power-up. A roll that fails leaves its batch drained; the next apply continues it.",
		Attributes: map[string]schema.Attribute{
			"max_unavailable": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultMaxUnavailable),
				MarkdownDescription: "Most static nodes replaced at once: a number (`\"2\"`) or a percentage of `static_node_count` (`\"25%\"`, at least one node). Default `\"1\"`.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a number of nodes or a percentage", Check: func(s string) error { _, _, err := parseMaxUnavailable(s); return err }}},
			},
			"min_available": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(0),
				MarkdownDescription: "Fewest static nodes kept in service during a roll; a batch never takes more. Default 0.",
				Validators:          []validator.Int64{int64validator.Between(0, cc.MaxPartitionNodes)},
			},
			"job_timeout": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultJobTimeout),
				MarkdownDescription: "How long the jobs on a drained node may run before `on_job_timeout` applies: a Go duration, `\"0s\"` to `\"168h\"`. Default `\"1h\"`.",
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a duration from 0s to 168h", Check: func(s string) error { _, err := parseJobTimeout(s); return err }}},
			},
			"on_job_timeout": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(rollRequeue),
				MarkdownDescription: "What happens to jobs still running after `job_timeout`: `requeue` (default: the controller requeues them, they restart on nodes in service — from their last checkpoint for recipe jobs) or `fail` (the apply fails naming the nodes; they stay drained and the next apply continues the roll).",
				Validators:          []validator.String{stringvalidator.OneOf(rollRequeue, rollFail)},
			},
		},
	}
}

var maxUnavailableRE = regexp.MustCompile(`^([0-9]{1,6})(%?)$`)

// parseMaxUnavailable reads "N" or "P%".
func parseMaxUnavailable(s string) (n int, percent bool, err error) {
	m := maxUnavailableRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false, fmt.Errorf("%q is neither a number of nodes nor a percentage such as \"25%%\"", s)
	}
	n, _ = strconv.Atoi(m[1])
	percent = m[2] == "%"
	if n < 1 || percent && n > 100 {
		return 0, false, fmt.Errorf("%q must be at least 1 (and a percentage at most 100%%)", s)
	}
	return n, percent, nil
}

func parseJobTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > maxJobTimeout {
		return 0, fmt.Errorf("%q is not a duration from 0s to 168h", s)
	}
	return d, nil
}

// rollPolicyOf reads the rolling_update block (its defaults when absent).
func rollPolicyOf(ctx context.Context, obj types.Object, diags *diag.Diagnostics) rollPolicy {
	r := rollPolicy{maxUnavailable: defaultMaxUnavailable, jobTimeout: time.Hour, onJobTimeout: rollRequeue}
	if obj.IsNull() || obj.IsUnknown() {
		return r
	}
	var m rollingUpdateModel
	diags.Append(obj.As(ctx, &m, tfutil.ObjectOpts)...)
	if v := m.MaxUnavailable.ValueString(); v != "" {
		r.maxUnavailable = v
	}
	r.minAvailable = int(m.MinAvailable.ValueInt64())
	if v := m.JobTimeout.ValueString(); v != "" {
		d, err := parseJobTimeout(v)
		if err != nil {
			diags.AddAttributeError(tfutil.AttrPath("rolling_update.job_timeout"), "Invalid rolling_update.job_timeout", "rolling_update.job_timeout: "+err.Error())
		}
		r.jobTimeout = d
	}
	if v := m.OnJobTimeout.ValueString(); v != "" {
		r.onJobTimeout = v
	}
	return r
}

// batchSize is how many of static nodes one batch replaces.
func (r rollPolicy) batchSize(static int) (int, error) {
	n, percent, err := parseMaxUnavailable(r.maxUnavailable)
	if err != nil {
		return 0, fmt.Errorf("rolling_update.max_unavailable: %w", err)
	}
	if percent {
		n = max(1, static*n/100)
	}
	n = min(n, static-r.minAvailable)
	if n < 1 {
		return 0, fmt.Errorf("rolling_update.min_available = %d keeps all %d static nodes in service, so none can be replaced; lower it", r.minAvailable, static)
	}
	return n, nil
}

// outdatedStatic lists, in index order, the static nodes whose VM does not run the payload of
// props (the node config and launcher in its metadata), with one VM list.
func outdatedStatic(ctx context.Context, cl *gcp.Clients, d *desired, props *computepb.InstanceProperties) ([]string, error) {
	want := tfutil.MetadataMap(props.GetMetadata())
	index := map[string]int{}
	for i := range d.static {
		index[cc.NodeName(d.prefix, i)] = i
	}
	var out []string
	err := bulk.ListLabelled(ctx, cl, d.project, d.zone, labelPartition, d.prefix, func(inst *computepb.Instance) {
		if _, ok := index[inst.GetName()]; !ok {
			return
		}
		md := tfutil.MetadataMap(inst.GetMetadata())
		// (Not the service account: Compute answers the email "default" stands for, and the
		// cluster's identity changes only with its replacement, which makes a new partition.)
		if md[cc.NodeConfigKey] != want[cc.NodeConfigKey] || md[cc.StartupScriptKey] != want[cc.StartupScriptKey] {
			out = append(out, inst.GetName())
		}
	})
	if err != nil {
		return nil, fmt.Errorf("listing the static nodes of partition %s: %w", d.name, err)
	}
	slices.SortFunc(out, func(a, b string) int { return index[a] - index[b] })
	return out, nil
}

// roll replaces the outdated static nodes batch by batch and leaves the partition's key without
// a drain.
func (a *applier) roll(ctx context.Context, p *changeSet, wait appliedWait) error {
	d := a.d
	stale, err := outdatedStatic(ctx, a.cl, d, p.props)
	if err != nil || len(stale) == 0 {
		return err
	}
	size, err := d.roll.batchSize(d.static)
	if err != nil {
		return fmt.Errorf("partition %s: static nodes %s run an earlier node configuration: %w", d.name, cc.CompressHostlist(stale), err)
	}
	tflog.Info(ctx, "rolling replacement of static nodes", map[string]any{"partition": d.name, "nodes": cc.CompressHostlist(stale), "batch": size})
	for len(stale) > 0 {
		batch := stale[:min(size, len(stale))]
		stale = stale[len(batch):]
		if err := a.rollBatch(ctx, p, wait, batch); err != nil {
			return err
		}
	}
	ctl, err := getController(ctx, a.cl, d.cluster)
	if err != nil {
		return err
	}
	return a.writeConfig(ctx, ctl, p.part, wait)
}

// rollBatch drains, replaces and waits for one batch.
func (a *applier) rollBatch(ctx context.Context, p *changeSet, wait appliedWait, batch []string) error {
	d := a.d
	list := cc.CompressHostlist(batch)
	drain := cc.Drain{ID: gcp.NewRequestID()[:8], Nodes: list, Reason: cc.RollReason}
	write := func() error {
		ctl, err := getController(ctx, a.cl, d.cluster)
		if err != nil {
			return err
		}
		part := p.part
		part.Drain = &drain
		return a.writeConfig(ctx, ctl, part, wait)
	}
	if err := write(); err != nil {
		return err
	}
	jctx, cancel := context.WithTimeout(ctx, d.roll.jobTimeout)
	err := a.untilRollDrained(jctx, wait, drain)
	cancel()
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		if d.roll.onJobTimeout != rollRequeue {
			return fmt.Errorf("partition %s: jobs on %s still run after rolling_update.job_timeout (%s), so the nodes were not replaced; they stay drained (no new job starts there) and the next apply continues the roll. Raise job_timeout, or set on_job_timeout = %q",
				d.name, list, d.roll.jobTimeout, rollRequeue)
		}
		tflog.Info(ctx, "requeueing the jobs on nodes being replaced", map[string]any{"partition": d.name, "nodes": list})
		drain.Requeue = true
		if err = write(); err == nil {
			err = a.untilRollDrained(ctx, wait, drain)
		}
	}
	if err != nil {
		return fmt.Errorf("partition %s: draining %s for their replacement: %w", d.name, list, err)
	}
	if err := deleteNodes(ctx, a.cl, d.project, d.zone, batch); err != nil {
		return err
	}
	created, err := createNodes(ctx, a.cl, d, p.props, batch)
	if err != nil {
		return fmt.Errorf("partition %s: recreating %s from the new template: %w", d.name, list, err)
	}
	// Slurm may still count a deleted node as registered until it misses its pings, so each new
	// VM's own report (phase=ready: slurmd runs with the controller's configuration) comes first.
	err = tfutil.Parallel(created, func(n string) error {
		w := tfutil.ReportWait{Clients: a.cl, VM: tfutil.VM{Project: d.project, Zone: d.zone, Name: n}, Max: a.poll}
		_, err := w.Until(ctx, func(r tfutil.Report) (bool, error) { return r.Ready(""), nil })
		if err != nil {
			return fmt.Errorf("partition %s: waiting for the replaced node %s to boot: %w", d.name, n, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return a.registrationWaitFor(nil, created).untilRegistered(ctx)
}

// untilRollDrained waits until the agent reports every node of the drain drained and idle.
func (a *applier) untilRollDrained(ctx context.Context, wait appliedWait, drain cc.Drain) error {
	want, err := cc.ExpandHostlist(drain.Nodes)
	if err != nil {
		return err
	}
	_, err = wait.report().Until(ctx, func(r tfutil.Report) (bool, error) {
		id, done, ok := r.Drained(a.d.name)
		if !ok || id != drain.ID {
			return false, nil
		}
		for _, n := range want {
			if !slices.Contains(done, n) {
				return false, nil
			}
		}
		return true, nil
	})
	return err
}

// templateOutdated reports whether the partition's template gives nodes another payload than the
// cluster's configuration now does (the cluster changed what nodes boot with since the partition
// was applied), or a roll did not finish (its drain is still in the key): the refresh then shows
// the partition for an update, which makes a new template and rolls the static nodes.
func templateOutdated(cfg cc.Cluster, part cc.Partition, tmpl *computepb.InstanceTemplate) bool {
	if part.Drain != nil && part.Drain.Reason == cc.RollReason {
		return true
	}
	part.InstanceTemplate, part.Drain = "", nil
	md, err := cc.VMMetadata(cfg, cc.RoleCompute, &part, true)
	if err != nil {
		return false // the apply says what is wrong
	}
	return tfutil.MetadataMap(tmpl.GetProperties().GetMetadata())[cc.NodeConfigKey] != md[cc.NodeConfigKey]
}
