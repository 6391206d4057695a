package slurm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// recorder is a Runner that answers with out and records each command line with its SLURM_CONF.
type recorder struct {
	out   string
	err   error
	calls []string
}

func (r *recorder) run(_ context.Context, env []string, name string, args ...string) (string, error) {
	r.calls = append(r.calls, strings.Join(env, " ")+"|"+name+" "+strings.Join(args, " "))
	return r.out, r.err
}

func TestCLINodesParsesSinfo(t *testing.T) {
	r := &recorder{out: "c-a3-0|idle|none\nc-a3-1|drained|hypercompute: partition scale-down\nc-a3-2|idle~|none\n\nbad line\n"}
	cli := CLI{Conf: "/etc/slurm/slurm.conf", Run: r.run}
	nodes, err := cli.Nodes(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]NodeInfo{
		"c-a3-0": {Name: "c-a3-0", State: "idle"},
		"c-a3-1": {Name: "c-a3-1", State: "drained", Reason: "hypercompute: partition scale-down"},
		"c-a3-2": {Name: "c-a3-2", State: "idle~"},
	}
	if !reflect.DeepEqual(nodes, want) {
		t.Errorf("Nodes = %+v\nwant %+v", nodes, want)
	}
	if !nodes["c-a3-1"].Drained() || nodes["c-a3-0"].Drained() || !nodes["c-a3-0"].Registered() || nodes["c-a3-2"].Registered() {
		t.Errorf("node predicates wrong for %+v", nodes)
	}
	if _, err := cli.Nodes(context.Background(), "c-a3-[0-1]"); err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"SLURM_CONF=/etc/slurm/slurm.conf|sinfo -h -N -o %N|%T|%E",
		"SLURM_CONF=/etc/slurm/slurm.conf|sinfo -h -N -o %N|%T|%E -n c-a3-[0-1]",
	}
	if !reflect.DeepEqual(r.calls, wantCalls) {
		t.Errorf("calls = %q\nwant %q", r.calls, wantCalls)
	}
	r.err = errors.New("sinfo: error: slurm_load_node: Unable to contact slurm controller")
	if _, err := cli.Nodes(context.Background(), ""); err == nil {
		t.Error("a failing sinfo must fail Nodes")
	}
}

func TestCLIUpdateNodes(t *testing.T) {
	r := &recorder{}
	cli := CLI{Run: r.run}
	ctx := context.Background()
	if err := cli.UpdateNodes(ctx, "c-a3-[2-3]", NodeUpdate{State: "DRAIN", Reason: "hypercompute: partition scale-down"}); err != nil {
		t.Fatal(err)
	}
	if err := cli.UpdateNodes(ctx, "c-a3-2", NodeUpdate{State: "RESUME"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"|scontrol update nodename=c-a3-[2-3] state=drain reason=hypercompute: partition scale-down",
		"|scontrol update nodename=c-a3-2 state=resume",
	}
	if !reflect.DeepEqual(r.calls, want) {
		t.Errorf("calls = %q\nwant %q", r.calls, want)
	}
	if err := cli.UpdateNodes(ctx, "c-a3-2", NodeUpdate{State: "DRAIN"}); err == nil {
		t.Error("a drain without a reason accepted")
	}
	if err := cli.UpdateNodes(ctx, "a b", NodeUpdate{State: "RESUME"}); err == nil {
		t.Error("a hostlist with a space accepted")
	}
	if len(r.calls) != 2 {
		t.Errorf("refused updates must run nothing: %q", r.calls)
	}
}

// Which sinfo long states count as a registered slurmd: a static node powered down, powering up,
// unresponsive or never heard from must keep the provider waiting.
func TestRegisteredState(t *testing.T) {
	for state, want := range map[string]bool{
		"idle": true, "allocated": true, "mixed": true, "completing": true, "drained": true,
		"draining": true, "down": true, "idle$": true, "mixed+": true, "idle@": true,
		"idle~": false, "idle#": false, "down*": false, "idle*": false, "drained~": false,
		"idle%": false, "idle!": false, "unknown": false, "unknown*": false, "future": false, "": false,
	} {
		if got := RegisteredState(state); got != want {
			t.Errorf("RegisteredState(%q) = %v, want %v", state, got, want)
		}
	}
}

// PartitionNodes is one sinfo over a partition's nodes in a state, one name a line.
func TestCLIPartitionNodes(t *testing.T) {
	r := &recorder{out: "c-a3-0\nc-a3-2\n"}
	cli := CLI{Run: r.run}
	nodes, err := cli.PartitionNodes(context.Background(), "a3", "idle")
	if err != nil || !reflect.DeepEqual(nodes, []string{"c-a3-0", "c-a3-2"}) {
		t.Errorf("PartitionNodes = %q, %v", nodes, err)
	}
	if _, err := cli.PartitionNodes(context.Background(), "a3", ""); err != nil {
		t.Fatal(err)
	}
	want := []string{"|sinfo -h -N -p a3 -t idle -o %N", "|sinfo -h -N -p a3 -o %N"}
	if !reflect.DeepEqual(r.calls, want) {
		t.Errorf("calls = %q\nwant %q", r.calls, want)
	}
	for _, bad := range [][2]string{{"a3 a4", "idle"}, {"a3", "idle drain"}, {"", "idle"}} {
		if _, err := cli.PartitionNodes(context.Background(), bad[0], bad[1]); err == nil {
			t.Errorf("PartitionNodes(%q, %q) accepted", bad[0], bad[1])
		}
	}
	if len(r.calls) != 2 {
		t.Errorf("refused calls ran %q", r.calls[2:])
	}
}
