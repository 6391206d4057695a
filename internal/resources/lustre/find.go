package lustre

import (
	"context"

	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// find reads the instance; a missing one is a *tfutil.NotFoundError.
func (r *lustreResource) find(ctx context.Context, name string) (*wire.Instance, error) {
	inst, err := r.Provider.Clients.Lustre.GetInstance(ctx, name)
	return tfutil.Lookup("Managed Lustre instance", name, inst, err)
}
