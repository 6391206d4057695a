package trainingcluster

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// loginGroup is one group of login VMs: the login block (pool "") or one of login_pools. Every
// step on login VMs goes through groups, so a pool is a login block with a name.
type loginGroup struct {
	pool     string
	count    int
	shape    clusterconfig.VMShape
	zone     string
	labels   map[string]string
	publicIP bool
	osLogin  bool
	script   string
}

// groups are the login block's group and the pools', in the configuration's order.
func (s *desired) groups() []loginGroup {
	own := loginGroup{
		count: s.loginCount, shape: s.login, zone: s.loginZone, labels: s.loginLabels,
		publicIP: s.loginPublicIP, osLogin: s.loginOSLogin, script: s.loginScript,
	}
	if own.zone == "" {
		own.zone = s.zone
	}
	return append([]loginGroup{own}, s.pools...)
}

func (s *desired) group(pool string) (loginGroup, bool) {
	for _, g := range s.groups() {
		if g.pool == pool {
			return g, true
		}
	}
	return loginGroup{}, false
}

func (s *desired) vmName(pool string, i int) string {
	return clusterconfig.LoginPoolName(s.name, pool, i)
}

// groupLabels are the labels of a group's VMs: the cluster's, the group's over them, the product's.
func (a *applier) groupLabels(g loginGroup) map[string]string {
	out := maps.Clone(a.d.labels)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, g.labels)
	out[labelCluster] = a.d.name
	out[labelRole] = string(clusterconfig.RoleLogin)
	if a.creating {
		return tfutil.WithCreateMarker(out)
	}
	return out
}

// groupMetadata renders a group's payload: its OS Login and startup script.
func (a *applier) groupMetadata(cluster clusterconfig.Cluster, g loginGroup) (map[string]string, error) {
	cluster.LoginStartupScript = g.script
	return clusterconfig.VMMetadata(cluster, clusterconfig.RoleLogin, nil, g.osLogin)
}

// poolsDesired reads login_pools.
func poolsDesired(ctx context.Context, m *model, zone string, diags *diag.Diagnostics) []loginGroup {
	if !known(m.LoginPools) {
		return nil
	}
	var ps []loginPoolModel
	diags.Append(m.LoginPools.ElementsAs(ctx, &ps, false)...)
	var out []loginGroup
	for _, p := range ps {
		g := loginGroup{
			pool: p.Name.ValueString(), count: int(p.Count.ValueInt64()),
			shape: shapeFrom(ctx, p.MachineType, p.Image, p.BootDisk, diags), zone: p.Zone.ValueString(),
			labels: stringMap(ctx, p.Labels, diags), publicIP: p.EnablePublicIP.ValueBool(), osLogin: p.OSLogin.ValueBool(),
			script: p.StartupScript.ValueString(),
		}
		if g.zone == "" {
			g.zone = zone
		}
		out = append(out, g)
	}
	return out
}

// loginPools are the pools as the cluster config records them.
func (s *desired) loginPools() []clusterconfig.LoginPool {
	var out []clusterconfig.LoginPool
	for _, g := range s.pools {
		out = append(out, clusterconfig.LoginPool{
			Name: g.pool, Count: g.count, Shape: g.shape, Zone: g.zone, Labels: maps.Clone(g.labels),
			PublicIP: g.publicIP, OSLogin: g.osLogin, StartupScript: g.script,
		})
	}
	return out
}

// flattenPools reads login_pools from the cluster config, with each pool's count the VMs that exist
// (so one deleted by hand shows as a change).
func flattenPools(ctx context.Context, pools []clusterconfig.LoginPool, counts map[string]int, diags *diag.Diagnostics) types.List {
	out := []loginPoolModel{}
	for _, p := range pools {
		out = append(out, loginPoolModel{
			Name: types.StringValue(p.Name), Count: types.Int64Value(int64(counts[p.Name])),
			MachineType: types.StringValue(p.Shape.MachineType), BootDisk: bootDiskValue(p.Shape), Image: types.StringValue(p.Shape.Image),
			StartupScript: stringOrNull(p.StartupScript), Zone: types.StringValue(p.Zone), Labels: stringMapValue(ctx, p.Labels, diags),
			EnablePublicIP: types.BoolValue(p.PublicIP), OSLogin: types.BoolValue(p.OSLogin),
		})
	}
	l, d := types.ListValueFrom(ctx, loginPoolType, out)
	diags.Append(d...)
	return l
}
