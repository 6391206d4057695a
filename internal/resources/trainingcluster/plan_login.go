package trainingcluster

import (
	"context"
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
			p.invalid("login.zone", "%s is in region %s, not in the cluster's region %s: login VMs use the cluster's regional subnet; choose a zone of %s",
				l.Zone.ValueString(), r, p.region, p.region)
			loginZoneKnown = false
		}
	}
	zone := p.zone
	if loginZoneKnown {
		p.zone = l.Zone.ValueString()
	}
	p.machineInZone("login.machine_type", l.MachineType, loginZoneKnown)
	p.zone = zone
	var d diag.Diagnostics
	p.plan.Login, d = types.ObjectValueFrom(ctx, loginAttrTypes, l)
	p.diags.Append(d...)
}

// checkLoginLabels checks the login VMs' labels as they will carry them: the cluster's effective
// labels, login.labels over them and the product's own.
func (p *planner) checkLoginLabels(ctx context.Context) {
	l, ok := readObject[loginModel](ctx, p.plan.Login, p.diags)
	if !ok || !known(l.Labels) || !known(p.plan.EffectiveLabels) || len(l.Labels.Elements()) == 0 {
		return
	}
	all := stringMap(ctx, p.plan.EffectiveLabels, p.diags)
	maps.Copy(all, stringMap(ctx, l.Labels, p.diags))
	all[labelRole] = string(clusterconfig.RoleLogin)
	if err := catalog.ValidateLabels(all); err != nil {
		p.invalid("login.labels", "merged over the cluster's labels and the provider's default_labels: %v", err)
	}
}
