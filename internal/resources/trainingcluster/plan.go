package trainingcluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/release"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// planner holds one ModifyPlan's inputs.
type planner struct {
	r        *clusterResource
	plan     *model
	state    *model
	hasState bool
	diags    *diag.Diagnostics
	project  string
	zone     string
	region   string
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
	p.planController(zoneKnown)
	p.planLogin(zoneKnown)
	p.planSlurm()
	p.planServiceAccount(ctx)
	p.planAgent()
	p.planLabels(ctx)
	if p.diags.HasError() {
		return
	}
	p.checkWholeCluster(ctx)
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
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (p *planner) invalid(attrPath string, format string, args ...any) {
	tfutil.AddInvalid(p.diags, tfutil.AttrPath(attrPath), fmt.Sprintf(format, args...))
}

func (p *planner) planSubnet() {
	plan := p.plan
	if !plan.Subnet.IsNull() && !plan.Subnet.IsUnknown() {
		_, region, _, err := parseSubnet(plan.Subnet.ValueString())
		if err == nil && region != p.region {
			p.invalid("subnet", "%s is in region %s, but zone %s is in region %s; use a subnet of %s", plan.Subnet.ValueString(), region, p.zone, p.region, p.region)
		}
		return
	}
	if plan.Network.IsUnknown() || plan.Project.IsUnknown() {
		plan.Subnet = types.StringUnknown()
		return
	}
	if p.hasState && known(p.state.Subnet) && tfutil.SameNetwork(p.state.Network.ValueString(), plan.Network.ValueString(), p.project) &&
		p.state.Zone.Equal(plan.Zone) {
		plan.Subnet = p.state.Subnet
		return
	}
	if s, err := defaultSubnet(plan.Network.ValueString(), p.project, p.region); err == nil {
		plan.Subnet = types.StringValue(s)
	}
}

// storageLocation checks a Filestore or Lustre instance id against the cluster's zone: the VMs
// mount it across zones only at a latency and cost a /home or a training file system should not
// pay, and a Lustre instance is zonal anyway.
func (p *planner) storageLocation(attrPath, product, id string, regionalOK bool) {
	_, loc, _, ok := tfutil.SplitInstanceName(id)
	if !ok {
		p.invalid(attrPath, "%q is not a %s id of the form projects/{project}/locations/{location}/instances/{name}", id, product)
		return
	}
	switch {
	case loc == p.zone:
	case regionalOK && loc == p.region:
	case catalog.IsRegion(loc) && !regionalOK:
		p.invalid(attrPath, "%s %s is regional (%s), but a Managed Lustre instance lives in one zone; use the instance in zone %s", product, id, loc, p.zone)
	default:
		p.invalid(attrPath, "%s %s is in %s, but the cluster's VMs are in zone %s; put the storage in %s (or the cluster in %s)", product, id, loc, p.zone, p.zone, loc)
	}
}

func (p *planner) planHome(zoneKnown bool) {
	var h homeModel
	p.diags.Append(p.plan.Home.As(context.Background(), &h, tfutil.ObjectOpts)...)
	switch {
	case h.Filestore.IsUnknown() || h.NFSSource.IsUnknown():
	case h.Filestore.IsNull() == h.NFSSource.IsNull():
		p.invalid("home", "set exactly one of home.filestore (a hypercompute_filestore id) and home.nfs_source (an existing NFS export, IP:/path)")
	case known(h.Filestore) && zoneKnown:
		p.storageLocation("home.filestore", "Filestore instance", h.Filestore.ValueString(), true)
	case known(h.NFSSource):
		if _, _, err := parseNFSSource(h.NFSSource.ValueString()); err != nil {
			p.invalid("home.nfs_source", "%v", err)
		}
	}
	if h.NFSVersion.IsUnknown() || h.NFSVersion.IsNull() {
		var prior homeModel
		if p.hasState {
			p.diags.Append(p.state.Home.As(context.Background(), &prior, tfutil.ObjectOpts)...)
		}
		switch {
		case p.hasState && prior.Filestore.Equal(h.Filestore) && prior.NFSSource.Equal(h.NFSSource) && known(prior.NFSVersion):
			h.NFSVersion = prior.NFSVersion
		case known(h.NFSSource):
			h.NFSVersion = types.StringValue("3")
		default:
			h.NFSVersion = types.StringUnknown() // the Filestore instance's protocol, read at apply
		}
		var d diag.Diagnostics
		p.plan.Home, d = types.ObjectValueFrom(context.Background(), homeAttrTypes, h)
		p.diags.Append(d...)
	}
}

func (p *planner) planLustre(zoneKnown bool) {
	l, ok := readObject[lustreModel](context.Background(), p.plan.Lustre, p.diags)
	if !ok {
		return
	}
	switch {
	case l.Instance.IsUnknown() || l.MountSource.IsUnknown():
	case l.Instance.IsNull() == l.MountSource.IsNull():
		p.invalid("lustre", "set exactly one of lustre.instance (a hypercompute_lustre id) and lustre.mount_source (IP@tcp:/fsname)")
	case known(l.Instance) && zoneKnown:
		p.storageLocation("lustre.instance", "Managed Lustre instance", l.Instance.ValueString(), false)
	case known(l.MountSource):
		if _, _, err := parseLustreSource(l.MountSource.ValueString()); err != nil {
			p.invalid("lustre.mount_source", "%v", err)
		}
	}
}

func (p *planner) machineInZone(attrPath string, v types.String, zoneKnown bool) {
	if !known(v) {
		return
	}
	var err error
	if zoneKnown {
		err = catalog.ValidateMachineInZone(v.ValueString(), p.zone)
	} else {
		err = catalog.ValidateMachineType(v.ValueString())
	}
	if err != nil {
		p.invalid(attrPath, "%v", err)
		return
	}
	if m, _ := catalog.Machine(v.ValueString()); m.HasGPU() || m.Arch != catalog.ArchX86 {
		p.invalid(attrPath, "%s is a GPU or Arm machine type; the controller and login VMs are x86_64 CPU VMs (GPUs belong in a hypercompute_node_partition)", v.ValueString())
	}
}

func (p *planner) planController(zoneKnown bool) {
	plan := p.plan
	c := controllerModel{
		MachineType: types.StringValue(defaultControllerMachine), BootDisk: bootDiskDefault(), Image: types.StringValue(defaultImage),
	}
	if known(plan.Controller) {
		p.diags.Append(plan.Controller.As(context.Background(), &c, tfutil.ObjectOpts)...)
	}
	p.machineInZone("controller.machine_type", c.MachineType, zoneKnown)
	if known(plan.Name) {
		c.Name = types.StringValue(clusterconfig.ControllerName(plan.Name.ValueString()))
		if known(plan.Project) && known(plan.Zone) {
			c.SelfLink = types.StringValue(fmt.Sprintf("%sprojects/%s/zones/%s/instances/%s", tfutil.ComputeV1, p.project, p.zone, c.Name.ValueString()))
		} else {
			c.SelfLink = types.StringUnknown()
		}
	} else {
		c.Name, c.SelfLink = types.StringUnknown(), types.StringUnknown()
	}
	c.InternalIP = types.StringUnknown()
	var d diag.Diagnostics
	plan.Controller, d = types.ObjectValueFrom(context.Background(), controllerAttrTypes, c)
	p.diags.Append(d...)
}

func (p *planner) planLogin(zoneKnown bool) {
	if l, ok := readObject[loginModel](context.Background(), p.plan.Login, p.diags); ok {
		p.machineInZone("login.machine_type", l.MachineType, zoneKnown)
	}
}

func (p *planner) planSlurm() {
	ctx := context.Background()
	s := slurmModel{
		SchedulerParameters: types.ListNull(types.StringType), Extra: types.MapNull(types.StringType),
	}
	if known(p.plan.Slurm) {
		p.diags.Append(p.plan.Slurm.As(ctx, &s, tfutil.ObjectOpts)...)
	}
	if known(s.Extra) && fullyKnown(s.Extra) {
		if err := clusterconfig.ValidateExtraSlurmSettings(stringMap(ctx, s.Extra, p.diags)); err != nil {
			p.invalid("slurm.extra", "%v", err)
		}
	}
	for _, sc := range []struct {
		attr string
		v    types.String
	}{{"slurm.prolog", s.Prolog}, {"slurm.epilog", s.Epilog}} {
		if known(sc.v) && !strings.HasPrefix(sc.v.ValueString(), "#!") {
			p.invalid(sc.attr, "the script must start with an interpreter line such as #!/bin/bash: slurmd executes it directly")
		}
	}
	if known(s.SchedulerParameters) {
		for _, item := range stringList(ctx, s.SchedulerParameters, p.diags) {
			if item == "" || strings.ContainsAny(item, ", \t\n\r#\"") {
				p.invalid("slurm.scheduler_parameters", "%q is invalid: give one option per entry, without spaces, commas, quotes or \"#\"", item)
			}
		}
	}
	if known(p.plan.Name) {
		s.ClusterName = p.plan.Name
	} else {
		s.ClusterName = types.StringUnknown()
	}
	var d diag.Diagnostics
	p.plan.Slurm, d = types.ObjectValueFrom(ctx, slurmAttrTypes, s)
	p.diags.Append(d...)
}

// checkpointing reports whether a bucket is mounted for checkpoints (written by jobs).
func (p *planner) checkpointing(ctx context.Context) (bool, bool) {
	if p.plan.Buckets.IsUnknown() {
		return false, false
	}
	if p.plan.Buckets.IsNull() {
		return false, true
	}
	for _, e := range p.plan.Buckets.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsUnknown() {
			return false, false
		}
		var b bucketModel
		p.diags.Append(o.As(ctx, &b, tfutil.ObjectOpts)...)
		if b.Profile.IsUnknown() {
			return false, false
		}
		if b.Profile.ValueString() == clusterconfig.BucketProfileCheckpointing {
			return true, true
		}
	}
	return false, true
}

