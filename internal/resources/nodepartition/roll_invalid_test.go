package nodepartition_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// A rolling_update the product cannot follow is refused at plan, naming the attribute, with no API call.
func TestAccNodePartition_invalidRollingUpdate(t *testing.T) {
	env := acctest.New(t)
	const cluster = "projects/hc-acc-test/zones/us-central1-a/clusters/hcx"
	cases := map[string]struct{ roll, want string }{
		"max_unavailable not a number": {`max_unavailable = "half"`, `rolling_update\.max_unavailable`},
		"max_unavailable zero":         {`max_unavailable = "0"`, `rolling_update\.max_unavailable`},
		"max_unavailable over 100%":    {`max_unavailable = "150%"`, `rolling_update\.max_unavailable`},
		"job_timeout not a duration":   {`job_timeout = "soon"`, `rolling_update\.job_timeout`},
		"job_timeout over a week":      {`job_timeout = "200h"`, `rolling_update\.job_timeout`},
		"on_job_timeout unknown":       {`on_job_timeout = "kill"`, `rolling_update\.on_job_timeout`},
		"min_available negative":       {`min_available = -1`, `rolling_update\.min_available`},
	}
	for name, tc := range cases {
		acctest.PlanFails(t, factories, name, env.Config(partitionConfig(cluster, "cpu", "n2-standard-4", 2, 0, "  rolling_update = { "+tc.roll+" }\n")), tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}
