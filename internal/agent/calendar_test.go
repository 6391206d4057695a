package agent

import (
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// A calendar partition waits until its request is FULFILLED, runs while the delivered reservation exists, is
// "ending" CalendarNoticeLead before the end, and has ended once the reservation is gone or the request died.
func TestCalendarPhase(t *testing.T) {
	end := time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC)
	fr := func(status string) *computepb.FutureReservation {
		return &computepb.FutureReservation{Status: &computepb.FutureReservationStatus{ProcurementStatus: proto.String(status)}}
	}
	cases := []struct {
		status string
		exists bool
		now    time.Time
		want   calendarPhase
	}{
		{"PENDING_APPROVAL", false, end.Add(-72 * time.Hour), calendarWaiting},
		{"APPROVED", false, end.Add(-72 * time.Hour), calendarWaiting},
		{"PROVISIONING", false, end.Add(-72 * time.Hour), calendarWaiting},
		{"FULFILLED", true, end.Add(-72 * time.Hour), calendarDelivered},
		{"FULFILLED", true, end.Add(-cc.CalendarNoticeLead - time.Second), calendarDelivered},
		{"FULFILLED", true, end.Add(-cc.CalendarNoticeLead), calendarEnding},
		{"FULFILLED", false, end.Add(-72 * time.Hour), calendarEnded},
		{"CANCELLED", false, end.Add(-72 * time.Hour), calendarEnded},
	}
	for _, c := range cases {
		if got := phaseOf(fr(c.status), c.exists, end, c.now); got != c.want {
			t.Errorf("%s (reservation there: %v) at end-%s: %s, want %s", c.status, c.exists, end.Sub(c.now), got, c.want)
		}
	}
}
