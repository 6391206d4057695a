package trainingcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"google.golang.org/api/googleapi"
	dashboards "google.golang.org/api/monitoring/v1"
	monitoring "google.golang.org/api/monitoring/v3"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// How the cluster keeps its Cloud Monitoring dashboard and alert policies (cloudmon_desired.go): after
// the controller reported its configuration applied, one reconcile finds them by the controller's id
// (labels), creates what is missing, replaces what differs, deletes what the plan no longer wants (all
// of them when cloud_monitoring is off) and duplicates a retried create left; destroy deletes them
// before the controller. The dashboard's id is derived from the cluster and zone; policies get theirs
// from the API and are found by their labels, so an apply stopped half-way is finished by the next one
// and never creates a second policy for a rule. A dashboard of the derived id that carries another
// controller's id is another cluster's: the apply refuses it and changes nothing of it.

// cloudObjects are the cluster's dashboard and policies as the API holds them.
type cloudObjects struct {
	dashboard *dashboards.Dashboard // nil: none of ours
	foreign   *dashboards.Dashboard // the derived name taken by another cluster's
	policies  map[string][]*monitoring.AlertPolicy
}

// names are the outputs: the dashboard's name and one policy per rule, in alertRules' order.
func (c cloudObjects) names() (string, []string) {
	dash := ""
	if c.dashboard != nil {
		dash = c.dashboard.Name
	}
	policies := []string{}
	for _, r := range alertRules {
		if ps := c.policies[ruleLabel(r.name)]; len(ps) > 0 {
			policies = append(policies, ps[0].Name)
		}
	}
	return dash, policies
}

func controllerID(id uint64) string { return strconv.FormatUint(id, 10) }

// findCloud reads the dashboard of the derived name and the policies of this controller.
func (a *applier) findCloud(ctx context.Context, ctlID string) (cloudObjects, error) {
	out := cloudObjects{policies: map[string][]*monitoring.AlertPolicy{}}
	name := monitoringDashboardName(a.d.project, a.d.name, a.d.zone)
	dash, err := a.c.Dashboards.Projects.Dashboards.Get(name).Context(ctx).Do()
	switch {
	case isNotFound(err):
	case err != nil:
		return out, fmt.Errorf("reading dashboard %s: %w", name, err)
	case dash.Labels[labelMonController] == ctlID && dash.Labels[labelMonCluster] == a.d.name:
		out.dashboard = dash
	default:
		out.foreign = dash
	}
	err = a.c.Monitoring.Projects.AlertPolicies.List("projects/"+a.d.project).PageSize(1000).Context(ctx).
		Pages(ctx, func(res *monitoring.ListAlertPoliciesResponse) error {
			for _, p := range res.AlertPolicies {
				if p.UserLabels[labelMonController] == ctlID && p.UserLabels[labelMonCluster] == a.d.name && p.UserLabels[labelMonRule] != "" {
					rule := p.UserLabels[labelMonRule]
					out.policies[rule] = append(out.policies[rule], p)
				}
			}
			return nil
		})
	if err != nil {
		return out, fmt.Errorf("listing the alert policies of project %s: %w", a.d.project, err)
	}
	for _, ps := range out.policies {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	}
	return out, nil
}

func isConflict(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == 409
}

func isNotFound(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == 404 || err != nil && gcp.IsNotFound(gcp.Classify(err))
}

// cloudMonitoringOn says whether a cluster config (the controller's metadata value) had
// cloud_monitoring on; unreadable counts as on, so its objects are looked for.
func cloudMonitoringOn(config string) bool {
	if config == "" {
		return false
	}
	c, err := clusterconfig.DecodeCluster([]byte(config))
	return err != nil || c.Monitoring != nil && c.Monitoring.CloudMonitoring
}

