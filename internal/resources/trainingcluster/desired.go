package trainingcluster

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Labels the provider puts on every VM of the cluster, so partitions, the agent and people can find
// them; the configuration cannot set them.
const (
	labelCluster = "hypercompute-cluster"
	labelRole    = "hypercompute-role"
	// productLabelPrefix starts every label the provider sets itself.
	productLabelPrefix = "hypercompute-"
)

// desired is the cluster a plan asks for, in the terms of clusterconfig and Compute. It is built
// without API calls; the mounts of Filestore and Lustre instances are resolved at apply.
type desired struct {
	name, project, zone, region string
	// localRuntime: the provider talks to the local cloud, whose VMs are smaller hosts.
	localRuntime bool
	// network and subnet are self links.
	network, subnet string
	home            homeDesired
	lustre          *lustreDesired
	buckets         []clusterconfig.BucketMount
	storage         []storageDesired
	controller      clusterconfig.VMShape
	login           clusterconfig.VMShape
	loginCount      int
	slurm           clusterconfig.SlurmSettings
	accounting      *clusterconfig.Accounting
	monitoring      *clusterconfig.Monitoring
	loginScript     string
	osLogin         bool
	publicIPs       bool
	shielded        bool
	serviceAccount  string
	scopes          []string
	// identities are the roles' resolved identities; nil for a model written before service_accounts.
	identities *clusterconfig.Identities
	// labels are the user's labels merged with the provider's default_labels; the product's own
	// labels are added per VM.
	labels map[string]string
	agent  clusterconfig.AgentRef

	// The login VMs' own zone, labels (merged over labels), public IP and OS Login; the plan has
	// filled each from the cluster's when the configuration left it out.
	loginZone     string
	loginLabels   map[string]string
	loginPublicIP bool
	loginOSLogin  bool
	// pools are login_pools (login_groups.go).
	pools []loginGroup
}

type homeDesired struct {
	filestore string // full instance name, or ""
	server    string // from nfs_source
	share     string
	version   string // "" means the instance's protocol (Filestore) or 3
	nconnect  int
}

type lustreDesired struct {
	instance  string // full instance name, or ""
	address   string // from mount_source
	fsName    string
	mountPath string
}

func (s *desired) controllerName() string { return clusterconfig.ControllerName(s.name) }
func (s *desired) loginName(i int) string { return clusterconfig.LoginName(s.name, i) }

// clusterID is the resource's id.
func clusterID(project, zone, name string) string {
	return "projects/" + project + "/zones/" + zone + "/clusters/" + name
}

// vmLabels are the labels of one of the cluster's VMs.
func (s *desired) vmLabels(role clusterconfig.Role) map[string]string {
	out := maps.Clone(s.labels)
	if out == nil {
		out = map[string]string{}
	}
	out[labelCluster] = s.name
	out[labelRole] = string(role)
	return out
}

var (
	nfsSourceRE    = regexp.MustCompile(`^([0-9.]+):(/[A-Za-z0-9_./-]*)$`)
	lustreSourceRE = regexp.MustCompile(`^([0-9.]+)@tcp:/([a-z][a-z0-9]{0,7})$`)
)

// parseNFSSource reads "IP:/share".
func parseNFSSource(v string) (server, share string, err error) {
	m := nfsSourceRE.FindStringSubmatch(v)
	if m == nil {
		return "", "", fmt.Errorf("%q is not an NFS source of the form IP:/path (e.g. 10.0.0.2:/home)", v)
	}
	if _, perr := netip.ParseAddr(m[1]); perr != nil {
		return "", "", fmt.Errorf("%q: %q is not an IPv4 address", v, m[1])
	}
	return m[1], m[2], nil
}

// parseLustreSource reads "IP@tcp:/fsname", the form Managed Lustre's mount_point takes.
func parseLustreSource(v string) (address, fsName string, err error) {
	m := lustreSourceRE.FindStringSubmatch(v)
	if m == nil {
		return "", "", fmt.Errorf("%q is not a Lustre mount source of the form IP@tcp:/fsname (e.g. 10.0.0.3@tcp:/lustrefs)", v)
	}
	if _, perr := netip.ParseAddr(m[1]); perr != nil {
		return "", "", fmt.Errorf("%q: %q is not an IPv4 address", v, m[1])
	}
	return m[1], m[2], nil
}

func readObject[T any](ctx context.Context, o types.Object, diags *diag.Diagnostics) (T, bool) {
	var v T
	if o.IsNull() || o.IsUnknown() {
		return v, false
	}
	diags.Append(o.As(ctx, &v, tfutil.ObjectOpts)...)
	return v, true
}

func stringList(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

func stringMap(ctx context.Context, m types.Map, diags *diag.Diagnostics) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	diags.Append(m.ElementsAs(ctx, &out, false)...)
	return out
}

