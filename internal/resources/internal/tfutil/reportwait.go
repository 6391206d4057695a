package tfutil

import (
	"context"
	"fmt"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// NodeError is a VM's own account of why it could not come up: the phase and error text its
// launcher or agent reported.
type NodeError struct {
	VM, Zone, Phase, Text string
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("VM %s failed to bootstrap (phase %s): %s", e.VM, e.Phase, e.text())
}

func (e *NodeError) text() string {
	if e.Text != "" {
		return e.Text
	}
	return "(the VM reported no error text; see its serial console: gcloud compute instances get-serial-port-output " + e.VM + " --zone " + e.Zone + ")"
}

// ReportWait waits on one VM's report.
type ReportWait struct {
	Clients *gcp.Clients
	VM      VM
	// First and Max bound the interval between two looks, which grows by half each time
	// (defaults 100 ms and 5 s): a look is one getGuestAttributes call plus what done reads.
	First, Max time.Duration
	// Retry says which errors of a look only cost that look (rate limits, a 5xx); nil: none.
	Retry func(error) bool
	// IgnoreFailure keeps waiting through a failed phase, for waits on reports the failure does
	// not stop (a drain report on a controller whose last reconfiguration failed).
	IgnoreFailure bool
}

// Until reads the VM's report until done holds. A report of a failed launcher or agent ends the
// wait with a *NodeError (unless IgnoreFailure); an error of done ends it too. When ctx ends, it
// returns ctx.Err() and the last report seen, for the caller to say what it waited for.
func (w ReportWait) Until(ctx context.Context, done func(Report) (bool, error)) (Report, error) {
	delay, maxDelay := w.First, w.Max
	if delay <= 0 {
		delay = 100 * time.Millisecond
	}
	if maxDelay <= 0 {
		maxDelay = 5 * time.Second
	}
	last := ParseReport(nil)
	for {
		ok, err := w.look(ctx, &last, done)
		if ok {
			return last, nil
		}
		if ctx.Err() != nil {
			return last, ctx.Err()
		}
		if err != nil && (w.Retry == nil || !w.Retry(err)) {
			return last, err
		}
		if err := Sleep(ctx, delay); err != nil {
			return last, err
		}
		delay = min(delay*3/2, maxDelay)
	}
}

func (w ReportWait) look(ctx context.Context, last *Report, done func(Report) (bool, error)) (bool, error) {
	r, err := ReadReport(ctx, w.Clients, w.VM)
	if err != nil {
		return false, err
	}
	*last = r
	if r.Failed() && !w.IgnoreFailure {
		return false, &NodeError{VM: w.VM.Name, Zone: w.VM.Zone, Phase: r.Phase, Text: r.Error}
	}
	return done(r)
}

// Sleep waits d or until ctx ends, whichever is first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
