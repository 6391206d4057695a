package trainingcluster

import (
	"context"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// checkImages resolves the controller's and login VMs' images (read-only) once the plan passed every check
// that needs no call: a cluster whose VMs cannot boot fails here, before anything is created. The provider's
// own default image is not checked (so a plan of defaults makes no call). Without state (create) the old
// values are zero, that is null.
func (p *planner) checkImages(ctx context.Context) {
	if c, ok := readObject[controllerModel](ctx, p.plan.Controller, p.diags); ok && c.Image.ValueString() != defaultImage {
		old, _ := readObject[controllerModel](ctx, p.state.Controller, p.diags)
		tfutil.CheckImage(ctx, p.r.Provider, "controller.image", c.Image, old.Image, p.diags)
	}
	if l, ok := readObject[loginModel](ctx, p.plan.Login, p.diags); ok && l.Image.ValueString() != defaultImage {
		old, _ := readObject[loginModel](ctx, p.state.Login, p.diags)
		tfutil.CheckImage(ctx, p.r.Provider, "login.image", l.Image, old.Image, p.diags)
	}
}
