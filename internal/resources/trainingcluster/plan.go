package trainingcluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// planner holds one ModifyPlan's inputs.
type planner struct {
	r        *clusterResource
	plan     *model
	state    *model
	hasState bool
	// configSA is service_account as configured (null when left out).
	configSA types.Object
	diags    *diag.Diagnostics
	project  string
	zone     string
	region   string
	// configLogin is the configuration's login block (null when left out), which tells an option
	// left to the cluster from one set to a value not yet known.
	configLogin types.Object
	configPools types.List
}

func known(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// ModifyPlan fills in everything knowable before apply (provider defaults, VM names, the default
// subnet, scopes and agent, the labels) and checks, with zero API calls, every rule that spans
// attributes: storage in the cluster's zone, machine types offered there, Slurm settings Slurm
// accepts, the whole cluster config as the agent will read it. A change the VMs cannot take in
// place is planned as a replacement — and refused while deletion_protection is on.
func (r *clusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	hasState := !req.State.Raw.IsNull()
	var state model
	if hasState {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	}
	if req.Plan.Raw.IsNull() {
		if hasState && state.DeletionProtection.ValueBool() {
			tfutil.RefuseProtectedDestroy(&resp.Diagnostics, what, state.ID.ValueString(),
				"no job or state on the cluster is still needed (Filestore and Lustre are never deleted with it)")
		}
		return
	}
	var plan model
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p := &planner{r: r, plan: &plan, state: &state, hasState: hasState, diags: &resp.Diagnostics}
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("service_account"), &p.configSA)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("login"), &p.configLogin)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("login_pools"), &p.configPools)...)
	tfutil.DefaultFromProvider(&plan.Project, state.Project, hasState, r.Provider, "project", p.diags)
	tfutil.DefaultFromProvider(&plan.Zone, state.Zone, hasState, r.Provider, "zone", p.diags)
	if p.diags.HasError() {
		return
	}
	p.project, p.zone = plan.Project.ValueString(), plan.Zone.ValueString()
	p.region, _ = catalog.RegionOf(p.zone)
	zoneKnown := known(plan.Zone) && p.region != ""

	if zoneKnown {
		p.planSubnet()
	} else if !known(plan.Subnet) && !plan.Subnet.IsNull() {
		plan.Subnet = types.StringUnknown()
	}
	p.planHome(zoneKnown)
	p.planLustre(zoneKnown)
	p.planStorage(ctx, zoneKnown)
	p.planController(zoneKnown)
	p.planLogin(zoneKnown)
	p.planLoginPools(zoneKnown)
	p.planSlurm()
	p.planServiceAccount(ctx)
	p.planAgent()
	p.planLabels(ctx)
	p.planCloudOutputs(ctx)
	p.checkLoginLabels(ctx)
	if p.diags.HasError() {
		return
	}
	p.checkWholeCluster(ctx)
	if p.diags.HasError() {
		return
	}
	p.recordNetwork()
	p.checkImages(ctx)
	if p.diags.HasError() {
		return
	}
	replace := p.replacements(ctx)
	if len(replace) > 0 {
		if state.DeletionProtection.ValueBool() {
			var names []string
			for _, rp := range replace {
				names = append(names, rp.String())
			}
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Deletion protection is on",
				fmt.Sprintf("deletion_protection: changing %s replaces %s %s (its controller and login VMs, and with them the jobs and slurmctld's state); "+
					"it is protected. Set deletion_protection = false and apply first if the replacement is intended.",
					strings.Join(names, ", "), what, state.ID.ValueString()))
			return
		}
		resp.RequiresReplace = append(resp.RequiresReplace, replace...)
	}
	p.planOutputs(ctx, len(replace) > 0)
	p.checkQuota(ctx, len(replace) > 0)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (p *planner) invalid(attrPath string, format string, args ...any) {
	tfutil.AddInvalid(p.diags, tfutil.AttrPath(attrPath), fmt.Sprintf(format, args...))
}

