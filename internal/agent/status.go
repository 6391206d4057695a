package agent

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Status prints what the agent reported and what runs, for a person on the
// VM.
func Status(ctx context.Context, w io.Writer, version string) error {
	md := NewMetadata()
	fmt.Fprintf(w, "hypercompute-agent %s\n", version)
	if b, err := os.ReadFile(agentPID); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		state := "not running"
		if agentAlive(pid) {
			state = "running"
		}
		fmt.Fprintf(w, "daemon: pid %d, %s\n", pid, state)
	} else if systemdRunning() {
		out, _ := runCommand(ctx, nil, "systemctl", "is-active", agentUnit+".service")
		fmt.Fprintf(w, "daemon: unit %s.service %s\n", agentUnit, strings.TrimSpace(out))
	}
	attrs, err := md.GuestAttributes(ctx)
	if err != nil {
		fmt.Fprintf(w, "reports: cannot read guest attributes: %v\n", err)
	} else {
		fmt.Fprintln(w, "reports (guest attributes "+cc.GuestAttributeNamespace+"/):")
		keys := make([]string, 0, len(attrs))
		for k := range attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %-14s %s\n", k+":", attrs[k])
		}
	}
	sup := newSupervisor(nil)
	fmt.Fprintln(w, "daemons:")
	for _, d := range []daemon{mungedDaemon, {Name: "slurmctld", Argv: []string{"/usr/sbin/slurmctld"}},
		{Name: "slurmrestd", Argv: []string{"/usr/sbin/slurmrestd"}}, {Name: "slurmd", Argv: []string{"/usr/sbin/slurmd"}}} {
		state := "not running"
		if sup.running(d) {
			state = "running"
		}
		fmt.Fprintf(w, "  %-11s %s\n", d.Name+":", state)
	}
	fmt.Fprintf(w, "log: %s\n", LogFile)
	return nil
}
