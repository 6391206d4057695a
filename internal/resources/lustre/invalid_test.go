package lustre_test

import (
	"fmt"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Bad input is refused at plan time, names the attribute, and never reaches the API.
func TestAccLustre_invalidInput(t *testing.T) {
	env := acctest.New(t)
	cfg := func(name, filesystem, extra string) string {
		return fmt.Sprintf(`
resource "hypercompute_lustre" "test" {
  name       = %q
  filesystem = %q
%s
}
`, name, filesystem, extra)
	}
	net := "  network = \"hc-net\"\n"
	cases := []struct {
		name, body, want string
	}{
		{"filesystem too long", cfg("hc-data", "checkpoints", net), `filesystem name "checkpoints" is 11 characters long; at most 8 letters or digits`},
		{"filesystem with a hyphen", cfg("hc-data", "ml-fs", net), `filesystem name "ml-fs" is invalid: use only letters and digits`},
		{"throughput not offered", cfg("hc-data", "lustrefs", net+"  per_unit_storage_throughput = 300\n"), `per_unit_storage_throughput value must be one of`},
		{"capacity off the step", cfg("hc-data", "lustrefs", net+"  capacity_gib = 10000\n"),
			`(?s)capacity_gib 10000 is not a valid size for throughput 1000 MBps/TiB.*nearest valid sizes are 9000 and 18000`},
		{"capacity above the maximum", cfg("hc-data", "lustrefs", net+"  per_unit_storage_throughput = 500\n  capacity_gib = 30000000\n"),
			`capacity_gib 30000000 is above the maximum 20016000 for throughput 500 MBps/TiB`},
		{"default capacity below the tier minimum", cfg("hc-data", "lustrefs", net+"  per_unit_storage_throughput = 125\n"),
			`(?s)capacity_gib 36000 is below the minimum 72000 for throughput 125 MBps/TiB.*36000 GiB is the default; set capacity_gib`},
		{"region as zone", cfg("hc-data", "lustrefs", net+"  zone = \"us-central1\"\n"), `zone: "us-central1" is a region, not a zone`},
		{"unknown zone", cfg("hc-data", "lustrefs", net+"  zone = \"us-central1-z\"\n"), `zone "us-central1-z" is not known; zones of region us-central1`},
		{"uppercase name", cfg("HC-Data", "lustrefs", net), `name: Lustre instance ID "HC-Data" is invalid: it contains uppercase letters`},
		{"name ending in a hyphen", cfg("hc-data-", "lustrefs", net), `name: Lustre instance ID "hc-data-" is invalid: it ends with a hyphen`},
		{"malformed network", cfg("hc-data", "lustrefs", "  network = \"projects/p/regions/r/networks/n\"\n"), `network: "projects/p/regions/r/networks/n" is not a network name`},
		{"label value with a dot", cfg("hc-data", "lustrefs", net+"  labels = { version = \"1.2\" }\n"), `labels: the value "1.2" of label "version" is invalid: it contains '\.'`},
		{"the provider's own label", cfg("hc-data", "lustrefs", net+"  labels = { hypercompute-create = \"pending\" }\n"), `labels: label key "hypercompute-create" is reserved`},
		{"description too long", cfg("hc-data", "lustrefs", net+fmt.Sprintf("  description = %q\n", longText(2049))), `description string length must be at most 2048`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, env.Config(tc.body), tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}
