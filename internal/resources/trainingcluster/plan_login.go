package trainingcluster

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// planLogin fills the login VMs' options the configuration left out from the cluster's (zone,
// enable_public_ips, os_login) and checks them without API calls: the zone in the cluster's region
// (the VMs use its regional subnet) and the machine type offered there. An option the configuration
// sets to a value not yet known stays unknown.
func (p *planner) planLogin(zoneKnown bool) {
	ctx := context.Background()
	l, ok := readObject[loginModel](ctx, p.plan.Login, p.diags)
	if !ok {
		return
	}
	// Zero values are null: a configuration without a login block leaves everything to the cluster.
	cfg, _ := readObject[loginModel](ctx, p.configLogin, p.diags)
	p.planGroup("login", &l, cfg, zoneKnown)
	var d diag.Diagnostics
	p.plan.Login, d = types.ObjectValueFrom(ctx, loginAttrTypes, l)
	p.diags.Append(d...)
}

// planLoginPools does planLogin's work for each of login_pools, and refuses a name used twice.
func (p *planner) planLoginPools(zoneKnown bool) {
	ctx := context.Background()
	if !known(p.plan.LoginPools) {
		return
	}
	var pools, cfgs []loginPoolModel
	p.diags.Append(p.plan.LoginPools.ElementsAs(ctx, &pools, false)...)
	if known(p.configPools) {
		p.diags.Append(p.configPools.ElementsAs(ctx, &cfgs, false)...)
	}
	seen := map[string]int{}
	for i := range pools {
		at := fmt.Sprintf("login_pools[%d]", i)
		var cfg loginModel
		if i < len(cfgs) {
			cfg = cfgs[i].login()
		}
		l := pools[i].login()
		p.planGroup(at, &l, cfg, zoneKnown)
		pools[i] = poolModel(pools[i].Name, l)
		if !known(pools[i].Name) {
			continue
		}
		name := pools[i].Name.ValueString()
		if j, dup := seen[name]; dup {
			p.invalid(at+".name", "login pool %q is already login_pools[%d]; pool names must be unique (they name the VMs)", name, j)
		}
		seen[name] = i
	}
	var d diag.Diagnostics
	p.plan.LoginPools, d = types.ListValueFrom(ctx, loginPoolType, pools)
	p.diags.Append(d...)
}

// planGroup fills a group's options the configuration (cfg) left out from the cluster's and
// checks the zone and machine type; at is the group's attribute path.
func (p *planner) planGroup(at string, l *loginModel, cfg loginModel, zoneKnown bool) {
	if cfg.Zone.IsNull() {
		l.Zone = p.plan.Zone
	}
	if cfg.EnablePublicIP.IsNull() {
		l.EnablePublicIP = p.plan.EnablePublicIPs
	}
	if cfg.OSLogin.IsNull() {
		l.OSLogin = p.plan.OSLogin
	}
	if cfg.Labels.IsNull() && !known(l.Labels) {
		l.Labels = types.MapValueMust(types.StringType, nil)
	}
	loginZoneKnown := zoneKnown && known(l.Zone)
	if loginZoneKnown {
		if r, _ := catalog.RegionOf(l.Zone.ValueString()); r != p.region {
			p.invalid(at+".zone", "%s is in region %s, not in the cluster's region %s: login VMs use the cluster's regional subnet; choose a zone of %s",
				l.Zone.ValueString(), r, p.region, p.region)
			loginZoneKnown = false
		}
	}
	zone := p.zone
	if loginZoneKnown {
		p.zone = l.Zone.ValueString()
	}
	p.machineInZone(at+".machine_type", l.MachineType, loginZoneKnown)
	p.zone = zone
}

// checkLoginLabels checks the login VMs' labels as they will carry them: the cluster's effective
// labels, login.labels over them and the product's own.
func (p *planner) checkLoginLabels(ctx context.Context) {
	check := func(at string, labels types.Map) {
		if !known(labels) || !known(p.plan.EffectiveLabels) || len(labels.Elements()) == 0 {
			return
		}
		all := stringMap(ctx, p.plan.EffectiveLabels, p.diags)
		maps.Copy(all, stringMap(ctx, labels, p.diags))
		all[labelRole] = string(clusterconfig.RoleLogin)
		if err := catalog.ValidateLabels(all); err != nil {
			p.invalid(at, "merged over the cluster's labels and the provider's default_labels: %v", err)
		}
	}
	if l, ok := readObject[loginModel](ctx, p.plan.Login, p.diags); ok {
		check("login.labels", l.Labels)
	}
	if known(p.plan.LoginPools) {
		var pools []loginPoolModel
		p.diags.Append(p.plan.LoginPools.ElementsAs(ctx, &pools, false)...)
		for i, pl := range pools {
			check(fmt.Sprintf("login_pools[%d].labels", i), pl.Labels)
		}
	}
}

// plannedGroup is a login group of the plan: the login block (pool "") or a pool.
type plannedGroup struct {
	pool string
	l    loginModel
}

// plannedGroups are the plan's login groups in order; false while a name or count is unknown.
func (p *planner) plannedGroups(ctx context.Context) ([]plannedGroup, bool) {
	return groupsOf(ctx, p.plan, p.diags)
}

// stateGroups are the prior state's login groups by pool.
func (p *planner) stateGroups(ctx context.Context) (map[string]loginModel, bool) {
	gs, ok := groupsOf(ctx, p.state, p.diags)
	out := map[string]loginModel{}
	for _, g := range gs {
		out[g.pool] = g.l
	}
	return out, ok
}

func groupsOf(ctx context.Context, m *model, diags *diag.Diagnostics) ([]plannedGroup, bool) {
	l, ok := readObject[loginModel](ctx, m.Login, diags)
	if !ok || !known(l.Count) || !known(m.LoginPools) {
		return nil, false
	}
	out := []plannedGroup{{l: l}}
	var pools []loginPoolModel
	diags.Append(m.LoginPools.ElementsAs(ctx, &pools, false)...)
	for _, pl := range pools {
		if !known(pl.Name) || !known(pl.Count) {
			return nil, false
		}
		out = append(out, plannedGroup{pool: pl.Name.ValueString(), l: pl.login()})
	}
	return out, true
}
