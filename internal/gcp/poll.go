package gcp

import (
	"context"
	"time"
)

// poller spaces out the polls of one operation: short at first, so operations that end
// quickly (the emulator's) are seen quickly, then growing to PollConfig.Max.
type poller struct {
	next time.Duration
	cfg  PollConfig
}

func newPoller(cfg PollConfig) *poller { return &poller{next: cfg.Initial, cfg: cfg} }

// sleep waits for the current interval less the time the last call already took
// (a long operations.wait call counts as waiting) and grows the interval.
func (p *poller) sleep(ctx context.Context, spent time.Duration) error {
	d := p.next - spent
	p.next = min(time.Duration(float64(p.next)*p.cfg.Multiplier), p.cfg.Max)
	if d <= 0 {
		return ctx.Err()
	}
	return sleepCtx(ctx, d)
}
