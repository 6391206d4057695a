package lustre

import (
	"context"
	"time"
)

// poll calls check until it reports done or fails, backing off from 100 ms to 10 s: an emulator answers
// in milliseconds, real Managed Lustre in minutes.
func poll(ctx context.Context, check func() (bool, error)) error {
	delay := 100 * time.Millisecond
	for {
		done, err := check()
		if done || err != nil {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, 10*time.Second)
	}
}
