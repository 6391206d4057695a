package trainingcluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// errWaitCut ends a wait that another VM's failure made pointless.
var errWaitCut = errors.New("wait cut short")

// defaultRestoreTimeout bounds putting back a rejected configuration's predecessor, which runs
// even when the apply's own time is up.
const defaultRestoreTimeout = 2 * time.Minute

// readReport reads a VM's report (tfutil.ReadReport).
func (a *applier) readReport(ctx context.Context, vm string) (tfutil.Report, error) {
	return tfutil.ReadReport(ctx, a.c, a.vm(vm))
}

// ConfigRejectedError is slurmctld's refusal of a new configuration; the controller keeps the
// configuration it had.
type ConfigRejectedError struct {
	VM, Hash, Text string
}

func (e *ConfigRejectedError) Error() string {
	return fmt.Sprintf("the controller %s rejected the new Slurm configuration (config-hash %s) and keeps running the previous one; slurmctld said:\n%s",
		e.VM, tfutil.ShortHash(e.Hash), e.Text)
}

// expectFunc computes, from the VM as it is now, the config hash the VM must report; "" means
// only phase=ready is awaited (login VMs).
type expectFunc func(*computepb.Instance) (string, error)

// waitReady polls a VM until it reports phase=ready (and, for the controller, the expected
// config-hash), fails with the VM's own words (*tfutil.NodeError) when it reports an error or
// rejects the configuration, and otherwise says, when ctx runs out, what it was waiting for and
// what it saw.
func (a *applier) waitReady(ctx context.Context, vm string, expect expectFunc) error {
	start := time.Now()
	var want string
	w := tfutil.ReportWait{Clients: a.c, VM: a.vm(vm), First: 250 * time.Millisecond, Max: 5 * time.Second,
		Retry: func(err error) bool { return gcp.IsRateLimited(err) || isTransient(err) }}
	last, err := w.Until(ctx, func(r tfutil.Report) (bool, error) {
		inst, err := a.findVM(ctx, vm)
		if tfutil.IsNotFound(err) {
			return false, fmt.Errorf("VM %s was deleted while waiting for it to report ready", vm)
		}
		if err != nil {
			return false, fmt.Errorf("waiting for VM %s: %w", vm, err)
		}
		switch st := inst.GetStatus(); st {
		case "STOPPING", "STOPPED", "TERMINATED", "SUSPENDING", "SUSPENDED":
			return false, fmt.Errorf("VM %s is %s while waiting for it to report ready (%s)", vm, st, r)
		}
		if expect != nil {
			if want, err = expect(inst); err != nil {
				return false, err
			}
		}
		if text, ok := r.Rejected(want); ok {
			return false, &ConfigRejectedError{VM: vm, Hash: want, Text: strings.TrimSpace(text)}
		}
		// The controller is done once it runs the configuration with its files as written.
		return r.Ready(want) && (expect == nil || !drifting(r)), nil
	})
	switch {
	case err == nil || ctx.Err() == nil:
		return err
	case errors.Is(err, context.Canceled):
		return errWaitCut
	}
	what := "phase=ready"
	if want != "" {
		what += " with config-hash " + tfutil.ShortHash(want)
	}
	return fmt.Errorf("timed out after %s waiting for VM %s to report %s; last seen: %s. The VM's serial console tells more: gcloud compute instances get-serial-port-output %s --zone %s",
		time.Since(start).Round(time.Second), vm, what, last, vm, a.d.zone)
}

func isTransient(err error) bool {
	var apiErr *gcp.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatus >= 500 {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// expectCluster is the controller's expectation: the hash of this apply's cluster config with the
// partitions and health policies the controller's metadata holds now (clusterconfig.AppliedHash;
// other resources add and change them at any time,
// so it is recomputed on every poll). A cluster config someone else wrote meanwhile ends the wait:
// the controller will never report this apply's hash.
func expectCluster(cluster clusterconfig.Cluster, encoded string) expectFunc {
	return func(inst *computepb.Instance) (string, error) {
		md := metadataMap(inst.GetMetadata())
		if md[clusterconfig.ClusterKey] != encoded {
			return "", fmt.Errorf("the cluster configuration on VM %s was changed by someone else while waiting for the controller to apply it; run the apply again", inst.GetName())
		}
		return clusterconfig.AppliedHash(cluster, md)
	}
}
