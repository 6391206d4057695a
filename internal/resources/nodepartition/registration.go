package nodepartition

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// nodeErrorsAfter is how long the wait for registration trusts the controller's report alone.
// A node VM boots, mounts and starts slurmd in well under a minute when all is well; past that,
// the wait also reads the bootstrap reports of a few missing nodes, so a node that failed ends
// the apply with its own error text instead of running into the timeout. The partition's
// resume_timeout, when smaller, is the sooner limit (Slurm gives up on such a node by then too).
// A variable so tests can shorten it.
var nodeErrorsAfter = 60 * time.Second

// nodesInspected bounds the node VMs whose guest attributes one look reads, so the wait costs a
// handful of calls per poll however large the partition is.
const nodesInspected = 5

// registrationWait waits until the partition's static nodes have registered in Slurm.
type registrationWait struct {
	appliedWait
	partition     string
	project, zone string // where the nodes are
	// nodes are the static nodes whose VMs exist.
	nodes       []string
	errorsAfter time.Duration
}

// untilRegistered polls the controller's registered-<partition> report (one getGuestAttributes
// call per look) until it lists every node. After errorsAfter it also reads the phase and error
// of up to nodesInspected missing nodes and fails with the node's own words when one failed; on
// timeout it says which nodes never registered and the last phase each reported.
func (w registrationWait) untilRegistered(ctx context.Context) error {
	start := time.Now()
	missing := slices.Clone(w.nodes)
	phases := map[string]string{}
	_, err := w.report().Until(ctx, func(r tfutil.Report) (bool, error) {
		registered := map[string]bool{}
		for _, n := range r.Registered(w.partition) {
			registered[n] = true
		}
		missing = slices.DeleteFunc(missing, func(n string) bool { return registered[n] })
		if len(missing) == 0 {
			return true, nil
		}
		if time.Since(start) < w.errorsAfter {
			return false, nil
		}
		return false, w.inspect(ctx, missing, phases)
	})
	if err == nil || ctx.Err() == nil {
		return err
	}
	if len(phases) == 0 {
		// The timeout came before the first inspection: look once, past the deadline.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_ = w.inspect(rctx, missing, phases)
		cancel()
	}
	return fmt.Errorf("timed out waiting for the static nodes of partition %s to register in Slurm: %d of %d did not (%s); last phase reported: %s. Check their serial consoles, or set wait_for_nodes = false not to wait",
		w.partition, len(missing), len(w.nodes), cc.CompressHostlist(missing), describePhases(missing, phases))
}

// inspect reads the bootstrap reports of the first missing nodes into phases and returns the
// error of one that failed.
func (w registrationWait) inspect(ctx context.Context, missing []string, phases map[string]string) error {
	for _, n := range missing[:min(len(missing), nodesInspected)] {
		r, err := tfutil.ReadReport(ctx, w.cl, tfutil.VM{Project: w.project, Zone: w.zone, Name: n})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		phases[n] = r.Phase
		if r.Failed() {
			return fmt.Errorf("node %s of partition %s failed to join the cluster (phase %s): %s",
				n, w.partition, r.Phase, firstNonEmpty(r.Error, "no error text reported"))
		}
	}
	return nil
}

func describePhases(missing []string, phases map[string]string) string {
	var parts []string
	for _, n := range missing[:min(len(missing), nodesInspected)] {
		p, ok := phases[n]
		if !ok || p == "" {
			p = "none reported"
		}
		parts = append(parts, n+": "+p)
	}
	if more := len(missing) - nodesInspected; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(parts, ", ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// registrationWaitFor is the wait for the static nodes this apply made: the ones it created (or
// replaced). Static nodes it did not touch are not waited for, so an update of a partition with
// one dead node is not held up by it; warnUnregistered reports those instead.
func (a *applier) registrationWaitFor(_ inventory, made []string) registrationWait {
	nodes := slices.Sorted(slices.Values(made))
	after := nodeErrorsAfter
	if rt := time.Duration(a.d.slurm.resumeTimeout) * time.Second; rt > 0 && rt < after {
		after = rt
	}
	return registrationWait{
		appliedWait: appliedWait{cl: a.cl, ref: a.d.cluster, what: "partition " + a.d.name, poll: a.poll},
		partition:   a.d.name, project: a.d.project, zone: a.d.zone, nodes: nodes, errorsAfter: after,
	}
}
