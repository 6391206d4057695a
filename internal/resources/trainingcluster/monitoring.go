package trainingcluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The monitoring block: metrics on every VM, Prometheus on the controller, Cloud Monitoring
// (clusterconfig.Monitoring). It travels in the controller's cluster configuration, so changing
// it changes config_hash and the controller's agent applies it; nodes read it from there.

type monitoringModel struct {
	MetricsPort          types.Int64   `tfsdk:"metrics_port"`
	Prometheus           types.Bool    `tfsdk:"prometheus"`
	PrometheusPort       types.Int64   `tfsdk:"prometheus_port"`
	ScrapeInterval       types.String  `tfsdk:"scrape_interval"`
	RetentionDays        types.Int64   `tfsdk:"retention_days"`
	CloudMonitoring      types.Bool    `tfsdk:"cloud_monitoring"`
	GoodputTarget        types.Float64 `tfsdk:"goodput_target"`
	NoProgressIntervals  types.Int64   `tfsdk:"no_progress_intervals"`
	NotificationChannels types.List    `tfsdk:"notification_channels"`
	Dashboard            types.String  `tfsdk:"dashboard"`
	AlertPolicies        types.List    `tfsdk:"alert_policies"`
}

var monitoringAttrTypes = map[string]attr.Type{
	"metrics_port": types.Int64Type, "prometheus": types.BoolType, "prometheus_port": types.Int64Type,
	"scrape_interval": types.StringType, "retention_days": types.Int64Type, "cloud_monitoring": types.BoolType,
	"goodput_target": types.Float64Type, "no_progress_intervals": types.Int64Type,
	"notification_channels": types.ListType{ElemType: types.StringType},
	"dashboard":             types.StringType, "alert_policies": types.ListType{ElemType: types.StringType},
}

func monitoringAttribute() schema.Attribute {
	port := func(what string, def int) schema.Int64Attribute {
		return schema.Int64Attribute{
			Optional:            true,
			MarkdownDescription: fmt.Sprintf("TCP port %s. Default %d.", what, def),
			Validators:          []validator.Int64{int64validator.Between(1024, 65535)},
		}
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Observability. Every VM's agent serves Prometheus metrics (health checks, drains and repairs, GPU metrics under dcgm-exporter's names, " +
			"Slurm node and job states on the controller, each recipe job's progress and MFU); the controller runs Prometheus with the project's alert rules; " +
			"and the key series go to Cloud Monitoring with a dashboard and alert policies. Only the cluster's own VMs and the controller reach the metrics ports (firewall).",
		Attributes: map[string]schema.Attribute{
			"metrics_port": port("on which every VM's agent serves `/metrics`", clusterconfig.DefaultMetricsPort),
			"prometheus": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Run Prometheus on the controller, scraping every VM of the cluster (dynamic nodes included, from a target list the agent keeps current) and evaluating the alert rules. Default true.",
			},
			"prometheus_port": port("of the controller's Prometheus", clusterconfig.DefaultPrometheusPort),
			"scrape_interval": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Scrape and rule evaluation interval, a duration in whole seconds (`30s`, `1m`) between %ds and %ds. Default `%ds`.", clusterconfig.MinScrapeInterval, clusterconfig.MaxScrapeInterval, clusterconfig.DefaultScrapeInterval),
				Validators:          []validator.String{tfutil.StringCheck{Desc: "a duration in whole seconds", Check: checkScrapeInterval}},
			},
			"retention_days": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Days Prometheus keeps samples. Default %d.", clusterconfig.DefaultRetentionDays),
				Validators:          []validator.Int64{int64validator.Between(1, clusterconfig.MaxRetentionDaysPrometheus)},
			},
			"cloud_monitoring": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Write the key series to Cloud Monitoring with each VM's own credentials (needs the `monitoring.write` scope) and keep a dashboard and alert policies for the alert rules. Default true.",
			},
			"goodput_target": schema.Float64Attribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Goodput below which the goodput alert fires, in (0, 1]. Default %g.", clusterconfig.DefaultGoodputTarget),
				Validators:          []validator.Float64{float64validator.Between(0.01, 1)},
			},
			"no_progress_intervals": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Scrape intervals without a training step after which a running job's no-progress alert fires. Default %d.", clusterconfig.DefaultNoProgressIntervals),
				Validators:          []validator.Int64{int64validator.Between(1, 1000)},
			},
			"notification_channels": tfutil.OptionalList(schema.ListAttribute{
				ElementType:         types.StringType,
				MarkdownDescription: "Cloud Monitoring notification channels (`projects/P/notificationChannels/ID`) the alert policies notify.",
				Validators: []validator.List{
					listvalidator.SizeAtMost(clusterconfig.MaxNotificationChannels), uniqueStrings{},
					listvalidator.ValueStringsAre(tfutil.StringCheck{Desc: "a notification channel name", Check: checkChannel}),
				},
			}),
			"dashboard": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The cluster's Cloud Monitoring dashboard (`projects/P/dashboards/hypercompute-<name>-<zone>`: goodput, MFU, step rate, loss, " +
					"nodes drained by health checks, GPU utilisation), made after the controller reported ready and deleted with the cluster; null while `cloud_monitoring` is off.",
			},
			"alert_policies": schema.ListAttribute{
				ElementType: types.StringType,
				Computed:    true,
				MarkdownDescription: "The cluster's Cloud Monitoring alert policies (`projects/P/alertPolicies/ID`), one per alert rule of the controller's Prometheus, in this order: " +
					"HealthCheckDrainedNode, RepairFailing, RepairEscalated, JobNoProgress, CheckpointStale, GoodputBelowTarget (`goodput_target`), GPUECCErrors, GPUXIDErrors. " +
					"Changed in place when the thresholds change, deleted with the cluster; empty while `cloud_monitoring` is off.",
			},
		},
	}
}

