// Package clustergoodput is the hypercompute_cluster_goodput data source: the goodput a
// training cluster measured from its Slurm accounting records over a window (scheduling and
// runtime goodput per partition and per job), read from the guest attribute its controller's
// agent reports, so no network path to the cluster is needed.
package clustergoodput

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// NewDataSource is registered by the provider.
func NewDataSource() datasource.DataSource { return &dataSource{} }

type dataSource struct{ provider *providerdata.Data }

var _ datasource.DataSourceWithValidateConfig = (*dataSource)(nil)

func (d *dataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_goodput"
}

func (d *dataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.provider = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}

// defaultWindow is the window when none is given.
const defaultWindow = "7d"

// ValidateConfig refuses a malformed cluster id or an unknown window at plan, before any API call.
func (d *dataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var cluster, window types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cluster"), &cluster)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("window"), &window)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !cluster.IsNull() && !cluster.IsUnknown() {
		if _, _, _, err := parseClusterID(cluster.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Invalid cluster", "cluster: "+err.Error())
		}
	}
	if !window.IsNull() && !window.IsUnknown() && !slices.Contains(cc.GoodputWindows, window.ValueString()) {
		resp.Diagnostics.AddAttributeError(path.Root("window"), "Invalid window",
			fmt.Sprintf("window: %q is not a window the controller reports; use one of %s", window.ValueString(), strings.Join(cc.GoodputWindows, ", ")))
	}
}

func (d *dataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	project, zone, name, err := parseClusterID(m.Cluster.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Invalid cluster", "cluster: "+err.Error())
		return
	}
	window := m.Window.ValueString()
	if m.Window.IsNull() {
		window = defaultWindow
	}
	vm := cc.ControllerName(name)
	ga, err := d.provider.Clients.Instances.GetGuestAttributes(ctx, &computepb.GetGuestAttributesInstanceRequest{
		Project: project, Zone: zone, Instance: vm, QueryPath: proto.String(cc.GuestAttributeNamespace + "/")})
	if err = gcp.Classify(err); err != nil && !gcp.IsNotFound(err) {
		resp.Diagnostics.AddError("Unable to read the cluster's goodput", fmt.Sprintf("reading the guest attributes of the controller %s: %v", vm, err))
		return
	}
	value := ""
	if err == nil {
		for _, e := range ga.GetQueryValue().GetItems() {
			if e.GetNamespace() == cc.GuestAttributeNamespace && e.GetKey() == cc.GuestAttrGoodputPrefix+window {
				value = e.GetValue()
			}
		}
	} else if _, err := d.provider.Clients.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: vm}); gcp.IsNotFound(gcp.Classify(err)) {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "No such cluster", fmt.Sprintf("cluster: the controller %s of %s does not exist", vm, m.Cluster.ValueString()))
		return
	}
	if value == "" {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "No goodput reported",
			fmt.Sprintf("cluster: the controller %s reports no goodput for window %s: set the cluster's accounting block; its agent reports goodput from sacct once slurmdbd runs", vm, window))
		return
	}
	var r cc.GoodputReport
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		resp.Diagnostics.AddError("Unable to read the cluster's goodput", fmt.Sprintf("the controller's %s%s report: %v", cc.GuestAttrGoodputPrefix, window, err))
		return
	}
	m.Window = types.StringValue(window)
	m.fill(r)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func parseClusterID(id string) (project, zone, name string, err error) {
	c, err := cc.ParseClusterID(id)
	return c.Project, c.Zone, c.Name, err
}
