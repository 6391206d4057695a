package healthpolicy

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// refuseZeros refuses a configured 0 for interval_seconds and limits.max_concurrent_repairs. In
// the policy the controller reads, 0 stands for "left out" and takes the default
// (clusterconfig.HealthPolicy.WithDefaults), so a configured 0 would quietly run checks every 60 s
// and one repair at a time, the opposite of what 0 says (no periodic checks, no repairs). Each of
// those has its own spelling, which the messages give; leaving the attribute out asks for the
// default. It makes no API call.
func refuseZeros(m *model, diags *diag.Diagnostics) {
	zero := func(v types.Int64) bool { return !v.IsNull() && !v.IsUnknown() && v.ValueInt64() == 0 }
	if zero(m.IntervalSeconds) {
		diags.AddAttributeError(path.Root("interval_seconds"), "Invalid health policy", fmt.Sprintf(
			"interval_seconds 0 is out of range: periodic checks run every 1 second or more; leave it out for the default (%d), "+
				"or give the checks schedules without \"periodic\" to run none periodically", cc.DefaultHealthInterval))
	}
	if m.Limits != nil && zero(m.Limits.MaxConcurrentRepairs) {
		diags.AddAttributeError(path.Root("limits").AtName("max_concurrent_repairs"), "Invalid health policy", fmt.Sprintf(
			"limits.max_concurrent_repairs 0 would never let a repair start: use 1 or more, or leave it out for the default (%d); "+
				"to leave failed nodes drained for a person instead, give their checks action = \"drain\"", cc.DefaultMaxConcurrentRepairs))
	}
}