// checkWholeCluster renders nothing but checks the cluster config the agent will receive, with
// made-up storage addresses: mount paths that collide, bucket names, a cluster whose names or
// settings clusterconfig refuses. Parts still unknown are skipped.
func (p *planner) checkWholeCluster(ctx context.Context) {
	cp := *p.plan
	plan := &cp
	plan.Monitoring = monitoringConfig(ctx, plan.Monitoring, p.diags) // outputs, known after apply
	// A Filestore instance's protocol is read at apply; any version checks the rest.
	if h, ok := readObject[homeModel](ctx, plan.Home, p.diags); ok && h.NFSVersion.IsUnknown() {
		h.NFSVersion = types.StringNull()
		plan.Home, _ = types.ObjectValueFrom(ctx, homeAttrTypes, h)
	}
	for _, v := range []attr.Value{plan.Name, plan.Project, plan.Zone, plan.Network, plan.Subnet, plan.Home, plan.Lustre, plan.Buckets, plan.Storage, plan.Slurm, plan.Accounting, plan.Monitoring, plan.Login, plan.LoginPools, plan.Agent} {
		if v.IsUnknown() || !fullyKnown(v) {
			return
		}
	}
	s, d := toDesired(ctx, plan)
	p.diags.Append(d...)
	if d.HasError() {
		return
	}
	m := s.placeholderMounts()
	p.checkStoragePaths(clusterconfig.Mounts{Home: m.Home, Lustre: m.Lustre}, s.storage)
	if p.diags.HasError() {
		return
	}
	if err := clusterconfig.ValidateMounts(m); err != nil {
		attrPath := "buckets"
		if len(s.buckets) == 0 {
			attrPath = "lustre.mount_path"
		}
		p.invalid(attrPath, "%v", err)
		return
	}
	for i, b := range s.buckets {
		if err := clusterconfig.ValidateMounts(clusterconfig.Mounts{Home: m.Home, Buckets: []clusterconfig.BucketMount{b}}); err != nil {
			p.invalid(fmt.Sprintf("buckets[%d]", i), "%v", err)
		}
	}
	if p.diags.HasError() {
		return
	}
	if err := clusterconfig.ValidateCluster(s.cluster(m)); err != nil {
		p.invalid("slurm", "%v", err)
	}
}

// fullyKnown reports whether a value holds no unknown anywhere inside.
func fullyKnown(v attr.Value) bool {
	if v.IsUnknown() {
		return false
	}
	if v.IsNull() {
		return true
	}
	switch t := v.(type) {
	case types.Object:
		for _, e := range t.Attributes() {
			if !fullyKnown(e) {
				return false
			}
		}
	case types.List:
		for _, e := range t.Elements() {
			if !fullyKnown(e) {
				return false
			}
		}
	case types.Map:
		for _, e := range t.Elements() {
			if !fullyKnown(e) {
				return false
			}
		}
	}
	return true
}

