package trainingcluster

import (
	"fmt"
	"strings"

	dashboards "google.golang.org/api/monitoring/v1"
	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/agent/cloudmon"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// The Cloud Monitoring objects a cluster keeps with cloud_monitoring on: one dashboard and one alert
// policy per alert rule, over the series the agents write (agent/cloudmon). The rules are the
// controller's Prometheus rules under the same names, evaluated by Cloud Monitoring instead.

// Labels that tie a dashboard or policy to its cluster. The controller label holds the controller VM's
// numeric id, unique to this cluster's controller for good: what carries another id is another
// cluster's (one of the same name in another state, or a replaced one's leftovers) and is never
// changed or deleted.
const (
	labelMonCluster    = "hypercompute-cluster"
	labelMonController = "hypercompute-controller"
	labelMonRule       = "hypercompute-rule"
)

// alertRule is one alert policy: its rule name and how its condition reads the series.
type alertRule struct {
	name    string
	summary string
	cond    func(c *monCtx) *monitoring.Condition
}

// monCtx is what the conditions are built from.
type monCtx struct {
	cluster  string
	m        *clusterconfig.Monitoring
	interval int // seconds
}

func (c *monCtx) filter(series string, extra ...string) string {
	terms := append([]string{
		fmt.Sprintf("metric.type = %q", cloudmon.MetricType(series)),
		`resource.type = "gce_instance"`,
		fmt.Sprintf("metric.labels.%s = %q", cloudmon.ClusterLabel, c.cluster),
	}, extra...)
	return strings.Join(terms, " AND ")
}

func secs(n int) string { return fmt.Sprintf("%ds", n) }

// The shortest alignment period of a threshold condition and evaluation interval of a PromQL one
// Cloud Monitoring takes; a shorter scrape interval is rounded up to them.
const (
	minAlignment  = 60
	minEvaluation = 30
)

// threshold fires when the series, aligned over period with aligner, compares to v for duration.
func (c *monCtx) threshold(display, series, aligner string, period int, cmp string, v float64, duration int, extra ...string) *monitoring.Condition {
	t := &monitoring.MetricThreshold{
		Filter: c.filter(series, extra...), Comparison: cmp, ThresholdValue: v, Duration: secs(duration),
		// Alerting aligns over a minute at least.
		Aggregations: []*monitoring.Aggregation{{AlignmentPeriod: secs(max(minAlignment, period)), PerSeriesAligner: aligner}},
		Trigger:      &monitoring.Trigger{Count: 1},
	}
	if v == 0 {
		t.ForceSendFields = []string{"ThresholdValue"}
	}
	return &monitoring.Condition{DisplayName: display, ConditionThreshold: t}
}

// promql is a PromQL condition over the series as Cloud Monitoring's PromQL names them.
func (c *monCtx) promql(display, query string, duration int) *monitoring.Condition {
	return &monitoring.Condition{DisplayName: display, ConditionPrometheusQueryLanguage: &monitoring.PrometheusQueryLanguageCondition{
		Query: query, Duration: secs(duration), EvaluationInterval: secs(max(minEvaluation, c.interval)),
	}}
}

// sel is a PromQL selector of a series of this cluster.
func (c *monCtx) sel(series string) string {
	return fmt.Sprintf("%s{%s=%q}", cloudmon.PromQLName(series), cloudmon.ClusterLabel, c.cluster)
}

// alertRules are the policies, in the order alert_policies lists them; names match the Prometheus
// rules the controller evaluates.
var alertRules = []alertRule{
	{"HealthCheckDrainedNode", "A health check drained a node; the health policy's repair takes it from here.", func(c *monCtx) *monitoring.Condition {
		return c.threshold("node drained by a health check", cloudmon.HealthNodeDrained, "ALIGN_MAX", c.interval, "COMPARISON_GT", 0, 0)
	}},
	{"RepairFailing", "A node repair failed within the last hour.", func(c *monCtx) *monitoring.Condition {
		return c.threshold("failed repairs in the last hour", cloudmon.HealthRepairsTotal, "ALIGN_DELTA", 3600, "COMPARISON_GT", 0, 0, `metric.labels.outcome = "failed"`)
	}},
	{"RepairEscalated", "A node failed again after a repair; the repair was escalated.", func(c *monCtx) *monitoring.Condition {
		return c.threshold("repair escalations in the last hour", cloudmon.HealthEscalationsTotal, "ALIGN_DELTA", 3600, "COMPARISON_GT", 0, 0)
	}},
	{"JobNoProgress", "A running recipe job made no training step within the no-progress window.", func(c *monCtx) *monitoring.Condition {
		stall := c.m.StallIntervals() * c.interval
		q := fmt.Sprintf("%s == 1 and on(recipe_job) (time() - %s) > %d and on(recipe_job) changes(%s[%ds]) == 0",
			c.sel(cloudmon.JobRunning), c.sel(cloudmon.JobRunStart), stall, c.sel(cloudmon.JobStep), stall)
		return c.promql("no training step", q, 0)
	}},
	{"CheckpointStale", "A running recipe job's newest checkpoint is older than twice its interval.", func(c *monCtx) *monitoring.Condition {
		q := fmt.Sprintf("%s == 1 and on(recipe_job) %s > 0 and on(recipe_job) %s > 2 * %s",
			c.sel(cloudmon.JobRunning), c.sel(cloudmon.JobCheckpointInterval), c.sel(cloudmon.JobCheckpointAge), c.sel(cloudmon.JobCheckpointInterval))
		return c.promql("checkpoint older than twice its interval", q, 0)
	}},
	{"GoodputBelowTarget", "The cluster's runtime goodput over a day is below the target.", func(c *monCtx) *monitoring.Condition {
		return c.threshold(fmt.Sprintf("runtime goodput below %g", c.m.Target()), cloudmon.GoodputRatio, "ALIGN_MEAN", c.interval, "COMPARISON_LT", c.m.Target(), 2*c.interval,
			`metric.labels.kind = "runtime"`, `metric.labels.window = "1d"`, `metric.labels.partition = ""`)
	}},
	{"GPUECCErrors", "A GPU has uncorrected (double-bit) volatile ECC errors.", func(c *monCtx) *monitoring.Condition {
		return c.threshold("uncorrected ECC errors", cloudmon.GPUECCDBE, "ALIGN_MAX", c.interval, "COMPARISON_GT", 0, 0)
	}},
	{"GPUXIDErrors", "A GPU logged an XID error.", func(c *monCtx) *monitoring.Condition {
		return c.threshold("XID errors", cloudmon.GPUXID, "ALIGN_MAX", c.interval, "COMPARISON_GT", 0, 0)
	}},
}

// ruleLabel is a rule's value of labelMonRule: GoodputBelowTarget → goodput-below-target.
func ruleLabel(rule string) string {
	var b strings.Builder
	for i, r := range rule {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && !(rule[i-1] >= 'A' && rule[i-1] <= 'Z') {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// monitoringDashboardID is the dashboard's id: the cluster and its zone, so clusters of one name in
// several zones of a project keep theirs apart.
func monitoringDashboardID(cluster, zone string) string {
	return "hypercompute-" + cluster + "-" + zone
}

func monitoringDashboardName(project, cluster, zone string) string {
	return "projects/" + project + "/dashboards/" + monitoringDashboardID(cluster, zone)
}

func (d *desired) monitoringLabels(controllerID string) map[string]string {
	return map[string]string{labelMonCluster: d.name, labelMonController: controllerID}
}

// desiredPolicies are the alert policies of the plan, by rule label.
func (d *desired) desiredPolicies(controllerID string) map[string]*monitoring.AlertPolicy {
	c := &monCtx{cluster: d.name, m: d.monitoring, interval: int(d.monitoring.Interval().Seconds())}
	out := map[string]*monitoring.AlertPolicy{}
	for _, r := range alertRules {
		labels := d.monitoringLabels(controllerID)
		labels[labelMonRule] = ruleLabel(r.name)
		out[ruleLabel(r.name)] = &monitoring.AlertPolicy{
			DisplayName: d.name + ": " + r.name,
			Combiner:    "OR",
			Conditions:  []*monitoring.Condition{r.cond(c)},
			Documentation: &monitoring.Documentation{MimeType: "text/markdown",
				Content: fmt.Sprintf("%s\n\nCluster `%s` (zone %s), rule `%s`, kept by hypercompute_training_cluster.", r.summary, d.name, d.zone, r.name)},
			UserLabels:           labels,
			NotificationChannels: d.monitoring.NotificationChannels,
			Enabled:              true,
			ForceSendFields:      []string{"Enabled"},
		}
	}
	return out
}

// desiredDashboard is the cluster's dashboard: a 12-column mosaic of goodput, MFU, step rate, loss,
// nodes drained by health checks and GPU utilisation.
func (d *desired) desiredDashboard(controllerID string) *dashboards.Dashboard {
	c := &monCtx{cluster: d.name, m: d.monitoring, interval: int(d.monitoring.Interval().Seconds())}
	period := secs(max(60, c.interval))
	chart := func(title, series, aligner, reducer string, extra ...string) *dashboards.Widget {
		agg := &dashboards.Aggregation{AlignmentPeriod: period, PerSeriesAligner: aligner, CrossSeriesReducer: reducer}
		if reducer != "" && strings.HasPrefix(series, "hypercompute_job_") {
			agg.GroupByFields = []string{"metric.label.recipe_job"} // one line per job
		}
		return &dashboards.Widget{Title: title, XyChart: &dashboards.XyChart{DataSets: []*dashboards.DataSet{{
			PlotType: "LINE", MinAlignmentPeriod: period,
			TimeSeriesQuery: &dashboards.TimeSeriesQuery{TimeSeriesFilter: &dashboards.TimeSeriesFilter{Filter: c.filter(series, extra...), Aggregation: agg}},
		}}}}
	}
	widgets := []*dashboards.Widget{
		chart("Runtime goodput (1 day)", cloudmon.GoodputRatio, "ALIGN_MEAN", "", `metric.labels.kind = "runtime"`, `metric.labels.window = "1d"`),
		chart("MFU per job", cloudmon.JobMFU, "ALIGN_MEAN", "REDUCE_MEAN"),
		chart("Training steps per second", cloudmon.JobStep, "ALIGN_RATE", "REDUCE_SUM"),
		chart("Loss per job", cloudmon.JobLoss, "ALIGN_MEAN", "REDUCE_MEAN"),
		chart("Nodes drained by health checks", cloudmon.HealthNodeDrained, "ALIGN_MAX", "REDUCE_SUM"),
		chart("GPU utilisation (%)", cloudmon.GPUUtil, "ALIGN_MEAN", "REDUCE_MEAN"),
	}
	tiles := make([]*dashboards.Tile, len(widgets))
	for i, w := range widgets {
		tiles[i] = &dashboards.Tile{XPos: int64(i%2) * 6, YPos: int64(i/2) * 4, Width: 6, Height: 4, Widget: w}
		if i%2 == 0 {
			tiles[i].ForceSendFields = []string{"XPos"}
		}
		if i < 2 {
			tiles[i].ForceSendFields = append(tiles[i].ForceSendFields, "YPos")
		}
	}
	return &dashboards.Dashboard{
		Name:         monitoringDashboardName(d.project, d.name, d.zone),
		DisplayName:  "hypercompute: " + d.name + " (" + d.zone + ")",
		MosaicLayout: &dashboards.MosaicLayout{Columns: 12, Tiles: tiles},
		Labels:       d.monitoringLabels(controllerID),
	}
}