// applyCloud converges the dashboard and policies to the plan. With cloud_monitoring off now and
// before (wasOn: the controller's previous config), there is nothing to look for.
func (a *applier) applyCloud(ctx context.Context, wasOn bool) error {
	on := a.d.monitoring != nil && a.d.monitoring.CloudMonitoring
	if !on && !wasOn {
		return nil
	}
	ctl, err := a.findVM(ctx, a.d.controllerName())
	if err != nil {
		return fmt.Errorf("reading VM %s: %w", a.d.controllerName(), err)
	}
	id := controllerID(ctl.GetId())
	have, err := a.findCloud(ctx, id)
	if err != nil {
		return err
	}
	if !on {
		return a.deleteCloud(ctx, have)
	}
	if have.foreign != nil {
		return fmt.Errorf("monitoring: dashboard %s exists and belongs to another cluster (its %s label is %q, this cluster's controller is %s); "+
			"it is left alone. Delete it, or set monitoring.cloud_monitoring = false", have.foreign.Name, labelMonController, have.foreign.Labels[labelMonController], id)
	}
	if err := a.applyDashboard(ctx, have.dashboard, a.d.desiredDashboard(id)); err != nil {
		return err
	}
	want := a.d.desiredPolicies(id)
	for rule, ps := range have.policies {
		drop := ps
		if want[rule] != nil {
			drop = ps[1:] // a create retried after a lost answer made a second one
		}
		for _, p := range drop {
			if err := a.deletePolicy(ctx, p.Name); err != nil {
				return err
			}
		}
	}
	created := false
	for _, r := range alertRules {
		rule := ruleLabel(r.name)
		w := want[rule]
		ps := have.policies[rule]
		if len(ps) == 0 {
			created = true
			if _, err := a.c.Monitoring.Projects.AlertPolicies.Create("projects/"+a.d.project, w).Context(ctx).Do(); err != nil {
				return fmt.Errorf("creating alert policy %q: %w", w.DisplayName, err)
			}
			continue
		}
		cur := ps[0]
		if samePolicy(cur, w) {
			continue
		}
		// Conditions keep their names, so the policy's incidents stay attached to them.
		for i, c := range w.Conditions {
			if i < len(cur.Conditions) {
				c.Name = cur.Conditions[i].Name
			}
		}
		w.Name = cur.Name
		if _, err := a.c.Monitoring.Projects.AlertPolicies.Patch(cur.Name, w).Context(ctx).Do(); err != nil {
			return fmt.Errorf("updating alert policy %s (%q): %w", cur.Name, w.DisplayName, err)
		}
	}
	if !created {
		return nil
	}
	// alertPolicies.create has no request id: a create whose answer was lost and that the transport
	// sent again made two. Keep one per rule.
	again, err := a.findCloud(ctx, id)
	if err != nil {
		return err
	}
	for _, ps := range again.policies {
		for _, p := range ps[1:] {
			if err := a.deletePolicy(ctx, p.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *applier) applyDashboard(ctx context.Context, cur, want *dashboards.Dashboard) error {
	if cur == nil {
		_, err := a.c.Dashboards.Projects.Dashboards.Create("projects/"+a.d.project, want).Context(ctx).Do()
		if !isConflict(err) {
			if err != nil {
				return fmt.Errorf("creating dashboard %s: %w", want.Name, err)
			}
			return nil
		}
		// A create sent again after its answer was lost: the dashboard is there, and ours if it
		// carries this controller's id.
		if cur, err = a.c.Dashboards.Projects.Dashboards.Get(want.Name).Context(ctx).Do(); err != nil {
			return fmt.Errorf("reading dashboard %s: %w", want.Name, err)
		}
		if cur.Labels[labelMonController] != want.Labels[labelMonController] {
			return fmt.Errorf("monitoring: dashboard %s was created meanwhile by another cluster (its %s label is %q); it is left alone", want.Name, labelMonController, cur.Labels[labelMonController])
		}
	}
	if sameJSON(dashboardContent(cur), dashboardContent(want)) {
		return nil
	}
	want.Etag = cur.Etag
	if _, err := a.c.Dashboards.Projects.Dashboards.Patch(cur.Name, want).Context(ctx).Do(); err != nil {
		return fmt.Errorf("updating dashboard %s: %w", cur.Name, err)
	}
	return nil
}

// deleteCloud deletes the dashboard and policies found (all of them this cluster's).
func (a *applier) deleteCloud(ctx context.Context, have cloudObjects) error {
	for _, ps := range have.policies {
		for _, p := range ps {
			if err := a.deletePolicy(ctx, p.Name); err != nil {
				return err
			}
		}
	}
	if have.dashboard != nil {
		if _, err := a.c.Dashboards.Projects.Dashboards.Delete(have.dashboard.Name).Context(ctx).Do(); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting dashboard %s: %w", have.dashboard.Name, err)
		}
	}
	return nil
}

func (a *applier) deletePolicy(ctx context.Context, name string) error {
	if _, err := a.c.Monitoring.Projects.AlertPolicies.Delete(name).Context(ctx).Do(); err != nil && !isNotFound(err) {
		return fmt.Errorf("deleting alert policy %s: %w", name, err)
	}
	return nil
}

// destroyCloud deletes what the controller ctlID's cluster keeps in Cloud Monitoring.
func (a *applier) destroyCloud(ctx context.Context, ctlID string) error {
	have, err := a.findCloud(ctx, ctlID)
	if err != nil {
		return err
	}
	return a.deleteCloud(ctx, have)
}

func dashboardContent(d *dashboards.Dashboard) any {
	return map[string]any{"displayName": d.DisplayName, "mosaicLayout": d.MosaicLayout, "labels": d.Labels}
}

// samePolicy compares what the plan sets of a policy, names and records aside.
func samePolicy(cur, want *monitoring.AlertPolicy) bool {
	strip := func(p *monitoring.AlertPolicy) any {
		var conds []any
		for _, c := range p.Conditions {
			cc := *c
			cc.Name = ""
			conds = append(conds, &cc)
		}
		return map[string]any{"displayName": p.DisplayName, "combiner": p.Combiner, "conditions": conds, "documentation": p.Documentation,
			"userLabels": p.UserLabels, "notificationChannels": p.NotificationChannels, "enabled": p.Enabled, "severity": p.Severity}
	}
	return sameJSON(strip(cur), strip(want))
}

// sameJSON compares two values by their JSON after a round trip through a map, so fields sent only
// because they were forced (zero values) compare equal to fields left out.
func sameJSON(a, b any) bool {
	norm := func(v any) string {
		raw, _ := json.Marshal(v)
		var m any
		_ = json.Unmarshal(raw, &m)
		out, _ := json.Marshal(dropZero(m))
		return string(out)
	}
	return norm(a) == norm(b)
}

func dropZero(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			x = dropZero(x)
			switch y := x.(type) {
			case nil:
				continue
			case float64:
				if y == 0 {
					continue
				}
			case string:
				if y == "" {
					continue
				}
			case bool:
				if !y {
					continue
				}
			case map[string]any:
				if len(y) == 0 {
					continue
				}
			case []any:
				if len(y) == 0 {
					continue
				}
			}
			out[k] = x
		}
		return out
	case []any:
		for i := range t {
			t[i] = dropZero(t[i])
		}
		return t
	}
	return v
}
