package trainingcluster

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// observed is the cluster as the cloud holds it.
type observed struct {
	ctl    *computepb.Instance // nil: the controller is gone
	logins map[loginKey]*computepb.Instance
	report tfutil.Report
	// cluster is the controller's cluster config; nil when it is missing or unreadable.
	cluster *clusterconfig.Cluster
	// cloud is the cluster's dashboard and alert policies, read while its config has
	// cloud_monitoring on (cloudmon.go).
	cloud *cloudObjects
}

// observe reads the controller, its report and config, and the login VMs.
func (a *applier) observe(ctx context.Context) (observed, error) {
	var o observed
	ctl, err := a.findVM(ctx, a.d.controllerName())
	if tfutil.IsNotFound(err) {
		return o, nil
	}
	if err != nil {
		return o, fmt.Errorf("reading VM %s: %w", a.d.controllerName(), err)
	}
	if !a.owned(ctl) {
		// A VM of the controller's name that is not this cluster's: the cluster is gone.
		return o, nil
	}
	o.ctl = ctl
	if v, ok := metadataMap(ctl.GetMetadata())[clusterconfig.ClusterKey]; ok {
		if c, err := clusterconfig.DecodeCluster([]byte(v)); err == nil {
			o.cluster = &c
		}
	}
	if c := o.cluster; c != nil && c.Cloud != nil {
		// An import knows the login zones only from here.
		if c.Cloud.LoginZone != "" {
			a.oldLoginZones = append(a.oldLoginZones, c.Cloud.LoginZone)
			if a.d.loginZone == "" {
				a.d.loginZone = c.Cloud.LoginZone
			}
		}
		for _, p := range c.Cloud.LoginPools {
			a.oldLoginZones = append(a.oldLoginZones, p.Zone)
		}
	}
	if o.logins, err = a.logins(ctx); err != nil {
		return o, err
	}
	if o.report, err = a.readReport(ctx, ctl.GetName()); err != nil {
		return o, fmt.Errorf("reading the guest attributes of VM %s: %w", ctl.GetName(), err)
	}
	if o.cluster != nil && o.cluster.Monitoring != nil && o.cluster.Monitoring.CloudMonitoring {
		objs, err := a.findCloud(ctx, controllerID(ctl.GetId()))
		if err != nil {
			return o, err
		}
		o.cloud = &objs
	}
	return o, nil
}

// fillOutputs sets the attributes only the cloud knows after an apply — IPs, the login VMs, the
// applied config hash, the resolved NFS version — leaving everything the plan knew as planned.
// Values still unknown (an apply that failed half-way) become empty so the state is whole.
func fillOutputs(ctx context.Context, m *model, o observed, res applyResult) diag.Diagnostics {
	var diags diag.Diagnostics
	if o.ctl != nil {
		m.SlurmrestdEndpoint = types.StringValue(endpoint(internalIP(o.ctl)))
	} else if m.SlurmrestdEndpoint.IsUnknown() {
		m.SlurmrestdEndpoint = types.StringValue("")
	}
	// The apply ended when the controller ran exactly this configuration: no drift.
	setHashes(ctx, m, o, nil, &diags)

	ctl, _ := readObject[controllerModel](ctx, m.Controller, &diags)
	ctl.InternalIP = types.StringValue("")
	if o.ctl != nil {
		ctl.InternalIP = types.StringValue(internalIP(o.ctl))
		ctl.SelfLink = types.StringValue(o.ctl.GetSelfLink())
	}
	var d diag.Diagnostics
	m.Controller, d = types.ObjectValueFrom(ctx, controllerAttrTypes, ctl)
	diags.Append(d...)

	m.LoginNodes, d = loginNodesValue(ctx, o.logins, o.poolOrder())
	diags.Append(d...)

	if home, ok := readObject[homeModel](ctx, m.Home, &diags); ok && home.NFSVersion.IsUnknown() {
		home.NFSVersion = types.StringNull()
		if res.mounts != nil {
			home.NFSVersion = types.StringValue(res.mounts.Home.Version)
		}
		m.Home, d = types.ObjectValueFrom(ctx, homeAttrTypes, home)
		diags.Append(d...)
	}
	setCloudOutputs(ctx, m, o, &diags)
	return diags
}

