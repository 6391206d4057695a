package tfutil

import (
	"reflect"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Every metric that does not fit is listed, with the other planned resources' shares when they
// are part of the sum; a metric the region does not limit is not.
func TestShortfalls(t *testing.T) {
	quotas := []*computepb.Quota{
		{Metric: proto.String("CPUS"), Limit: proto.Float64(500), Usage: proto.Float64(100)},
		{Metric: proto.String("NVIDIA_H100_GPUS"), Limit: proto.Float64(16), Usage: proto.Float64(0)},
	}
	own := providerdata.QuotaNeed{What: "partition a", Metrics: map[string]float64{"CPUS": 208, "NVIDIA_H100_GPUS": 8, "INSTANCES": 1}}
	if got := Shortfalls(quotas, own, nil); len(got) != 0 {
		t.Errorf("a need that fits: %q", got)
	}
	others := []providerdata.QuotaNeed{{What: "partition b", Metrics: map[string]float64{"CPUS": 208, "NVIDIA_H100_GPUS": 16}}}
	want := []string{
		"CPUS needs 416 with the other resources planned with it (208 for partition a, 208 for partition b), 400 available (limit 500, in use 100)",
		"NVIDIA_H100_GPUS needs 24 with the other resources planned with it (8 for partition a, 16 for partition b), 16 available (limit 16, in use 0)",
	}
	if got := Shortfalls(quotas, own, others); !reflect.DeepEqual(got, want) {
		t.Errorf("Shortfalls =\n%q\nwant\n%q", got, want)
	}
}