func (p *planner) planServiceAccount(ctx context.Context) {
	sa := serviceAccountModel{Email: types.StringValue("default"), Scopes: types.ListUnknown(types.StringType)}
	if known(p.plan.ServiceAccount) {
		p.diags.Append(p.plan.ServiceAccount.As(ctx, &sa, tfutil.ObjectOpts)...)
	}
	if sa.Email.IsNull() {
		sa.Email = types.StringValue("default")
	}
	if !known(sa.Scopes) {
		if cp, ok := p.checkpointing(ctx); ok {
			scopes := slices.Clone(defaultScopes)
			if cp {
				scopes[slices.Index(scopes, readOnlyStorageScope)] = readWriteStorageScope
			}
			var d diag.Diagnostics
			sa.Scopes, d = types.ListValueFrom(ctx, types.StringType, scopes)
			p.diags.Append(d...)
		} else {
			sa.Scopes = types.ListUnknown(types.StringType)
		}
	} else {
		scopes := stringList(ctx, sa.Scopes, p.diags)
		if !slices.Contains(scopes, "https://www.googleapis.com/auth/compute") && !slices.Contains(scopes, "https://www.googleapis.com/auth/cloud-platform") {
			p.diags.AddAttributeWarning(tfutil.AttrPath("service_account.scopes"), "No Compute scope",
				"service_account.scopes: neither compute nor cloud-platform is listed, so the controller cannot create or delete nodes: partitions with dynamic nodes will not power up.")
		}
	}
	var d diag.Diagnostics
	p.plan.ServiceAccount, d = types.ObjectValueFrom(ctx, serviceAccountAttrTypes, sa)
	p.diags.Append(d...)
}