// replacements lists the attributes whose change the running VMs cannot take: the controller's
// identity, machine and disk, where it lives and what it mounted at boot.
func (p *planner) replacements(ctx context.Context) path.Paths {
	if !p.hasState {
		return nil
	}
	st, pl := p.state, p.plan
	var out path.Paths
	add := func(attrPath string, changed bool) {
		if changed {
			out = append(out, tfutil.AttrPath(attrPath))
		}
	}
	differs := func(a, b attr.Value) bool {
		return known(a) && known(b) && !a.Equal(b) || (a.IsNull() != b.IsNull() && !b.IsUnknown())
	}
	add("name", differs(st.Name, pl.Name))
	add("project", differs(st.Project, pl.Project))
	add("zone", differs(st.Zone, pl.Zone))
	add("network", known(pl.Network) && !tfutil.SameNetwork(st.Network.ValueString(), pl.Network.ValueString(), p.project))
	add("subnet", known(pl.Subnet) && known(st.Subnet) && subnetSelfLink(st.Subnet.ValueString()) != subnetSelfLink(pl.Subnet.ValueString()))
	var sc, pc controllerModel
	p.diags.Append(st.Controller.As(ctx, &sc, tfutil.ObjectOpts)...)
	p.diags.Append(pl.Controller.As(ctx, &pc, tfutil.ObjectOpts)...)
	add("controller.machine_type", differs(sc.MachineType, pc.MachineType))
	add("controller.boot_disk", differs(sc.BootDisk, pc.BootDisk))
	add("controller.image", differs(sc.Image, pc.Image))
	add("enable_public_ips", differs(st.EnablePublicIPs, pl.EnablePublicIPs))
	add("shielded_vm", differs(st.ShieldedVM, pl.ShieldedVM))
	// The controller's and login VMs' own identities; the compute role's lives in the partitions'
	// templates, whose nodes roll (node_config_hash).
	add("service_accounts.controller", differs(roleIdentity(ctx, st, clusterconfig.RoleController, p.diags), roleIdentity(ctx, pl, clusterconfig.RoleController, p.diags)))
	add("service_accounts.login", differs(roleIdentity(ctx, st, clusterconfig.RoleLogin, p.diags), roleIdentity(ctx, pl, clusterconfig.RoleLogin, p.diags)))
	add("home", homeChanged(ctx, st.Home, pl.Home, p.diags))
	add("lustre", differs(st.Lustre, pl.Lustre))
	add("buckets", differs(st.Buckets, pl.Buckets))
	add("storage", differs(st.Storage, pl.Storage))
	return out
}

// homeChanged compares /home, where a version the plan leaves to the Filestore instance (unknown)
// is no change.
func homeChanged(ctx context.Context, a, b types.Object, diags *diag.Diagnostics) bool {
	var x, y homeModel
	diags.Append(a.As(ctx, &x, tfutil.ObjectOpts)...)
	diags.Append(b.As(ctx, &y, tfutil.ObjectOpts)...)
	if y.NFSVersion.IsUnknown() {
		y.NFSVersion = x.NFSVersion
	}
	return !x.Filestore.Equal(y.Filestore) && !y.Filestore.IsUnknown() || !x.NFSSource.Equal(y.NFSSource) && !y.NFSSource.IsUnknown() ||
		!x.NFSVersion.Equal(y.NFSVersion) || !x.NConnect.Equal(y.NConnect) && !y.NConnect.IsUnknown()
}

