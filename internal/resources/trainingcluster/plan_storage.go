package trainingcluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

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

// recordNetwork tells the partitions planned after the cluster which network and subnet its
// nodes use (providerdata.PlannedNetworks), so they check their nodes against the subnets' sizes
// before the controller, which records them for later plans, exists.
func (p *planner) recordNetwork() {
	plan := p.plan
	if p.r.Provider == nil || !known(plan.Network) || !known(plan.Subnet) || !known(plan.Name) {
		return
	}
	project, name, err := tfutil.ParseNetwork(plan.Network.ValueString(), p.project)
	if err != nil {
		return
	}
	p.r.Provider.Networks.PlanCluster(clusterID(p.project, p.zone, plan.Name.ValueString()), providerdata.ClusterNetwork{
		Network: tfutil.NetworkID(project, name), Subnetwork: plan.Subnet.ValueString(), Creating: !p.hasState,
	})
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