// agentVersion is the version label of an agent the configuration names without one.
func (p *planner) agentVersion() string {
	for _, v := range []string{release.Version, p.providerVersion()} {
		if v != "" && clusterconfig.ValidateAgentRef(clusterconfig.AgentRef{Version: v, URL: "/x", SHA256: strings.Repeat("0", 64)}) == nil {
			return v
		}
	}
	return "dev"
}

func (p *planner) providerVersion() string {
	if p.r.Provider == nil {
		return ""
	}
	return p.r.Provider.Version
}

func (p *planner) planAgent() {
	ctx := context.Background()
	plan := p.plan
	if plan.Agent.IsNull() || plan.Agent.IsUnknown() {
		a, ok := release.DefaultAgent(catalog.ArchX86)
		if !ok {
			if p.r.Provider != nil {
				tfutil.AddInvalid(p.diags, path.Root("agent"),
					"this is a development build of the provider, which carries no released agent build: set agent = { url = ..., sha256 = ... } "+
						"to a hypercompute-agent binary the VMs can fetch (https://, http://, file:/// or a path in the image) and its SHA-256")
			}
			return
		}
		var d diag.Diagnostics
		plan.Agent, d = types.ObjectValueFrom(ctx, agentAttrTypes, agentModel{URL: types.StringValue(a.URL), SHA256: types.StringValue(a.SHA256), Version: types.StringValue(a.Version)})
		p.diags.Append(d...)
		return
	}
	var a agentModel
	p.diags.Append(plan.Agent.As(ctx, &a, tfutil.ObjectOpts)...)
	if a.Version.IsNull() || a.Version.IsUnknown() {
		a.Version = types.StringValue(p.agentVersion())
	}
	if known(a.URL) && known(a.SHA256) {
		err := clusterconfig.ValidateAgentRef(clusterconfig.AgentRef{Version: a.Version.ValueString(), URL: a.URL.ValueString(), SHA256: a.SHA256.ValueString()})
		if err != nil {
			p.invalid("agent", "%v", err)
		}
	}
	var d diag.Diagnostics
	plan.Agent, d = types.ObjectValueFrom(ctx, agentAttrTypes, a)
	p.diags.Append(d...)
}

