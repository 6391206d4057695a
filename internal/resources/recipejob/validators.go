package recipejob

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// intervalAuto asks for the Young/Daly interval.
const intervalAuto = "auto"

// parseInterval reads checkpoint.interval: "auto", or a duration of at
// least a second in Go's syntax ("90s", "30m", "1h30m") or whole days
// ("2d").
func parseInterval(s string) (d time.Duration, auto bool, err error) {
	if s == intervalAuto {
		return 0, true, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, perr := strconv.Atoi(n)
		if perr == nil && days > 0 {
			return time.Duration(days) * 24 * time.Hour, false, nil
		}
	}
	d, err = time.ParseDuration(s)
	if err != nil {
		return 0, false, fmt.Errorf("%q is neither a duration (\"90s\", \"30m\", \"2h\", \"1d\") nor \"auto\"", s)
	}
	if d < time.Second || d%time.Second != 0 {
		return 0, false, fmt.Errorf("%q must be a whole number of seconds, at least 1s", s)
	}
	return d, false, nil
}

// formatDuration writes seconds the way a user would: "90s", "30m", "2h",
// "1h30m".
func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0 && d < time.Hour:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	// time.Duration writes "1h30m0s" and "1h0m5s": drop the zero units.
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return strings.Replace(s, "h0m", "h", 1)
}

type intervalValidator struct{}

func (intervalValidator) Description(context.Context) string {
	return `a duration ("30m") or "auto"`
}
func (v intervalValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (intervalValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, _, err := parseInterval(req.ConfigValue.ValueString()); err != nil {
		tfutil.AddInvalid(&resp.Diagnostics, req.Path, err.Error())
	}
}

func absPath() validator.String {
	return tfutil.StringCheck{Desc: "an absolute path", Check: func(s string) error {
		if !path.IsAbs(s) || path.Clean(s) != s {
			return fmt.Errorf("%q is not a clean absolute path on the cluster (e.g. /lustre/checkpoints/run1)", s)
		}
		return nil
	}}
}
