package slurm

import (
	"context"
	"strings"
)

// SetReservation makes a reservation hold exactly nodes (none: it is deleted, and one already
// gone is no error). exists says the caller made it before, so an update is tried first. The
// reservation lasts until changed, names only root, and ignores the nodes' running jobs (a node
// may take a job between the caller's look and the reservation).
func (c CLI) SetReservation(ctx context.Context, name string, exists bool, nodes []string) error {
	if err := checkHostlist(name); err != nil {
		return err
	}
	if len(nodes) == 0 {
		_, err := c.run(ctx, "scontrol", "delete", "reservationname="+name)
		if err != nil && (strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "Invalid reservation")) {
			return nil
		}
		return err
	}
	list := strings.Join(nodes, ",")
	if err := checkHostlist(list); err != nil {
		return err
	}
	if exists {
		if _, err := c.run(ctx, "scontrol", "update", "reservationname="+name, "nodes="+list); err == nil {
			return nil
		}
	}
	_, err := c.run(ctx, "scontrol", "create", "reservation", "reservationname="+name, "nodes="+list,
		"starttime=now", "duration=infinite", "users=root", "flags=ignore_jobs")
	if err != nil && strings.Contains(err.Error(), "Duplicate") {
		_, err = c.run(ctx, "scontrol", "update", "reservationname="+name, "nodes="+list)
	}
	return err
}