func checkScrapeInterval(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s or 1m", s)
	}
	if d%time.Second != 0 || d < clusterconfig.MinScrapeInterval*time.Second || d > clusterconfig.MaxScrapeInterval*time.Second {
		return fmt.Errorf("%s is not a whole number of seconds between %ds and %ds", s, clusterconfig.MinScrapeInterval, clusterconfig.MaxScrapeInterval)
	}
	return nil
}

func checkChannel(s string) error {
	parts := strings.Split(s, "/")
	if len(parts) != 4 || parts[0] != "projects" || parts[2] != "notificationChannels" || parts[1] == "" || parts[3] == "" {
		return fmt.Errorf("%q is not projects/PROJECT/notificationChannels/ID", s)
	}
	return nil
}

// monitoringDesired reads the block; nil when it is not set.
func monitoringDesired(ctx context.Context, o types.Object, diags *diag.Diagnostics) *clusterconfig.Monitoring {
	m, ok := readObject[monitoringModel](ctx, o, diags)
	if !ok {
		return nil
	}
	out := &clusterconfig.Monitoring{
		MetricsPort:          int(m.MetricsPort.ValueInt64()),
		Prometheus:           m.Prometheus.IsNull() || m.Prometheus.ValueBool(),
		PrometheusPort:       int(m.PrometheusPort.ValueInt64()),
		RetentionDays:        int(m.RetentionDays.ValueInt64()),
		CloudMonitoring:      m.CloudMonitoring.IsNull() || m.CloudMonitoring.ValueBool(),
		GoodputTarget:        m.GoodputTarget.ValueFloat64(),
		NoProgressIntervals:  int(m.NoProgressIntervals.ValueInt64()),
		NotificationChannels: stringList(ctx, m.NotificationChannels, diags),
	}
	if s := m.ScrapeInterval.ValueString(); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			out.ScrapeInterval = int(d / time.Second)
		}
	}
	return out
}

// flattenMonitoring is the block as the controller's metadata holds it; prior keeps the form the
// configuration wrote of the scrape interval (`1m` and `60s` are one value).
func flattenMonitoring(ctx context.Context, m *clusterconfig.Monitoring, prior types.Object, diags *diag.Diagnostics) types.Object {
	if m == nil {
		return types.ObjectNull(monitoringAttrTypes)
	}
	var p monitoringModel
	if known(prior) {
		diags.Append(prior.As(ctx, &p, tfutil.ObjectOpts)...)
	}
	interval := types.StringNull()
	if m.ScrapeInterval != 0 {
		interval = types.StringValue(fmt.Sprintf("%ds", m.ScrapeInterval))
		if d, err := time.ParseDuration(p.ScrapeInterval.ValueString()); err == nil && int(d/time.Second) == m.ScrapeInterval {
			interval = p.ScrapeInterval
		}
	}
	target := types.Float64Null()
	if m.GoodputTarget != 0 {
		target = types.Float64Value(m.GoodputTarget)
	}
	out, d := types.ObjectValueFrom(ctx, monitoringAttrTypes, monitoringModel{
		MetricsPort: intOrNull(m.MetricsPort), Prometheus: types.BoolValue(m.Prometheus), PrometheusPort: intOrNull(m.PrometheusPort),
		ScrapeInterval: interval, RetentionDays: intOrNull(m.RetentionDays), CloudMonitoring: types.BoolValue(m.CloudMonitoring),
		GoodputTarget: target, NoProgressIntervals: intOrNull(m.NoProgressIntervals),
		NotificationChannels: stringListValue(ctx, m.NotificationChannels, diags),
		// Filled by setCloudOutputs from what the API holds.
		Dashboard: types.StringNull(), AlertPolicies: types.ListValueMust(types.StringType, []attr.Value{}),
	})
	diags.Append(d...)
	return out
}