// planOutputs sets id and the outputs: known ones (names, the ssh command) now, the rest from
// prior state when the VMs stay, unknown when they are (re)created.
func (p *planner) planOutputs(ctx context.Context, replacing bool) {
	plan, st := p.plan, p.state
	keep := p.hasState && !replacing
	if known(plan.Name) && known(plan.Project) && known(plan.Zone) {
		plan.ID = types.StringValue(clusterID(p.project, p.zone, plan.Name.ValueString()))
	}
	var c, prior controllerModel
	p.diags.Append(plan.Controller.As(ctx, &c, tfutil.ObjectOpts)...)
	if keep {
		p.diags.Append(st.Controller.As(ctx, &prior, tfutil.ObjectOpts)...)
		if known(prior.InternalIP) && prior.InternalIP.ValueString() != "" {
			c.InternalIP = prior.InternalIP
		}
	}
	var d diag.Diagnostics
	plan.Controller, d = types.ObjectValueFrom(ctx, controllerAttrTypes, c)
	p.diags.Append(d...)
	plan.SlurmrestdEndpoint = types.StringUnknown()
	if known(c.InternalIP) {
		plan.SlurmrestdEndpoint = types.StringValue(endpoint(c.InternalIP.ValueString()))
	}

	plan.LoginNodes, plan.SSHCommand = types.ListUnknown(loginNodeType), types.StringUnknown()
	if groups, ok := p.plannedGroups(ctx); ok && known(plan.Name) {
		// The VMs that stay keep their IPs; a new shape or zone recreates them.
		priorGroups := map[string]loginModel{}
		priorIPs := map[string]types.String{}
		if keep && known(st.LoginNodes) {
			var priorNodes []loginNodeModel
			p.diags.Append(st.LoginNodes.ElementsAs(ctx, &priorNodes, false)...)
			for _, n := range priorNodes {
				priorIPs[n.Name.ValueString()] = n.InternalIP
			}
			if sg, ok := p.stateGroups(ctx); ok {
				priorGroups = sg
			}
		}
		nodes := []loginNodeModel{}
		for _, g := range groups {
			pl, had := priorGroups[g.pool]
			sameShape := had && pl.MachineType.Equal(g.l.MachineType) && pl.Image.Equal(g.l.Image) && pl.BootDisk.Equal(g.l.BootDisk) && pl.Zone.Equal(g.l.Zone)
			for i := range int(g.l.Count.ValueInt64()) {
				name := clusterconfig.LoginPoolName(plan.Name.ValueString(), g.pool, i)
				n := loginNodeModel{Name: types.StringValue(name), InternalIP: types.StringUnknown(), Zone: g.l.Zone}
				if ip, ok := priorIPs[name]; ok && sameShape {
					n.InternalIP = ip
				}
				nodes = append(nodes, n)
			}
		}
		plan.LoginNodes, d = types.ListValueFrom(ctx, loginNodeType, nodes)
		p.diags.Append(d...)
		first := -1
		for j, g := range groups {
			if g.l.Count.ValueInt64() > 0 {
				first = j
				break
			}
		}
		switch {
		case first < 0 && known(plan.Zone):
			plan.SSHCommand = types.StringValue(sshCommand(clusterconfig.ControllerName(plan.Name.ValueString()), p.zone, true))
		case first >= 0 && known(groups[first].l.Zone) && known(groups[first].l.EnablePublicIP):
			g := groups[first]
			plan.SSHCommand = types.StringValue(sshCommand(clusterconfig.LoginPoolName(plan.Name.ValueString(), g.pool, 0), g.l.Zone.ValueString(), !g.l.EnablePublicIP.ValueBool()))
		}
	}
	// The cluster's own configuration hash changes only with its Slurm settings, accounting and
	// monitoring; partitions and health policies never change it.
	if keep && known(st.ConfigHash) && st.Slurm.Equal(plan.Slurm) && st.Accounting.Equal(plan.Accounting) && monitoringConfig(ctx, st.Monitoring, p.diags).Equal(monitoringConfig(ctx, plan.Monitoring, p.diags)) {
		plan.ConfigHash = st.ConfigHash
	} else {
		plan.ConfigHash = types.StringUnknown()
	}
	// What nodes take from the cluster: unknown when it changes, so every partition given it
	// plans the roll of its static nodes.
	nodeSame := st.Agent.Equal(plan.Agent) && homeSame(ctx, st.Home, plan.Home, p.diags) && st.Lustre.Equal(plan.Lustre) &&
		st.Buckets.Equal(plan.Buckets) && st.Storage.Equal(plan.Storage) &&
		roleIdentity(ctx, st, clusterconfig.RoleCompute, p.diags).Equal(roleIdentity(ctx, plan, clusterconfig.RoleCompute, p.diags)) &&
		st.EnablePublicIPs.Equal(plan.EnablePublicIPs) && st.ShieldedVM.Equal(plan.ShieldedVM)
	if keep && known(st.NodeConfigHash) && st.NodeConfigHash.ValueString() != "" && nodeSame {
		plan.NodeConfigHash = st.NodeConfigHash
	} else {
		plan.NodeConfigHash = types.StringUnknown()
	}
	// An apply ends when the controller runs exactly what is declared: a drift the refresh found
	// makes this an update, which has the agent put the files back.
	plan.ConfigDrift = types.ListValueMust(types.StringType, []attr.Value{})
}

// homeSame is /home unchanged, a version left to the Filestore instance (unknown) included.
func homeSame(ctx context.Context, a, b types.Object, diags *diag.Diagnostics) bool {
	return !b.IsUnknown() && !homeChanged(ctx, a, b, diags)
}
