package trainingcluster

import (
	"context"
	"fmt"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The cluster's extra storage: NFS and Lustre file systems at paths of the configuration's
// choosing, besides /home, the one `lustre` and the buckets (which stay as they are, so no state
// upgrade). Each becomes a clusterconfig.ExtraMount; node sets choose among them by path
// (hypercompute_node_partition.storage).

type storageModel struct {
	MountPath    types.String `tfsdk:"mount_path"`
	Filestore    types.String `tfsdk:"filestore"`
	NFSSource    types.String `tfsdk:"nfs_source"`
	Lustre       types.String `tfsdk:"lustre"`
	LustreSource types.String `tfsdk:"lustre_source"`
	Login        types.Bool   `tfsdk:"login"`
}

var storageAttrTypes = map[string]attr.Type{
	"mount_path": types.StringType, "filestore": types.StringType, "nfs_source": types.StringType,
	"lustre": types.StringType, "lustre_source": types.StringType, "login": types.BoolType,
}

// maxStorage bounds the list like buckets: every VM mounts each at boot.
const maxStorage = 16

func storageAttribute() schema.ListNestedAttribute {
	return tfutil.OptionalListNested(schema.ListNestedAttribute{
		MarkdownDescription: "Further shared file systems, each at its own path: Filestore instances, Managed Lustre instances (created by this provider or existing, by `id`) " +
			"and other NFS or Lustre servers (by source). Set exactly one of `filestore`, `nfs_source`, `lustre` and `lustre_source` per entry. " +
			"Every compute node mounts all of them unless its `hypercompute_node_partition` chooses with `storage`; the controller mounts all; login VMs those with `login = true`. " +
			"Paths must be unique and none may lie inside another (or inside `/home`, the `lustre` path or a bucket's). Changing the list replaces the cluster, as `home`, `lustre` and `buckets` do.",
		Validators: []validator.List{listvalidator.SizeAtMost(maxStorage)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"mount_path": schema.StringAttribute{Required: true, MarkdownDescription: "Absolute mount path, e.g. `/data` or `/scratch`."},
			"filestore": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "A `hypercompute_filestore`'s `id` (or an existing instance's full name); its IP, share and protocol are read at apply. It must be in the cluster's zone (or region, for regional tiers) and network.",
			},
			"nfs_source": schema.StringAttribute{Optional: true, MarkdownDescription: "An existing NFS export, `IP:/path`, mounted with NFS v3."},
			"lustre": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "A `hypercompute_lustre`'s `id` (or an existing instance's full name); it must be in the cluster's zone and network.",
			},
			"lustre_source": schema.StringAttribute{Optional: true, MarkdownDescription: "An existing Lustre file system, `IP@tcp:/fsname`."},
			"login": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether the login VMs mount it. Default true.",
			},
		}},
	})
}

// storageDesired is one entry of storage as configured; the instances are resolved at apply.
type storageDesired struct {
	mountPath           string
	filestore, lustre   string // full instance names, or ""
	nfsServer, nfsShare string // from nfs_source
	lustreAddr, fsName  string // from lustre_source
	login               bool
}

func storageFromModel(ctx context.Context, l types.List, diags *diag.Diagnostics) []storageDesired {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var ms []storageModel
	diags.Append(l.ElementsAs(ctx, &ms, false)...)
	out := make([]storageDesired, 0, len(ms))
	for _, m := range ms {
		s := storageDesired{
			mountPath: m.MountPath.ValueString(), filestore: m.Filestore.ValueString(), lustre: m.Lustre.ValueString(),
			login: m.Login.IsNull() || m.Login.IsUnknown() || m.Login.ValueBool(),
		}
		if v := m.NFSSource.ValueString(); v != "" {
			s.nfsServer, s.nfsShare, _ = parseNFSSource(v)
		}
		if v := m.LustreSource.ValueString(); v != "" {
			s.lustreAddr, s.fsName, _ = parseLustreSource(v)
		}
		out = append(out, s)
	}
	return out
}

// placeholder is the mount at plan time: addresses made up where an instance is resolved at apply.
func (s storageDesired) placeholder(i int) clusterconfig.ExtraMount {
	e := clusterconfig.ExtraMount{MountPoint: s.mountPath, NoLogin: !s.login}
	switch {
	case s.filestore != "":
		e.NFS, e.Instance = &clusterconfig.NFSMount{Server: fmt.Sprintf("10.0.1.%d", i+10), Share: "/share", Version: "3"}, s.filestore
	case s.lustre != "":
		e.Lustre, e.Instance = &clusterconfig.LustreMount{Address: fmt.Sprintf("10.0.2.%d", i+10), FSName: "lustre"}, s.lustre
	case s.lustreAddr != "":
		e.Lustre = &clusterconfig.LustreMount{Address: s.lustreAddr, FSName: s.fsName}
	default:
		e.NFS = &clusterconfig.NFSMount{Server: s.nfsServer, Share: s.nfsShare, Version: "3"}
	}
	return e
}

