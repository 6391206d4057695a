// Package lustre implements hypercompute_lustre.
package lustre

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

type lustreResource struct {
	p *providerdata.Data
}

// NewResource is registered by the provider.
func NewResource() resource.Resource { return &lustreResource{} }

func (r *lustreResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_lustre"
}

func (r *lustreResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.p = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}

func (r *lustreResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}}
}

func (r *lustreResource) Create(_ context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.AddError("Not implemented", "work in progress")
}

func (r *lustreResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *lustreResource) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("Not implemented", "work in progress")
}

func (r *lustreResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
