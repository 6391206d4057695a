package recipejob

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// readRestartPolicy reads restart_policy into the recipes.RestartPolicy the
// batch script runs; null (an older state) is the default policy. complete
// turns false while a value is unknown.
func readRestartPolicy(ctx context.Context, v types.Object, complete bool, diags *diag.Diagnostics) (recipes.RestartPolicy, bool) {
	backoff, _ := time.ParseDuration(defaultRestartBackoff)
	p := recipes.RestartPolicy{MaxRestarts: defaultMaxRestarts, BackoffSeconds: int(backoff.Seconds())}
	if v.IsUnknown() {
		return p, false
	}
	if v.IsNull() {
		return p, complete
	}
	var m restartPolicyModel
	diags.Append(v.As(ctx, &m, tfutil.ObjectOpts)...)
	if m.MaxRestarts.IsUnknown() || m.Backoff.IsUnknown() {
		return p, false
	}
	if !m.MaxRestarts.IsNull() {
		p.MaxRestarts = int(m.MaxRestarts.ValueInt64())
	}
	if !m.Backoff.IsNull() {
		d, err := parseBackoff(m.Backoff.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("restart_policy").AtName("backoff"), "Invalid backoff", "restart_policy.backoff: "+err.Error())
			return p, false
		}
		p.BackoffSeconds = int(d.Seconds())
	}
	return p, complete
}

// parseBackoff reads a whole number of seconds from 0 to maxRestartBackoff.
func parseBackoff(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration such as \"30s\" or \"2m\"", s)
	case d < 0 || d > maxRestartBackoff:
		return 0, fmt.Errorf("%s is outside 0s to %s", s, formatDuration(maxRestartBackoff))
	case d%time.Second != 0:
		return 0, fmt.Errorf("%s is not a whole number of seconds", s)
	}
	return d, nil
}

type backoffValidator struct{}

func (backoffValidator) Description(context.Context) string {
	return "a whole number of seconds from 0s to 1h, as a duration"
}
func (v backoffValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (backoffValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parseBackoff(req.ConfigValue.ValueString()); err != nil {
		tfutil.AddInvalid(&resp.Diagnostics, req.Path, err.Error())
	}
}
