package report

import (
	"fmt"
	"image/color"
	"math"
	"time"
)

// sample is a week with three days of jobs, a recipe job whose loss falls with two checkpoints
// (its name needs escaping), a plain job, a node failure with its repair, and two partitions.
func sample() Input {
	gen := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	since := gen.Add(-7 * 24 * time.Hour)
	var days []Day
	for i := range 8 {
		d := Day{Date: time.Date(2026, 11, 30+i, 0, 0, 0, 0, time.UTC)}
		if i%3 == 0 {
			d.Jobs, d.Scheduling, d.Runtime, d.Program, d.HasProgram = 1+i, 0.9-0.02*float64(i), 0.8+0.01*float64(i), 0.35, true
		}
		days = append(days, d)
	}
	var loss []LossPoint
	for s := 10; s <= 400; s += 10 {
		loss = append(loss, LossPoint{Step: s, Loss: 5.5*math.Exp(-float64(s)/120) + 1.2})
	}
	return Input{
		Cluster: "ml-dev", Window: "7d", Since: since, Generated: gen,
		Days: days,
		Jobs: []Job{
			{ID: "41", Name: `tiny<script>alert("x")</script>`, Partition: "cpu", State: "COMPLETED", Scheduling: 0.95, Runtime: 0.9, Program: 0.31, HasProgram: true,
				Loss: loss, CheckpointSteps: []int{100, 200, 300}},
			{ID: "42", Name: "sweep", Partition: "gpu", State: "FAILED", Scheduling: 0.5, Runtime: 1},
		},
		Repairs: []Repair{{Node: "gpu-1", Partition: "gpu", Check: "gpu", Action: "reboot", Result: "ok",
			Start: gen.Add(-50 * time.Hour), End: gen.Add(-49 * time.Hour)}},
		Events: []Event{
			{Time: gen.Add(-50*time.Hour - 2*time.Minute), Node: "gpu-1", Kind: "detected", Check: "gpu", Detail: "XID 79 <fell off the bus>"},
			{Time: gen.Add(-49 * time.Hour), Node: "gpu-1", Kind: "repaired", Check: "gpu"},
			{Time: gen.Add(-20 * time.Hour), Node: "gpu-0", Kind: "repair-failed", Check: "nccl"},
		},
		Partitions: []Partition{
			{Name: "cpu", Nodes: 2, AllocatedNodeSeconds: 0.6 * 2 * 7 * 86400, Utilisation: 0.6},
			{Name: "gpu", Nodes: 4, AllocatedNodeSeconds: 0.25 * 4 * 7 * 86400, Utilisation: 0.25, Repairs: 1, RepairNodeSeconds: 3600},
		},
	}
}

// seriesColours are the colours each figure's series are drawn in, as the SVG writes them.
var seriesColours = map[string]color.RGBA{
	"scheduling": colScheduling, "runtime": colRuntime, "program (MFU)": colProgram,
	"loss": colLoss, "checkpoint": colCheckpoint,
	"repair (start to end)": colRepair, "failure detected": colDetected, "repaired": colRepaired, "repair failed": colFailed,
	"allocated": colUtil,
}

func hexColour(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }
