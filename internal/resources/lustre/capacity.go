package lustre

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// checkCapacity checks capacity_gib against the throughput tier's table, and on an existing instance
// that it does not shrink.
func checkCapacity(diags *diag.Diagnostics, plan, state *model, hasState, defaulted bool) {
	tp, gib := plan.PerUnitStorageThroughput, plan.CapacityGiB
	if tp.IsUnknown() || gib.IsUnknown() || tp.IsNull() || gib.IsNull() {
		return
	}
	if _, ok := catalog.LustreTierFor(tp.ValueInt64()); !ok {
		return // the attribute validator already named it
	}
	var err error
	if hasState && !state.CapacityGiB.IsNull() && state.CapacityGiB.ValueInt64() > 0 && state.PerUnitStorageThroughput.Equal(tp) {
		err = catalog.ValidateLustreResize(tp.ValueInt64(), state.CapacityGiB.ValueInt64(), gib.ValueInt64())
	} else {
		err = catalog.ValidateLustreCapacity(tp.ValueInt64(), gib.ValueInt64())
	}
	if err != nil {
		msg := err.Error()
		if defaulted {
			msg += fmt.Sprintf(" (%d GiB is the default; set capacity_gib for this throughput tier)", gib.ValueInt64())
		}
		tfutil.AddInvalid(diags, path.Root("capacity_gib"), msg)
	}
}
