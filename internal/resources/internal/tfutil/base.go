package tfutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Base is embedded by every resource: Configure keeps the provider's data and Metadata names the
// type, the same way for all of them.
type Base struct {
	// Provider is nil until the provider is configured: validation-only RPCs (validate, and plan
	// of a configuration whose provider block is still unknown) run without it.
	Provider *providerdata.Data
	// TypeSuffix follows the provider's type name: "_filestore" makes hypercompute_filestore.
	TypeSuffix string
}

func (b *Base) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.TypeSuffix
}

func (b *Base) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.Provider = providerdata.FromConfigure(req.ProviderData, &resp.Diagnostics)
}