func shapeFrom(ctx context.Context, machine, image types.String, disk types.Object, diags *diag.Diagnostics) clusterconfig.VMShape {
	sh := clusterconfig.VMShape{MachineType: machine.ValueString(), Image: image.ValueString(), DiskSizeGB: defaultBootDiskGB, DiskType: defaultBootDiskType}
	if d, ok := readObject[bootDiskModel](ctx, disk, diags); ok {
		if !d.SizeGB.IsNull() && !d.SizeGB.IsUnknown() {
			sh.DiskSizeGB = int(d.SizeGB.ValueInt64())
		}
		if !d.Type.IsNull() && !d.Type.IsUnknown() {
			sh.DiskType = d.Type.ValueString()
		}
	}
	return sh
}

// toDesired reads a fully known plan (or state). Plan-time checks have accepted every value.
func toDesired(ctx context.Context, m *model) (*desired, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := &desired{
		name: m.Name.ValueString(), project: m.Project.ValueString(), zone: m.Zone.ValueString(),
		osLogin: m.OSLogin.ValueBool(), publicIPs: m.EnablePublicIPs.ValueBool(), shielded: m.ShieldedVM.ValueBool(),
	}
	s.region, _ = catalog.RegionOf(s.zone)
	np, nn, err := tfutil.ParseNetwork(m.Network.ValueString(), s.project)
	if err != nil {
		diags.AddAttributeError(tfutil.AttrPath("network"), "Invalid network", "network: "+err.Error())
		return nil, diags
	}
	s.network = tfutil.ComputeV1 + tfutil.NetworkID(np, nn)
	s.subnet = subnetSelfLink(m.Subnet.ValueString())

	if h, ok := readObject[homeModel](ctx, m.Home, &diags); ok {
		s.home.filestore = h.Filestore.ValueString()
		if src := h.NFSSource.ValueString(); src != "" {
			s.home.server, s.home.share, _ = parseNFSSource(src)
		}
		s.home.version = h.NFSVersion.ValueString()
		s.home.nconnect = int(h.NConnect.ValueInt64())
	}
	if l, ok := readObject[lustreModel](ctx, m.Lustre, &diags); ok {
		ls := &lustreDesired{instance: l.Instance.ValueString(), mountPath: l.MountPath.ValueString()}
		if src := l.MountSource.ValueString(); src != "" {
			ls.address, ls.fsName, _ = parseLustreSource(src)
		}
		if ls.mountPath == "" {
			ls.mountPath = clusterconfig.DefaultLustreMountPoint
		}
		s.lustre = ls
	}
	if !m.Buckets.IsNull() && !m.Buckets.IsUnknown() {
		var bs []bucketModel
		diags.Append(m.Buckets.ElementsAs(ctx, &bs, false)...)
		for _, b := range bs {
			s.buckets = append(s.buckets, clusterconfig.BucketMount{
				Bucket: b.Bucket.ValueString(), MountPoint: b.MountPath.ValueString(),
				Profile: b.Profile.ValueString(), CacheDir: b.CacheDir.ValueString(),
			})
		}
	}
	s.storage = storageFromModel(ctx, m.Storage, &diags)
	if c, ok := readObject[controllerModel](ctx, m.Controller, &diags); ok {
		s.controller = shapeFrom(ctx, c.MachineType, c.Image, c.BootDisk, &diags)
	}
	if l, ok := readObject[loginModel](ctx, m.Login, &diags); ok {
		s.login = shapeFrom(ctx, l.MachineType, l.Image, l.BootDisk, &diags)
		s.loginScript = l.StartupScript.ValueString()
		s.loginCount = int(l.Count.ValueInt64())
		s.loginZone, s.loginPublicIP, s.loginOSLogin = l.Zone.ValueString(), l.EnablePublicIP.ValueBool(), l.OSLogin.ValueBool()
		s.loginLabels = stringMap(ctx, l.Labels, &diags)
	}
	if s.loginZone == "" {
		s.loginZone = s.zone
	}
	s.pools = poolsDesired(ctx, m, s.zone, &diags)
	if sl, ok := readObject[slurmModel](ctx, m.Slurm, &diags); ok {
		s.slurm = clusterconfig.SlurmSettings{
			SchedulerParameters: stringList(ctx, sl.SchedulerParameters, &diags),
			Prolog:              sl.Prolog.ValueString(),
			Epilog:              sl.Epilog.ValueString(),
			PrologScripts:       stringList(ctx, sl.PrologScripts, &diags),
			EpilogScripts:       stringList(ctx, sl.EpilogScripts, &diags),
			Extra:               stringMap(ctx, sl.Extra, &diags),
			SuspendTime:         int(sl.SuspendTime.ValueInt64()),
			ResumeTimeout:       int(sl.ResumeTimeout.ValueInt64()),
		}
	}
	s.accounting = accountingDesired(ctx, m.Accounting, &diags)
	s.monitoring = monitoringDesired(ctx, m.Monitoring, &diags)
	if sa, ok := readObject[serviceAccountModel](ctx, m.ServiceAccount, &diags); ok {
		s.serviceAccount = sa.Email.ValueString()
		s.scopes = stringList(ctx, sa.Scopes, &diags)
	}
	if s.serviceAccount == "" {
		s.serviceAccount = "default"
	}
	if known(m.ServiceAccounts) {
		var roles serviceAccountsModel
		diags.Append(m.ServiceAccounts.As(ctx, &roles, tfutil.ObjectOpts)...)
		identity := func(o types.Object) clusterconfig.Identity {
			var r serviceAccountModel
			diags.Append(o.As(ctx, &r, tfutil.ObjectOpts)...)
			return clusterconfig.Identity{Email: r.Email.ValueString(), Scopes: nonNilSlice(stringList(ctx, r.Scopes, &diags))}
		}
		s.identities = &clusterconfig.Identities{Controller: identity(roles.Controller), Login: identity(roles.Login), Compute: identity(roles.Compute)}
	}
	if a, ok := readObject[agentModel](ctx, m.Agent, &diags); ok {
		s.agent = clusterconfig.AgentRef{Version: a.Version.ValueString(), Arch: catalog.ArchX86, URL: a.URL.ValueString(), SHA256: a.SHA256.ValueString()}
	}
	s.labels = stringMap(ctx, m.EffectiveLabels, &diags)
	for _, k := range []string{labelCluster, labelRole} {
		delete(s.labels, k)
	}
	return s, diags
}

