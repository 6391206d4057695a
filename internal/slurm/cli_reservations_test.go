package slurm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// scripted is a Runner that answers each command by the first word after the command name
// ("update", "create", "delete") and records the command lines.
type scripted struct {
	errs  map[string]error
	calls []string
}

func (s *scripted) run(_ context.Context, _ []string, name string, args ...string) (string, error) {
	s.calls = append(s.calls, name+" "+strings.Join(args, " "))
	return "", s.errs[args[0]]
}

// An existing reservation is updated in place; a new one is created to last, for root, over
// running jobs; one slurmctld says exists already is updated; none left deletes it, and one
// already gone is no error.
func TestCLISetReservation(t *testing.T) {
	ctx := context.Background()
	const create = "scontrol create reservation reservationname=hc-spares-gpu nodes=c-gpu-0,c-gpu-1 starttime=now duration=infinite users=root flags=ignore_jobs"
	const update = "scontrol update reservationname=hc-spares-gpu nodes=c-gpu-0,c-gpu-1"
	nodes := []string{"c-gpu-0", "c-gpu-1"}
	for _, tc := range []struct {
		name   string
		exists bool
		nodes  []string
		errs   map[string]error
		want   []string
		fails  bool
	}{
		{"update", true, nodes, nil, []string{update}, false},
		{"create", false, nodes, nil, []string{create}, false},
		{"update gone, create", true, nodes, map[string]error{"update": errors.New("Reservation request has invalid reservation name")}, []string{update, create}, false},
		{"create duplicate, update", false, nodes, map[string]error{"create": errors.New("Error creating the reservation: Duplicate reservation name")}, []string{create, update}, false},
		{"create fails", false, nodes, map[string]error{"create": errors.New("Requested nodes are busy")}, []string{create}, true},
		{"delete", true, nil, nil, []string{"scontrol delete reservationname=hc-spares-gpu"}, false},
		{"delete gone", true, nil, map[string]error{"delete": errors.New("scontrol: error: Reservation hc-spares-gpu not found")}, []string{"scontrol delete reservationname=hc-spares-gpu"}, false},
		{"delete fails", true, nil, map[string]error{"delete": errors.New("Unable to contact slurm controller")}, []string{"scontrol delete reservationname=hc-spares-gpu"}, true},
	} {
		s := &scripted{errs: tc.errs}
		err := CLI{Run: s.run}.SetReservation(ctx, "hc-spares-gpu", tc.exists, tc.nodes)
		if (err != nil) != tc.fails || !reflect.DeepEqual(s.calls, tc.want) {
			t.Errorf("%s: SetReservation = %v after %q; want failure %v after %q", tc.name, err, s.calls, tc.fails, tc.want)
		}
	}
	s := &scripted{}
	if err := (CLI{Run: s.run}).SetReservation(ctx, "hc spares", false, nodes); err == nil || len(s.calls) != 0 {
		t.Errorf("a reservation name with a space = %v after %q; want a refusal that runs nothing", err, s.calls)
	}
}
