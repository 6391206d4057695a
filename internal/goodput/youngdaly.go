package goodput

import (
	"fmt"
	"math"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// YoungDaly is the checkpoint interval that minimises the first-order waste
// C/T + T/(2M): T* = √(2·C·M), with C the time a checkpoint pauses training
// and M the job's mean time between interruptions, both in seconds. It
// returns 0 for non-positive or non-finite inputs (no interval is optimal
// when a checkpoint costs nothing or the job never fails).
func YoungDaly(costSeconds, mtbfSeconds float64) time.Duration {
	if !(costSeconds > 0) || !(mtbfSeconds > 0) || math.IsInf(costSeconds, 0) || math.IsInf(mtbfSeconds, 0) {
		return 0
	}
	return seconds(math.Sqrt(2 * costSeconds * mtbfSeconds))
}

// Waste is the first-order Young/Daly share of wall time lost:
// C/T + T/(2M) + R/M, all in seconds (R the recovery time per interruption).
func Waste(costSeconds, intervalSeconds, mtbfSeconds, recoverySeconds float64) float64 {
	return costSeconds/intervalSeconds + intervalSeconds/(2*mtbfSeconds) + recoverySeconds/mtbfSeconds
}

// JobMTBF is the mean time between interruptions of a job on nodes VMs of a
// machine profile (catalog.MachineType.Profile, e.g. "a3-mega"): the
// profile's per-node figure from the catalog divided by the node count.
func JobMTBF(profile string, nodes int) (time.Duration, error) {
	if nodes < 1 {
		return 0, fmt.Errorf("nodes must be at least 1, got %d", nodes)
	}
	m, err := catalog.NodeMTBI(profile)
	if err != nil {
		return 0, err
	}
	return m / time.Duration(nodes), nil
}

// JobMTBFForMachine is JobMTBF for a machine type name (e.g. "a3-megagpu-8g").
func JobMTBFForMachine(machineType string, nodes int) (time.Duration, error) {
	mt, ok := catalog.Machine(machineType)
	if !ok {
		return 0, fmt.Errorf("machine type %q is not in the catalog", machineType)
	}
	return JobMTBF(mt.Profile, nodes)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