func endpoint(ip string) string {
	if ip == "" {
		return ""
	}
	return fmt.Sprintf("http://%s:%d", ip, clusterconfig.SlurmrestdPort)
}

// poolOrder is the order of the login pools in the controller's cluster config.
func (o observed) poolOrder() []string {
	var out []string
	if o.cluster != nil && o.cluster.Cloud != nil {
		for _, p := range o.cluster.Cloud.LoginPools {
			out = append(out, p.Name)
		}
	}
	return out
}

func loginNodesValue(ctx context.Context, logins map[loginKey]*computepb.Instance, order []string) (types.List, diag.Diagnostics) {
	nodes := []loginNodeModel{}
	for _, vm := range sortedLogins(logins, order) {
		nodes = append(nodes, loginNodeModel{
			Name: types.StringValue(vm.GetName()), InternalIP: types.StringValue(internalIP(vm)),
			Zone: types.StringValue(lastSegment(vm.GetZone())),
		})
	}
	return types.ListValueFrom(ctx, loginNodeType, nodes)
}

// flatten sets every attribute from the cloud, for Read and import: the controller VM itself
// (machine type, network, labels, public IPs, shielded VM, OS Login), the login VMs that exist (so
// one deleted by hand shows as a change of login.count), and the cluster config in the controller's
// metadata (mounts, Slurm settings, shapes, agent). prior supplies the forms the configuration
// wrote values in and what the cloud does not hold (deletion_protection, timeouts).
func flatten(ctx context.Context, p *providerdata.Data, m *model, o observed) diag.Diagnostics {
	var diags diag.Diagnostics
	project := m.Project.ValueString()
	ctl := o.ctl
	md := metadataMap(ctl.GetMetadata())
	if o.cluster == nil || o.cluster.Cloud == nil {
		if m.Network.IsNull() {
			diags.AddError("Not a hypercompute cluster",
				fmt.Sprintf("VM %s carries no readable %s metadata; it was not created by hypercompute_training_cluster and cannot be imported", ctl.GetName(), clusterconfig.ClusterKey))
			return diags
		}
		diags.AddWarning("Cluster configuration missing",
			fmt.Sprintf("The %s metadata of VM %s is missing or unreadable; the next apply writes it again.", clusterconfig.ClusterKey, ctl.GetName()))
	}

	var nic *computepb.NetworkInterface
	if nics := ctl.GetNetworkInterfaces(); len(nics) > 0 {
		nic = nics[0]
	}
	if api := nic.GetNetwork(); api != "" && !(!m.Network.IsNull() && tfutil.SameNetwork(m.Network.ValueString(), api, project)) {
		m.Network = types.StringValue(tfutil.NetworkRef(api, project))
	}
	if api := nic.GetSubnetwork(); api != "" && subnetSelfLink(m.Subnet.ValueString()) != subnetSelfLink(api) {
		m.Subnet = types.StringValue(subnetSelfLink(api))
	}
	m.EnablePublicIPs = types.BoolValue(len(nic.GetAccessConfigs()) > 0)
	m.ShieldedVM = types.BoolValue(ctl.GetShieldedInstanceConfig().GetEnableSecureBoot())
	m.OSLogin = types.BoolValue(strings.EqualFold(md[clusterconfig.OSLoginKey], "true"))

	if m.DeletionProtection.IsNull() || m.DeletionProtection.IsUnknown() {
		m.DeletionProtection = types.BoolValue(true)
	}
	// labels shows neither the product's own labels nor the creation marker of a create that has
	// not finished; effective_labels holds them all, so an imported unfinished cluster plans the
	// update that removes the marker.
	own := maps.Clone(tfutil.WithoutCreateMarker(ctl.GetLabels()))
	delete(own, labelCluster)
	delete(own, labelRole)
	labels, _, d := tfutil.ReadLabels(ctx, p, own, m.Labels)
	diags.Append(d...)
	m.Labels = labels
	m.EffectiveLabels, d = types.MapValueFrom(ctx, types.StringType, nonNilMap(ctl.GetLabels()))
	diags.Append(d...)

	var prior controllerModel
	if !m.Controller.IsNull() && !m.Controller.IsUnknown() {
		diags.Append(m.Controller.As(ctx, &prior, tfutil.ObjectOpts)...)
	}
	cm := controllerModel{
		MachineType: types.StringValue(lastSegment(ctl.GetMachineType())),
		BootDisk:    prior.BootDisk, Image: prior.Image,
		Name: types.StringValue(ctl.GetName()), InternalIP: types.StringValue(internalIP(ctl)), SelfLink: types.StringValue(ctl.GetSelfLink()),
	}
	if c := o.cluster; c != nil && c.Cloud != nil {
		cm.BootDisk, cm.Image = bootDiskValue(c.Cloud.Controller), types.StringValue(c.Cloud.Controller.Image)
		diags.Append(flattenCluster(ctx, m, *c, o.logins)...)
		setCloudOutputs(ctx, m, o, &diags)
	} else if !m.Login.IsNull() {
		var lm loginModel
		diags.Append(m.Login.As(ctx, &lm, tfutil.ObjectOpts)...)
		lm.Count = types.Int64Value(int64(len(ownLogins(o.logins))))
		m.Login, d = types.ObjectValueFrom(ctx, loginAttrTypes, lm)
		diags.Append(d...)
	}
	if cm.BootDisk.IsNull() || cm.BootDisk.IsUnknown() {
		cm.BootDisk = bootDiskDefault()
	}
	if cm.Image.IsNull() || cm.Image.IsUnknown() {
		cm.Image = types.StringValue(defaultImage)
	}
	m.Controller, d = types.ObjectValueFrom(ctx, controllerAttrTypes, cm)
	diags.Append(d...)

	m.LoginNodes, d = loginNodesValue(ctx, o.logins, o.poolOrder())
	diags.Append(d...)
	m.SSHCommand = types.StringValue(sshCommand(ctl.GetName(), m.Zone.ValueString(), true))
	if vms := sortedLogins(o.logins, o.poolOrder()); len(vms) > 0 {
		m.SSHCommand = types.StringValue(sshCommand(vms[0].GetName(), lastSegment(vms[0].GetZone()), !hasPublicIP(vms[0])))
	}
	m.SlurmrestdEndpoint = types.StringValue(endpoint(internalIP(ctl)))
	setHashes(ctx, m, o, o.drift(), &diags)
	return diags
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func bootDiskValue(sh clusterconfig.VMShape) types.Object {
	size, typ := sh.DiskSizeGB, sh.DiskType
	if size == 0 {
		size = defaultBootDiskGB
	}
	if typ == "" {
		typ = defaultBootDiskType
	}
	return types.ObjectValueMust(bootDiskAttrTypes, map[string]attr.Value{"size_gb": types.Int64Value(int64(size)), "type": types.StringValue(typ)})
}

// flattenCluster sets what the controller's cluster config holds.
func flattenCluster(ctx context.Context, m *model, c clusterconfig.Cluster, vms map[loginKey]*computepb.Instance) diag.Diagnostics {
	var diags, d diag.Diagnostics
	cloud := c.Cloud
	h := c.Mounts.Home
	home := homeModel{
		Filestore: types.StringNull(), NFSSource: types.StringNull(),
		NFSVersion: types.StringValue(h.Version), NConnect: types.Int64Value(int64(h.NConnect)),
	}
	if h.Version == "" {
		home.NFSVersion = types.StringValue("3")
	}
	if h.NConnect == 0 {
		home.NConnect = types.Int64Value(clusterconfig.DefaultNFSNConnect)
	}
	if cloud.HomeFilestore != "" {
		home.Filestore = types.StringValue(cloud.HomeFilestore)
	} else {
		home.NFSSource = types.StringValue(h.Source())
	}
	m.Home, d = types.ObjectValueFrom(ctx, homeAttrTypes, home)
	diags.Append(d...)

	m.Lustre = types.ObjectNull(lustreAttrTypes)
	if l := c.Mounts.Lustre; l != nil {
		lm := lustreModel{Instance: types.StringNull(), MountSource: types.StringNull(), MountPath: types.StringValue(l.MountPoint)}
		if l.MountPoint == "" {
			lm.MountPath = types.StringValue(clusterconfig.DefaultLustreMountPoint)
		}
		if cloud.LustreInstance != "" {
			lm.Instance = types.StringValue(cloud.LustreInstance)
		} else {
			lm.MountSource = types.StringValue(l.Source())
		}
		m.Lustre, d = types.ObjectValueFrom(ctx, lustreAttrTypes, lm)
		diags.Append(d...)
	}

	diags.Append(flattenStorage(ctx, m, c.Mounts.Extra)...)
	// Optional collections read back empty, never null (tfutil/collections.go).
	if len(c.Mounts.Buckets) == 0 {
		m.Buckets = tfutil.EmptyList(types.ObjectType{AttrTypes: bucketAttrTypes})
	} else {
		var bs []bucketModel
		for _, b := range c.Mounts.Buckets {
			bm := bucketModel{Bucket: types.StringValue(b.Bucket), MountPath: types.StringValue(b.MountPoint), Profile: types.StringValue(b.Profile), CacheDir: types.StringNull()}
			if b.CacheDir != "" {
				bm.CacheDir = types.StringValue(b.CacheDir)
			}
			bs = append(bs, bm)
		}
		m.Buckets, d = types.ListValueFrom(ctx, types.ObjectType{AttrTypes: bucketAttrTypes}, bs)
		diags.Append(d...)
	}

	counts := map[string]int{}
	for k := range vms {
		counts[k.pool]++
	}
	lm := loginModel{
		Count: types.Int64Value(int64(counts[""])), MachineType: types.StringValue(cloud.Login.MachineType),
		BootDisk: bootDiskValue(cloud.Login), Image: types.StringValue(cloud.Login.Image),
		StartupScript: stringOrNull(c.LoginStartupScript),
		Zone:          types.StringValue(cloud.Zone), EnablePublicIP: types.BoolValue(cloud.PublicIPs), OSLogin: types.BoolValue(cloud.OSLogin),
		Labels: stringMapValue(ctx, cloud.LoginLabels, &diags),
	}
	if cloud.LoginZone != "" {
		lm.Zone = types.StringValue(cloud.LoginZone)
	}
	if cloud.LoginPublicIP != nil {
		lm.EnablePublicIP = types.BoolValue(*cloud.LoginPublicIP)
	}
	if cloud.LoginOSLogin != nil {
		lm.OSLogin = types.BoolValue(*cloud.LoginOSLogin)
	}
	m.Login, d = types.ObjectValueFrom(ctx, loginAttrTypes, lm)
	diags.Append(d...)
	m.LoginPools = flattenPools(ctx, cloud.LoginPools, counts, &diags)

	sl := slurmModel{
		ClusterName:         types.StringValue(c.Name),
		SchedulerParameters: stringListValue(ctx, c.Slurm.SchedulerParameters, &diags),
		Prolog:              stringOrNull(c.Slurm.Prolog),
		Epilog:              stringOrNull(c.Slurm.Epilog),
		PrologScripts:       stringListValue(ctx, c.Slurm.PrologScripts, &diags),
		EpilogScripts:       stringListValue(ctx, c.Slurm.EpilogScripts, &diags),
		Extra:               stringMapValue(ctx, c.Slurm.Extra, &diags),
		SuspendTime:         intOrNull(c.Slurm.SuspendTime),
		ResumeTimeout:       intOrNull(c.Slurm.ResumeTimeout),
	}
	m.Slurm, d = types.ObjectValueFrom(ctx, slurmAttrTypes, sl)
	diags.Append(d...)
	m.Accounting = flattenAccounting(ctx, c.Accounting, m.Accounting, &diags)
	m.Monitoring = flattenMonitoring(ctx, c.Monitoring, m.Monitoring, &diags)

	email := cloud.ServiceAccount
	if email == "" {
		email = "default"
	}
	scopes, d := types.ListValueFrom(ctx, types.StringType, nonNilSlice(cloud.Scopes))
	diags.Append(d...)
	m.ServiceAccount, d = types.ObjectValueFrom(ctx, serviceAccountAttrTypes, serviceAccountModel{Email: types.StringValue(email), Scopes: scopes})
	diags.Append(d...)
	m.ServiceAccounts = flattenIdentities(ctx, cloud, &diags)

	if a, err := c.AgentFor(catalog.ArchX86); err == nil {
		m.Agent, d = types.ObjectValueFrom(ctx, agentAttrTypes, agentModel{URL: types.StringValue(a.URL), SHA256: types.StringValue(a.SHA256), Version: types.StringValue(a.Version)})
		diags.Append(d...)
	}
	return diags
}

func nonNilSlice(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func intOrNull(v int) types.Int64 {
	if v == 0 {
		return types.Int64Null()
	}
	return types.Int64Value(int64(v))
}

// stringListValue is an optional list as Read returns it: empty when the API holds none, never null,
// so `[]` and an unset list both match it (tfutil/collections.go).
func stringListValue(ctx context.Context, v []string, diags *diag.Diagnostics) types.List {
	l, d := types.ListValueFrom(ctx, types.StringType, nonNilSlice(v))
	diags.Append(d...)
	return l
}

// stringMapValue is stringListValue for maps.
func stringMapValue(ctx context.Context, v map[string]string, diags *diag.Diagnostics) types.Map {
	m, d := types.MapValueFrom(ctx, types.StringType, nonNilMap(v))
	diags.Append(d...)
	return m
}

// sshCommand is how a user reaches the cluster: the first login VM in its zone, or the controller
// when the cluster has none, through Identity-Aware Proxy unless the VM has a public IP (the VMs
// have none by default).
func sshCommand(vm, zone string, iap bool) string {
	if !iap {
		return fmt.Sprintf("gcloud compute ssh %s --zone %s", vm, zone)
	}
	return fmt.Sprintf("gcloud compute ssh %s --zone %s --tunnel-through-iap", vm, zone)
}

// flattenIdentities reads the roles' identities; a cluster written before them reads as null, which the plan
// resolves from service_account without a change to its VMs.
func flattenIdentities(ctx context.Context, cloud *clusterconfig.Cloud, diags *diag.Diagnostics) types.Object {
	if cloud == nil || cloud.Identities == nil {
		return types.ObjectNull(serviceAccountsAttrTypes)
	}
	one := func(id clusterconfig.Identity) serviceAccountModel {
		scopes, d := types.ListValueFrom(ctx, types.StringType, nonNilSlice(id.Scopes))
		diags.Append(d...)
		return serviceAccountModel{Email: types.StringValue(id.Email), Scopes: scopes}
	}
	obj := func(id clusterconfig.Identity) types.Object {
		o, d := types.ObjectValueFrom(ctx, serviceAccountAttrTypes, one(id))
		diags.Append(d...)
		return o
	}
	out, d := types.ObjectValueFrom(ctx, serviceAccountsAttrTypes, serviceAccountsModel{
		Controller: obj(cloud.Identities.Controller), Login: obj(cloud.Identities.Login), Compute: obj(cloud.Identities.Compute)})
	diags.Append(d...)
	return out
}
