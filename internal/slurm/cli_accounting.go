package slurm

import (
	"context"
	"errors"
	"strings"
	"time"
)

// sacctTimeLayout is how sacct reads -S: local time without a zone.
const sacctTimeLayout = "2006-01-02T15:04:05"

// Accounting lists slurmdbd's records of every user's jobs active since since, one line per job
// (allocations only, not steps; every requeue its own line), fields separated by "|" in the
// order asked, with no header. The fields are sacct's -o names (JobIDRaw, State, ...); their
// meaning is the caller's.
func (c CLI) Accounting(ctx context.Context, since time.Time, fields []string) (string, error) {
	if len(fields) == 0 {
		return "", errors.New("slurm: Accounting needs at least one field")
	}
	return c.run(ctx, "sacct", "-a", "-X", "-D", "-P", "-n",
		"-S", since.Local().Format(sacctTimeLayout), "-E", "now", "-o", strings.Join(fields, ","))
}