// planStorage checks each entry's source at plan: exactly one, well formed, an instance in the
// cluster's zone. Paths are checked against the other mounts in checkWholeCluster.
func (p *planner) planStorage(ctx context.Context, zoneKnown bool) {
	if p.plan.Storage.IsNull() || p.plan.Storage.IsUnknown() {
		return
	}
	for i, e := range p.plan.Storage.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsUnknown() {
			continue
		}
		var m storageModel
		p.diags.Append(o.As(ctx, &m, tfutil.ObjectOpts)...)
		at := func(attr string) string { return fmt.Sprintf("storage[%d].%s", i, attr) }
		srcs := []types.String{m.Filestore, m.NFSSource, m.Lustre, m.LustreSource}
		set, unknown := 0, false
		for _, v := range srcs {
			unknown = unknown || v.IsUnknown()
			if !v.IsNull() {
				set++
			}
		}
		switch {
		case unknown && set <= 1:
		case set != 1:
			p.invalid(fmt.Sprintf("storage[%d]", i), "set exactly one of filestore (a hypercompute_filestore id), nfs_source (IP:/path), lustre (a hypercompute_lustre id) and lustre_source (IP@tcp:/fsname)")
		case known(m.Filestore) && zoneKnown:
			p.storageLocation(at("filestore"), "Filestore instance", m.Filestore.ValueString(), true)
		case known(m.Lustre) && zoneKnown:
			p.storageLocation(at("lustre"), "Managed Lustre instance", m.Lustre.ValueString(), false)
		case known(m.NFSSource):
			if _, _, err := parseNFSSource(m.NFSSource.ValueString()); err != nil {
				p.invalid(at("nfs_source"), "%v", err)
			}
		case known(m.LustreSource):
			if _, _, err := parseLustreSource(m.LustreSource.ValueString()); err != nil {
				p.invalid(at("lustre_source"), "%v", err)
			}
		}
	}
}

// checkStoragePaths checks each entry's path against /home, the cluster's lustre and the entries
// before it, naming the first entry that clashes; base holds /home and lustre only.
func (p *planner) checkStoragePaths(base clusterconfig.Mounts, storage []storageDesired) {
	for i, s := range storage {
		base.Extra = append(base.Extra, s.placeholder(i))
		if err := clusterconfig.ValidateMounts(base); err != nil {
			p.invalid(fmt.Sprintf("storage[%d].mount_path", i), "%v", err)
			return
		}
	}
}

// resolveStorage reads the Filestore and Managed Lustre instances the entries name, refusing one
// the VMs could not mount, like /home's and lustre's (resolveMounts).
func resolveStorage(ctx context.Context, c *gcp.Clients, s *desired) ([]clusterconfig.ExtraMount, error) {
	var out []clusterconfig.ExtraMount
	for i, st := range s.storage {
		e := st.placeholder(i)
		switch {
		case st.filestore != "":
			attr := fmt.Sprintf("storage[%d].filestore", i)
			n, err := resolveFilestore(ctx, c, s, attr, st.filestore)
			if err != nil {
				return nil, err
			}
			// Size and tier stay out of the node config: a resize must not roll nodes.
			n.Tier, n.CapacityGiB = "", 0
			n.Version = "3"
			if n.Protocol == filestorepb.Instance_NFS_V4_1 {
				n.Version = "4.1"
			}
			e.NFS = &n.NFSMount
		case st.lustre != "":
			l, err := resolveLustre(ctx, c, s, fmt.Sprintf("storage[%d].lustre", i), st.lustre)
			if err != nil {
				return nil, err
			}
			l.CapacityGiB, l.Throughput = 0, 0
			e.Lustre = &l
		}
		out = append(out, e)
	}
	return out, nil
}

// flattenStorage sets storage from the extra mounts the controller's cluster config holds.
func flattenStorage(ctx context.Context, m *model, extra []clusterconfig.ExtraMount) diag.Diagnostics {
	elem := types.ObjectType{AttrTypes: storageAttrTypes}
	if len(extra) == 0 {
		m.Storage = tfutil.EmptyList(elem)
		return nil
	}
	ms := make([]storageModel, 0, len(extra))
	for _, e := range extra {
		sm := storageModel{
			MountPath: types.StringValue(e.MountPoint), Filestore: types.StringNull(), NFSSource: types.StringNull(),
			Lustre: types.StringNull(), LustreSource: types.StringNull(), Login: types.BoolValue(!e.NoLogin),
		}
		switch {
		case e.Lustre != nil && e.Instance != "":
			sm.Lustre = types.StringValue(e.Instance)
		case e.Lustre != nil:
			sm.LustreSource = types.StringValue(e.Lustre.Source())
		case e.NFS != nil && e.Instance != "":
			sm.Filestore = types.StringValue(e.Instance)
		case e.NFS != nil:
			sm.NFSSource = types.StringValue(e.NFS.Source())
		}
		ms = append(ms, sm)
	}
	var diags diag.Diagnostics
	m.Storage, diags = types.ListValueFrom(ctx, elem, ms)
	return diags
}
