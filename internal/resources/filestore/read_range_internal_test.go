package filestore

import (
	"testing"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A CIDR Filestore reports in PSA mode keeps a range name state already records; an imported
// instance (no prior value) records what the API holds, and direct peering always does.
func TestReservedRange(t *testing.T) {
	psa, direct := filestorepb.NetworkConfig_PRIVATE_SERVICE_ACCESS, filestorepb.NetworkConfig_DIRECT_PEERING
	for _, tc := range []struct {
		mode       filestorepb.NetworkConfig_ConnectMode
		got, prior string
		null       bool
		want       string
	}{
		{mode: psa, got: "10.0.16.0/29", null: true, want: "10.0.16.0/29"},
		{mode: psa, got: "10.0.16.0/29", prior: "", want: "10.0.16.0/29"},
		{mode: psa, got: "10.0.16.0/29", prior: "net-psa", want: "net-psa"},
		{mode: psa, got: "10.0.16.0/29", prior: "10.0.16.0/29", want: "10.0.16.0/29"},
		{mode: psa, got: "net-psa", prior: "other-psa", want: "net-psa"},
		{mode: direct, got: "10.9.0.0/29", prior: "net-psa", want: "10.9.0.0/29"},
	} {
		prior := types.StringValue(tc.prior)
		if tc.null {
			prior = types.StringNull()
		}
		nc := &filestorepb.NetworkConfig{ConnectMode: tc.mode, ReservedIpRange: tc.got}
		if got := reservedRange(nc, prior); got != tc.want {
			t.Errorf("reservedRange(%s %q, prior %v) = %q; want %q", tc.mode, tc.got, prior, got, tc.want)
		}
	}
}
