// Package clusterhealth is the hypercompute_cluster_health data source: the controller's health
// records (every node's state, last failure and time in service; repairs in progress and done),
// read from the guest attributes its agent reports, so no network path to the cluster is needed.
package clusterhealth

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
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

func (d *dataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_health"
}

func (d *dataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.provider = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}

type model struct {
	Cluster    types.String      `tfsdk:"cluster"`
	Nodes      []nodeModel       `tfsdk:"nodes"`
	InProgress []repairModel     `tfsdk:"repairs_in_progress"`
	Done       []repairModel     `tfsdk:"repairs_done"`
	Policies   map[string]string `tfsdk:"policies"`
}

type nodeModel struct {
	Name         types.String `tfsdk:"name"`
	Partition    types.String `tfsdk:"partition"`
	State        types.String `tfsdk:"state"`
	Reason       types.String `tfsdk:"reason"`
	LastFailure  types.String `tfsdk:"last_failure"`
	LastFailedAt types.String `tfsdk:"last_failed_at"`
	InService    types.String `tfsdk:"in_service_since"`
	Repairs      types.Int64  `tfsdk:"repairs"`
	Spare        types.Bool   `tfsdk:"spare"`
}

type repairModel struct {
	Node     types.String `tfsdk:"node"`
	Action   types.String `tfsdk:"action"`
	Check    types.String `tfsdk:"check"`
	Reason   types.String `tfsdk:"reason"`
	Started  types.String `tfsdk:"started"`
	Finished types.String `tfsdk:"finished"`
	Result   types.String `tfsdk:"result"`
	Detail   types.String `tfsdk:"detail"`
}

func (d *dataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	repair := schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
		"node":     str("The Slurm node (and VM)."),
		"action":   str("`reboot`, `reimage` or `replace`."),
		"check":    str("The check whose failure started the repair."),
		"reason":   str("The drain reason (`hc:<check>: <evidence>`)."),
		"started":  str("When the repair started (RFC 3339)."),
		"finished": str("When it ended; empty while in progress."),
		"result":   str("`ok` or `failed`; empty while in progress."),
		"detail":   str("What the controller saw at the end (the VM's new host, a timeout)."),
	}}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The health records of a `hypercompute_training_cluster` kept by its controller's agent under a " +
			"`hypercompute_health_policy`: every node's Slurm state and reason (what `sinfo -R` shows), its last failure and " +
			"time in service, and the repairs in progress and done, read from the controller's guest attributes.",
		Attributes: map[string]schema.Attribute{
			"cluster": schema.StringAttribute{Required: true, MarkdownDescription: "The training cluster: `hypercompute_training_cluster.<name>.id`."},
			"nodes": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Static nodes of the partitions a policy covers, by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":             str("Node name."),
					"partition":        str("Its partition."),
					"state":            str("Slurm's state as the controller last saw it (`idle`, `drained`, ...)."),
					"reason":           str("Slurm's reason, e.g. `hc:ecc: GPU 2 has 3 uncorrected volatile ECC errors (limit 0)`."),
					"last_failure":     str("The reason of the node's last failed check."),
					"last_failed_at":   str("When it was detected (RFC 3339)."),
					"in_service_since": str("Since when the node serves jobs; empty while it is out of service."),
					"repairs":          schema.Int64Attribute{Computed: true, MarkdownDescription: "Repairs started on the node."},
					"spare":            schema.BoolAttribute{Computed: true, MarkdownDescription: "The node is one of its partition's spares (`spare_node_count` of its health policy), held idle in the spare reservation."},
				}}},
			"repairs_in_progress": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Repairs running now.", NestedObject: repair},
			"repairs_done":        schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The newest finished repairs, oldest first.", NestedObject: repair},
			"policies":            schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Health policies the controller applies, name → generation."},
		},
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
	cl := d.provider.Clients
	vm := cc.ControllerName(name)
	ga, err := cl.Instances.GetGuestAttributes(ctx, &computepb.GetGuestAttributesInstanceRequest{
		Project: project, Zone: zone, Instance: vm, QueryPath: proto.String(cc.GuestAttributeNamespace + "/")})
	attrs := map[string]string{}
	if err = gcp.Classify(err); err != nil && !gcp.IsNotFound(err) {
		resp.Diagnostics.AddError("Unable to read the cluster's health", fmt.Sprintf("reading the guest attributes of the controller %s: %v", vm, err))
		return
	}
	if err == nil {
		for _, e := range ga.GetQueryValue().GetItems() {
			if e.GetNamespace() == cc.GuestAttributeNamespace {
				attrs[e.GetKey()] = e.GetValue()
			}
		}
	} else if _, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: project, Zone: zone, Instance: vm}); gcp.IsNotFound(gcp.Classify(err)) {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "No such cluster", fmt.Sprintf("cluster: the controller %s of %s does not exist", vm, m.Cluster.ValueString()))
		return
	}
	h, nodes, err := cc.DecodeHealthReport(attrs)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read the cluster's health", "the controller's health report: "+err.Error())
		return
	}
	m.Nodes = []nodeModel{}
	for _, n := range nodes {
		m.Nodes = append(m.Nodes, nodeModel{
			Name: types.StringValue(n.Node), Partition: types.StringValue(n.Partition), State: types.StringValue(n.State),
			Reason: types.StringValue(n.Reason), LastFailure: types.StringValue(n.LastFailure), LastFailedAt: types.StringValue(ts(n.LastFailedAt)),
			InService: types.StringValue(ts(n.InService)), Repairs: types.Int64Value(int64(n.Repairs)), Spare: types.BoolValue(n.Spare),
		})
	}
	m.InProgress, m.Done = repairs(h.InProgress), repairs(h.Done)
	m.Policies = h.Policies
	if m.Policies == nil {
		m.Policies = map[string]string{}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func repairs(rs []cc.HealthRepair) []repairModel {
	out := []repairModel{}
	for _, r := range rs {
		out = append(out, repairModel{
			Node: types.StringValue(r.Node), Action: types.StringValue(r.Action), Check: types.StringValue(r.Check), Reason: types.StringValue(r.Reason),
			Started: types.StringValue(ts(r.Started)), Finished: types.StringValue(ts(r.Finished)), Result: types.StringValue(r.Result), Detail: types.StringValue(r.Detail),
		})
	}
	return out
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func parseClusterID(id string) (project, zone, name string, err error) {
	c, err := cc.ParseClusterID(id)
	return c.Project, c.Zone, c.Name, err
}

var _ datasource.DataSourceWithValidateConfig = (*dataSource)(nil)

// ValidateConfig refuses a malformed cluster id at plan, before any API call.
func (d *dataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cluster"), &m.Cluster)...)
	if resp.Diagnostics.HasError() || m.Cluster.IsNull() || m.Cluster.IsUnknown() {
		return
	}
	if _, _, _, err := parseClusterID(m.Cluster.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster"), "Invalid cluster", "cluster: "+err.Error())
	}
}
