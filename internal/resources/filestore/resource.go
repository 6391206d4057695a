// Package filestore implements hypercompute_filestore.
package filestore

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

type filestoreResource struct {
	p *providerdata.Data
}

// NewResource is registered by the provider.
func NewResource() resource.Resource { return &filestoreResource{} }

func (r *filestoreResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_filestore"
}

func (r *filestoreResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.p = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}

func (r *filestoreResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{"id": schema.StringAttribute{Computed: true}}}
}

func (r *filestoreResource) Create(_ context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.AddError("Not implemented", "work in progress")
}

func (r *filestoreResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *filestoreResource) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("Not implemented", "work in progress")
}

func (r *filestoreResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