// subnetSelfLink turns projects/P/regions/R/subnetworks/N into a self link.
func subnetSelfLink(ref string) string {
	if strings.HasPrefix(ref, "projects/") {
		return tfutil.ComputeV1 + ref
	}
	return strings.Replace(ref, "https://compute.googleapis.com/compute/v1/", tfutil.ComputeV1, 1)
}

// defaultSubnet is the subnet hypercompute_network creates for a network in a region.
func defaultSubnet(network, defaultProject, region string) (string, error) {
	p, n, err := tfutil.ParseNetwork(network, defaultProject)
	if err != nil {
		return "", err
	}
	return tfutil.ComputeV1 + "projects/" + p + "/regions/" + region + "/subnetworks/" + n + "-subnet", nil
}

// cluster is the Cluster this desired cluster renders, given its resolved mounts.
func (s *desired) cluster(mounts clusterconfig.Mounts) clusterconfig.Cluster {
	c := clusterconfig.Cluster{
		Schema:             clusterconfig.SchemaVersion,
		Name:               s.name,
		Controller:         clusterconfig.Controller{Hostname: s.controllerName()},
		LoginCount:         s.loginCount,
		Slurm:              s.slurm,
		Accounting:         s.accounting,
		Monitoring:         s.monitoring,
		LoginStartupScript: s.loginScript,
		Mounts:             mounts,
		Agents:             []clusterconfig.AgentRef{s.agent},
		LocalRuntime:       s.localRuntime,
		Cloud: &clusterconfig.Cloud{
			Project: s.project, Zone: s.zone, Network: s.network, Subnet: s.subnet,
			ServiceAccount: s.serviceAccount, Scopes: slices.Clone(s.scopes), Identities: s.identities,
			PublicIPs: s.publicIPs, ShieldedVM: s.shielded, OSLogin: s.osLogin,
			Labels: maps.Clone(s.labels), Controller: s.controller, Login: s.login,
			HomeFilestore: s.home.filestore,
		},
	}
	if s.lustre != nil {
		c.Cloud.LustreInstance = s.lustre.instance
	}
	s.loginCloud(c.Cloud)
	return c
}

// placeholderMounts stands in for the resolved mounts at plan time, so the whole cluster can be
// checked before any API call: only the addresses are made up.
func (s *desired) placeholderMounts() clusterconfig.Mounts {
	m := clusterconfig.Mounts{Home: clusterconfig.NFSMount{Server: "10.0.0.2", Share: "/home", Version: s.home.version, NConnect: s.home.nconnect}, Buckets: s.buckets}
	if s.home.server != "" {
		m.Home.Server, m.Home.Share = s.home.server, s.home.share
	}
	if s.lustre != nil {
		m.Lustre = &clusterconfig.LustreMount{Address: "10.0.0.3", FSName: "lustre", MountPoint: s.lustre.mountPath}
		if s.lustre.address != "" {
			m.Lustre.Address, m.Lustre.FSName = s.lustre.address, s.lustre.fsName
		}
	}
	for i, st := range s.storage {
		m.Extra = append(m.Extra, st.placeholder(i))
	}
	return m
}

// loginCloud records the login options that differ from the cluster's, so that import reads them
// back and a cluster that sets none keeps its config byte for byte.
func (s *desired) loginCloud(c *clusterconfig.Cloud) {
	if s.loginZone != s.zone {
		c.LoginZone = s.loginZone
	}
	if len(s.loginLabels) > 0 {
		c.LoginLabels = maps.Clone(s.loginLabels)
	}
	c.LoginPools = s.loginPools()
	if s.loginPublicIP != s.publicIPs {
		c.LoginPublicIP = &s.loginPublicIP
	}
	if s.loginOSLogin != s.osLogin {
		c.LoginOSLogin = &s.loginOSLogin
	}
}
