package clusterconfig

import (
	"fmt"
	"strings"
	"time"
)

// Calendar is a partition whose capacity comes from a calendar-mode future reservation: Compute delivers
// the capacity as a reservation at the window's start and takes it back (stopping the VMs on it) at the
// end. The provider creates none of the partition's VMs: the controller's agent keeps the nodes drained
// until the reservation is delivered, then powers the static nodes up (its ResumeProgram creates them on
// the delivered reservation), warns the jobs on them CalendarNoticeLead before the end the usual way
// (drain, SIGUSR1 to the batch step), and takes the nodes out of service once the reservation is gone.
type Calendar struct {
	// FutureReservation is projects/P/zones/Z/futureReservations/N.
	FutureReservation string `json:"future_reservation"`
	// Start and End are the window as the provider read it (RFC 3339); the agent reads the request
	// itself for its status, these only word its reasons.
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
}

// CalendarNoticeLead is how long before a calendar reservation's end its nodes are drained and their jobs
// signalled to checkpoint.
const CalendarNoticeLead = 30 * time.Minute

// calendarReasonPrefix starts every Slurm reason the agent sets for a calendar partition, so it only ever
// undoes its own drains.
const calendarReasonPrefix = "hypercompute: calendar: "

// CalendarWaitingReason is the reason of a node whose capacity has not arrived.
func CalendarWaitingReason(c Calendar) string {
	return fmt.Sprintf("%scapacity of %s arrives at %s", calendarReasonPrefix, shortName(c.FutureReservation), c.Start)
}

// CalendarEndingReason is the reason of a node whose capacity ends soon.
func CalendarEndingReason(c Calendar) string {
	return fmt.Sprintf("%s%s ends at %s", calendarReasonPrefix, shortName(c.FutureReservation), c.End)
}

// CalendarEndedReason is the reason of a node whose capacity is gone.
func CalendarEndedReason(c Calendar) string {
	return fmt.Sprintf("%s%s ended", calendarReasonPrefix, shortName(c.FutureReservation))
}

// IsCalendarReason reports whether a Slurm reason is one of the calendar drains.
func IsCalendarReason(reason string) bool { return strings.HasPrefix(reason, calendarReasonPrefix) }

// EndTime is the window's end (zero when unknown).
func (c Calendar) EndTime() time.Time {
	t, _ := time.Parse(time.RFC3339, c.End)
	return t
}

func shortName(p string) string { return p[strings.LastIndex(p, "/")+1:] }

// ValidateCalendar checks a partition's calendar block.
func ValidateCalendar(c *Calendar) error {
	if c == nil {
		return nil
	}
	parts := strings.Split(c.FutureReservation, "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[2] != "zones" || parts[4] != "futureReservations" || parts[5] == "" {
		return fmt.Errorf("calendar: %q is not projects/P/zones/Z/futureReservations/N", c.FutureReservation)
	}
	for _, t := range []string{c.Start, c.End} {
		if t == "" {
			continue
		}
		if _, err := time.Parse(time.RFC3339, t); err != nil {
			return fmt.Errorf("calendar: %q is not an RFC 3339 time", t)
		}
	}
	return nil
}
