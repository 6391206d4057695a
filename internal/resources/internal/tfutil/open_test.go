package tfutil

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

type openModel struct {
	Name     types.String   `tfsdk:"name"`
	Cluster  types.String   `tfsdk:"cluster"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// openState is a state of a resource with a name, a cluster and a timeouts block whose create is
// create ("" leaves it unset).
func openState(t *testing.T, create string) tfsdk.State {
	return clusterState(t, create, "projects/p1/zones/us-central1-a/clusters/c1")
}

func clusterState(t *testing.T, create, cluster string) tfsdk.State {
	t.Helper()
	ctx := context.Background()
	sch := schema.Schema{
		Attributes: map[string]schema.Attribute{
			"name":    schema.StringAttribute{Optional: true},
			"cluster": schema.StringAttribute{Optional: true},
		},
		Blocks: map[string]schema.Block{"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Delete: true})},
	}
	st := tfsdk.State{Schema: sch, Raw: tftypes.NewValue(sch.Type().TerraformType(ctx), nil)}
	d := st.SetAttribute(ctx, path.Root("name"), "n1")
	d.Append(st.SetAttribute(ctx, path.Root("cluster"), cluster)...)
	if create != "" {
		d.Append(st.SetAttribute(ctx, path.Root("timeouts").AtName("create"), create)...)
	}
	if d.HasError() {
		t.Fatal(d)
	}
	return st
}

func TestBegin(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	start := time.Now()
	opCtx, cancel, m, ok := Begin[openModel](ctx, openState(t, "3s"), Create, time.Hour, &diags)
	defer cancel()
	dl, has := opCtx.Deadline()
	if !ok || m.Name.ValueString() != "n1" || !has || dl.Sub(start) > 3*time.Second+time.Minute || dl.Sub(start) < time.Second {
		t.Errorf("create = 3s: ok %v, name %q, deadline in %v (%v)", ok, m.Name.ValueString(), dl.Sub(start), diags)
	}
	// Unset: the default.
	opCtx, cancel2, _, ok := Begin[openModel](ctx, openState(t, ""), Delete, time.Hour, &diags)
	defer cancel2()
	if dl, _ := opCtx.Deadline(); !ok || dl.Sub(start) < 59*time.Minute {
		t.Errorf("unset: ok %v, deadline in %v", ok, dl.Sub(start))
	}
	// A timeout that is no duration is an error, and the caller returns.
	var bad diag.Diagnostics
	_, cancel3, _, ok := Begin[openModel](ctx, openState(t, "soon"), Create, time.Hour, &bad)
	defer cancel3()
	if ok || !bad.HasError() {
		t.Errorf("create = soon: ok %v, diags %v", ok, bad)
	}
	// In a cluster: the cluster's ID parsed, or an error when it is none.
	_, ref, ok := GetInCluster[openModel](ctx, openState(t, ""), &diags)
	if !ok || ref != (cc.ClusterID{Project: "p1", Zone: "us-central1-a", Name: "c1"}) {
		t.Errorf("in cluster: ok %v, ref %+v (%v)", ok, ref, diags)
	}
	var notID diag.Diagnostics
	_, cancel5, _, _, ok := BeginInCluster[openModel](ctx, clusterState(t, "", "c1"), Delete, time.Hour, &notID)
	defer cancel5()
	if ok || !notID.HasError() || notID[0].Summary() != "Invalid state" {
		t.Errorf("cluster = c1: ok %v, diags %v", ok, notID)
	}
	// A model that does not match the schema is an error before any deadline.
	var wrong diag.Diagnostics
	if _, cancel4, _, ok := Begin[struct{ Name types.String }](ctx, openState(t, ""), Create, time.Hour, &wrong); ok || !wrong.HasError() {
		t.Errorf("mismatched model: ok %v", ok)
	} else {
		cancel4()
	}
}