func (p *planner) planLabels(ctx context.Context) {
	plan := p.plan
	if known(plan.Labels) {
		for k := range plan.Labels.Elements() {
			if k == labelCluster || k == labelRole {
				p.invalid("labels", "%q is set by the provider on every VM of the cluster; remove it from labels", k)
			}
		}
	}
	eff, d := tfutil.EffectiveLabels(ctx, p.r.Provider, plan.Labels)
	p.diags.Append(d...)
	if eff.IsUnknown() || !known(plan.Name) {
		plan.EffectiveLabels = types.MapUnknown(types.StringType)
		return
	}
	all := stringMap(ctx, eff, p.diags)
	if all == nil {
		all = map[string]string{}
	}
	all[labelCluster] = plan.Name.ValueString()
	all[labelRole] = string(clusterconfig.RoleController)
	if err := catalog.ValidateLabels(all); err != nil {
		p.invalid("labels", "together with the provider's default_labels and the cluster's own labels: %v", err)
	}
	plan.EffectiveLabels, d = types.MapValueFrom(ctx, types.StringType, all)
	p.diags.Append(d...)
}

// checkWholeCluster renders nothing but checks the cluster config the agent will receive, with
// made-up storage addresses: mount paths that collide, bucket names, a cluster whose names or
// settings clusterconfig refuses. Parts still unknown are skipped.
func (p *planner) checkWholeCluster(ctx context.Context) {
	cp := *p.plan
	plan := &cp
	// A Filestore instance's protocol is read at apply; any version checks the rest.
	if h, ok := readObject[homeModel](ctx, plan.Home, p.diags); ok && h.NFSVersion.IsUnknown() {
		h.NFSVersion = types.StringNull()
		plan.Home, _ = types.ObjectValueFrom(ctx, homeAttrTypes, h)
	}
	for _, v := range []attr.Value{plan.Name, plan.Project, plan.Zone, plan.Network, plan.Subnet, plan.Home, plan.Lustre, plan.Buckets, plan.Slurm, plan.Login, plan.Agent} {
		if v.IsUnknown() || !fullyKnown(v) {
			return
		}
	}
	s, d := specFrom(ctx, plan)
	p.diags.Append(d...)
	if d.HasError() {
		return
	}
	m := s.placeholderMounts()
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
	add("service_account", differs(st.ServiceAccount, pl.ServiceAccount))
	add("home", homeChanged(ctx, st.Home, pl.Home, p.diags))
	add("lustre", differs(st.Lustre, pl.Lustre))
	add("buckets", differs(st.Buckets, pl.Buckets))
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

	l, ok := readObject[loginModel](ctx, plan.Login, p.diags)
	plan.LoginNodes, plan.SSHCommand = types.ListUnknown(loginNodeType), types.StringUnknown()
	if ok && known(l.Count) && known(plan.Name) {
		n := int(l.Count.ValueInt64())
		var priorNodes []loginNodeModel
		var priorLogin loginModel
		if keep && known(st.LoginNodes) {
			p.diags.Append(st.LoginNodes.ElementsAs(ctx, &priorNodes, false)...)
			p.diags.Append(st.Login.As(ctx, &priorLogin, tfutil.ObjectOpts)...)
		}
		sameShape := priorLogin.MachineType.Equal(l.MachineType) && priorLogin.Image.Equal(l.Image) && priorLogin.BootDisk.Equal(l.BootDisk)
		nodes := make([]loginNodeModel, n)
		for i := range nodes {
			name := clusterconfig.LoginName(plan.Name.ValueString(), i)
			nodes[i] = loginNodeModel{Name: types.StringValue(name), InternalIP: types.StringUnknown()}
			if sameShape && i < len(priorNodes) && priorNodes[i].Name.ValueString() == name {
				nodes[i].InternalIP = priorNodes[i].InternalIP
			}
		}
		plan.LoginNodes, d = types.ListValueFrom(ctx, loginNodeType, nodes)
		p.diags.Append(d...)
		if known(plan.Zone) {
			plan.SSHCommand = types.StringValue(sshCommand(plan.Name.ValueString(), p.zone, n > 0))
		}
	}
	// The applied configuration's hash changes only with the Slurm settings (and partitions, which
	// Read picks up).
	if keep && known(st.ConfigHash) && st.Slurm.Equal(plan.Slurm) {
		plan.ConfigHash = st.ConfigHash
	} else {
		plan.ConfigHash = types.StringUnknown()
	}
}
