package slurm

import (
	"context"
	"testing"
	"time"
)

// NodeReasons keeps the nodes that have a reason, with the reason's time read in local time; a
// reason may itself contain the separator.
func TestCLINodeReasons(t *testing.T) {
	r := &recorder{out: "c-dyn-d0|down~|2026-12-01T10:00:00|resume failed: A|B\nc-dyn-d1|idle~|Unknown|none\nc-dyn-d2|drained|Unknown|hc:gpu: XID 79\n"}
	nodes, err := CLI{Run: r.run}.NodeReasons(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	if n := nodes["c-dyn-d0"]; n.Reason != "resume failed: A|B" || n.State != "down~" || !n.Since.Equal(want) {
		t.Errorf("c-dyn-d0 = %+v", n)
	}
	if n, ok := nodes["c-dyn-d2"]; !ok || !n.Since.IsZero() || n.Reason != "hc:gpu: XID 79" {
		t.Errorf("c-dyn-d2 = %+v", n)
	}
	if _, ok := nodes["c-dyn-d1"]; ok || len(nodes) != 2 {
		t.Errorf("nodes = %+v", nodes)
	}
	if len(r.calls) != 1 || r.calls[0] != "|sinfo -h -N -o %N|%T|%H|%E" {
		t.Errorf("calls = %q", r.calls)
	}
}
