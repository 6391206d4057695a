package lustre

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// WaitOperation polls op until it is done. It returns the Instance in the operation's
// response (nil when the response is empty, as for a delete), or *OperationError when
// the operation failed, or the context's error.
func (c *Client) WaitOperation(ctx context.Context, op *Operation) (*Instance, error) {
	if op == nil {
		return nil, fmt.Errorf("lustre: WaitOperation on a nil operation")
	}
	delay, maxDelay, mult := c.pollSettings()
	for !op.Done {
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
		next, err := c.GetOperation(ctx, op.Name)
		if err != nil {
			return nil, err
		}
		op = next
		delay = min(time.Duration(float64(delay)*mult), maxDelay)
	}
	return OperationResult(op)
}

// OperationResult reads the outcome of a done operation.
func OperationResult(op *Operation) (*Instance, error) {
	if op.Error != nil && op.Error.Code != 0 {
		return nil, &OperationError{Operation: op.Name, Status: *op.Error}
	}
	if len(op.Response) == 0 || AnyTypeURL(op.Response) == EmptyTypeURL {
		return nil, nil
	}
	inst := &Instance{}
	if err := json.Unmarshal(op.Response, inst); err != nil {
		return nil, fmt.Errorf("lustre: decoding the response of %s: %w", op.Name, err)
	}
	if inst.Name == "" {
		return nil, nil
	}
	return inst, nil
}

func (c *Client) pollSettings() (initial, maxDelay time.Duration, mult float64) {
	initial, maxDelay, mult = c.PollInitial, c.PollMax, c.PollMultiplier
	if initial <= 0 {
		initial = 50 * time.Millisecond
	}
	if maxDelay <= 0 {
		maxDelay = 10 * time.Second
	}
	maxDelay = max(maxDelay, initial)
	if mult < 1 {
		mult = 2
	}
	return initial, maxDelay, mult
}