// setCloudOutputs sets monitoring.dashboard and monitoring.alert_policies from what the API holds
// (o.cloud, read when the controller's config has cloud_monitoring on).
func setCloudOutputs(ctx context.Context, m *model, o observed, diags *diag.Diagnostics) {
	if !known(m.Monitoring) {
		return
	}
	mm, ok := readObject[monitoringModel](ctx, m.Monitoring, diags)
	if !ok {
		return
	}
	mm.Dashboard, mm.AlertPolicies = types.StringNull(), types.ListValueMust(types.StringType, []attr.Value{})
	if o.cloud != nil && (mm.CloudMonitoring.IsNull() || mm.CloudMonitoring.ValueBool()) {
		dash, policies := o.cloud.names()
		if dash != "" {
			mm.Dashboard = types.StringValue(dash)
		}
		mm.AlertPolicies = stringListValue(ctx, policies, diags)
	}
	out, d := types.ObjectValueFrom(ctx, monitoringAttrTypes, mm)
	diags.Append(d...)
	m.Monitoring = out
}

// planCloudOutputs plans the computed monitoring attributes: the dashboard's name is derived; the
// policies' names are the state's while it holds one per rule and cloud monitoring stays on, else
// known after apply. Off: null and empty.
func (p *planner) planCloudOutputs(ctx context.Context) {
	plan := p.plan
	if !known(plan.Monitoring) {
		return
	}
	mm, ok := readObject[monitoringModel](ctx, plan.Monitoring, p.diags)
	if !ok {
		return
	}
	on := mm.CloudMonitoring.IsNull() || mm.CloudMonitoring.ValueBool()
	mm.Dashboard, mm.AlertPolicies = types.StringNull(), types.ListValueMust(types.StringType, []attr.Value{})
	if on {
		mm.Dashboard, mm.AlertPolicies = types.StringUnknown(), types.ListUnknown(types.StringType)
		if known(plan.Project) && known(plan.Zone) && known(plan.Name) {
			mm.Dashboard = types.StringValue(monitoringDashboardName(plan.Project.ValueString(), plan.Name.ValueString(), plan.Zone.ValueString()))
		}
		if p.hasState && known(p.state.Monitoring) {
			if st, ok := readObject[monitoringModel](ctx, p.state.Monitoring, p.diags); ok && known(st.AlertPolicies) && len(st.AlertPolicies.Elements()) == len(alertRules) {
				mm.AlertPolicies = st.AlertPolicies
			}
		}
	}
	out, d := types.ObjectValueFrom(ctx, monitoringAttrTypes, mm)
	p.diags.Append(d...)
	plan.Monitoring = out
}

// monitoringConfig is the block without its computed attributes, for comparisons of what was
// configured.
func monitoringConfig(ctx context.Context, o types.Object, diags *diag.Diagnostics) types.Object {
	if !known(o) {
		return o
	}
	mm, ok := readObject[monitoringModel](ctx, o, diags)
	if !ok {
		return o
	}
	mm.Dashboard, mm.AlertPolicies = types.StringNull(), types.ListNull(types.StringType)
	if known(mm.GoodputTarget) {
		// A configuration's 0.9 is a decimal of arbitrary precision, the state's a float64: compare
		// the float64s the cluster runs with.
		mm.GoodputTarget = types.Float64Value(mm.GoodputTarget.ValueFloat64())
	}
	out, d := types.ObjectValueFrom(ctx, monitoringAttrTypes, mm)
	diags.Append(d...)
	return out
}
