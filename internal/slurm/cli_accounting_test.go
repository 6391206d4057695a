package slurm

import (
	"context"
	"testing"
	"time"
)

// Accounting is one sacct over every user's allocations since a time, in sacct's own local
// time layout, with the fields asked in their order.
func TestCLIAccounting(t *testing.T) {
	r := &recorder{out: "7|COMPLETED\n8|RUNNING"}
	since := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	out, err := CLI{Conf: "/etc/slurm/slurm.conf", Run: r.run}.Accounting(context.Background(), since, []string{"JobIDRaw", "State"})
	if err != nil || out != r.out {
		t.Errorf("Accounting = %q, %v", out, err)
	}
	const want = "SLURM_CONF=/etc/slurm/slurm.conf|sacct -a -X -D -P -n -S 2026-12-01T10:00:00 -E now -o JobIDRaw,State"
	if len(r.calls) != 1 || r.calls[0] != want {
		t.Errorf("calls = %q\nwant %q", r.calls, want)
	}
	if _, err := (CLI{Run: r.run}).Accounting(context.Background(), since, nil); err == nil || len(r.calls) != 1 {
		t.Errorf("Accounting without fields = %v after %q; want a refusal that runs nothing", err, r.calls)
	}
}
