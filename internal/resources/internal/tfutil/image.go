package tfutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// CheckImage fails the plan when the image or family a VM will boot from does not resolve: a wrong image is
// the most common reason nodes never join, and without this check it shows only after the network, storage
// and cluster exist. The check is one read-only call (images.get or images.getFromFamily), made only for an
// image that is new to the plan (old is the state's value) and only once the configuration has passed every
// check that needs no call, so bad input still costs none.
func CheckImage(ctx context.Context, p *providerdata.Data, attr string, image, old types.String, diags *diag.Diagnostics) {
	if p == nil || p.Clients == nil || image.IsUnknown() || image.IsNull() || image.ValueString() == "" || image.Equal(old) {
		return
	}
	_, err := gcp.ResolveImage(ctx, p.Clients, image.ValueString())
	var nf *gcp.ImageNotFoundError
	switch {
	case err == nil:
	case errors.As(err, &nf):
		diags.AddAttributeError(AttrPath(attr), "Image not found", fmt.Sprintf("%s: %v; VMs booting from it would fail to create", attr, err))
	default:
		// Only a missing image is a verdict; an API that cannot answer now must not block a plan.
		diags.AddAttributeWarning(AttrPath(attr), "Image could not be checked", fmt.Sprintf("%s: reading %q: %v", attr, image.ValueString(), err))
	}
}
