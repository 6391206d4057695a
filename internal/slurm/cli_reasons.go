package slurm

import (
	"context"
	"strings"
	"time"
)

// NodeReason is why a node is down, drained or failed, and since when.
type NodeReason struct {
	Name, State, Reason string
	// Since is when slurmctld recorded the reason (zero when sinfo gives none).
	Since time.Time
}

// NodeReasons lists every node that has a reason (down, drained, failed), with sinfo's
// timestamp of the reason, in one call. sinfo prints the timestamp in slurmctld's host's local
// time without a zone, which is the time zone of the command's own host here (the controller).
func (c CLI) NodeReasons(ctx context.Context) (map[string]NodeReason, error) {
	out, err := c.run(ctx, "sinfo", "-h", "-N", "-o", "%N|%T|%H|%E")
	if err != nil {
		return nil, err
	}
	nodes := map[string]NodeReason{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 4)
		if len(f) != 4 || f[0] == "" {
			continue
		}
		r := strings.TrimSpace(f[3])
		if r == "" || r == "none" {
			continue
		}
		n := NodeReason{Name: f[0], State: f[1], Reason: r}
		if t, err := time.ParseInLocation("2006-01-02T15:04:05", strings.TrimSpace(f[2]), time.Local); err == nil {
			n.Since = t
		}
		nodes[n.Name] = n
	}
	return nodes, nil
}
