package emulator_test

import (
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

func emulatortestLatency(method string, d time.Duration) core.FaultSpec {
	return core.FaultSpec{Latency: map[string]core.Duration{method: core.Duration(d)}}
}
