package agent

import (
	"bytes"
	"context"
	"os"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// driftedFiles lists the applied files whose content on disk is not what the agent wrote (edited
// or removed out of band), in path order.
func driftedFiles(files map[string][]byte) []string {
	var out []string
	for _, p := range sortedPaths(files) {
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, files[p]) {
			out = append(out, p)
		}
	}
	return out
}

// checkDrift runs on a pass that found nothing new to apply: files changed out of band are put
// back when the cluster's Rewrite generation asks for it (the user's apply after a plan showed
// the drift), and otherwise reported as config-drift, so the drift shows in the next plan
// instead of being hidden by a silent repair. It returns the state, updated after a rewrite.
func (c *controller) checkDrift(ctx context.Context, cluster cc.Cluster, files map[string][]byte, hash string, st controllerState) (controllerState, bool, error) {
	drifted := driftedFiles(files)
	if len(drifted) == 0 {
		c.rep.clear(ctx, cc.GuestAttrConfigDrift)
		return st, false, nil
	}
	if cluster.Rewrite == st.Rewrite {
		c.log.Warn("applied files were changed out of band; reported as config drift", "files", drifted, "hash", hash)
		c.rep.set(ctx, cc.GuestAttrConfigDrift, cc.FormatDrift(hash, drifted))
		return st, true, nil
	}
	st, err := c.apply(ctx, cluster, files, hash, st, true)
	if err != nil {
		return st, true, err
	}
	c.log.Info("restored files changed out of band", "files", drifted, "hash", hash, "rewrite", cluster.Rewrite)
	c.rep.clear(ctx, cc.GuestAttrConfigDrift)
	return st, false, nil
}
