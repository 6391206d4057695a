package trainingcluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// errWaitCut ends a wait that another VM's failure made pointless.
var errWaitCut = errors.New("wait cut short")

// defaultRestoreTimeout bounds putting back a rejected configuration's predecessor, which runs
// even when the apply's own time is up.
const defaultRestoreTimeout = 2 * time.Minute

// report is what a VM's launcher and agent published under the hypercompute/ namespace.
type report struct {
	phase, err, hash, configError string
	any                           bool
}

func (r report) String() string {
	if !r.any {
		return "nothing reported yet (the launcher has not started the agent)"
	}
	s := "phase " + orDash(r.phase)
	if r.hash != "" {
		s += ", config-hash " + short(r.hash)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// readReport reads a VM's guest attributes. Compute answers 404 until the guest wrote one.
func (a *applier) readReport(ctx context.Context, vm string) (report, error) {
	ga, err := a.c.Instances.GetGuestAttributes(ctx, &computepb.GetGuestAttributesInstanceRequest{
		Project: a.s.project, Zone: a.s.zone, Instance: vm, QueryPath: proto.String(clusterconfig.GuestAttributeNamespace + "/"),
	})
	if err = gcp.Classify(err); err != nil {
		if gcp.IsNotFound(err) {
			return report{}, nil
		}
		return report{}, err
	}
	var r report
	for _, it := range ga.GetQueryValue().GetItems() {
		if it.GetNamespace() != clusterconfig.GuestAttributeNamespace {
			continue
		}
		r.any = true
		switch it.GetKey() {
		case clusterconfig.GuestAttrPhase:
			r.phase = it.GetValue()
		case clusterconfig.GuestAttrError:
			r.err = it.GetValue()
		case clusterconfig.GuestAttrConfigHash:
			r.hash = it.GetValue()
		case clusterconfig.GuestAttrConfigError:
			r.configError = it.GetValue()
		}
	}
	return r, nil
}

// BootstrapError is a VM's own account of why it could not come up.
type BootstrapError struct {
	VM, Phase, Text string
}

func (e *BootstrapError) Error() string {
	return fmt.Sprintf("VM %s failed to bootstrap (phase %s): %s", e.VM, e.Phase, e.Text)
}

// ConfigRejectedError is slurmctld's refusal of a new configuration; the controller keeps the
// configuration it had.
type ConfigRejectedError struct {
	VM, Hash, Text string
}

func (e *ConfigRejectedError) Error() string {
	return fmt.Sprintf("the controller %s rejected the new Slurm configuration (config-hash %s) and keeps running the previous one; slurmctld said:\n%s",
		e.VM, short(e.Hash), e.Text)
}

// expectFunc computes, from the VM as it is now, the config hash the VM must report; "" means
// only phase=ready is awaited (login VMs).
type expectFunc func(*computepb.Instance) (string, error)

// waitReady polls a VM until it reports phase=ready (and, for the controller, the expected
// config-hash), fails with the VM's own words when it reports an error or rejects the
// configuration, and otherwise says, when ctx runs out, what it was waiting for and what it saw.
func (a *applier) waitReady(ctx context.Context, vm string, expect expectFunc) error {
	start := time.Now()
	delay := 250 * time.Millisecond
	var (
		last report
		want string
	)
	for {
		inst, err := a.get(ctx, vm)
		switch {
		case gcp.IsNotFound(err):
			return fmt.Errorf("VM %s was deleted while waiting for it to report ready", vm)
		case err == nil:
			switch st := inst.GetStatus(); st {
			case "STOPPING", "STOPPED", "TERMINATED", "SUSPENDING", "SUSPENDED":
				return fmt.Errorf("VM %s is %s while waiting for it to report ready (%s)", vm, st, last)
			}
			if expect != nil {
				if want, err = expect(inst); err != nil {
					return err
				}
			}
			var rep report
			if rep, err = a.readReport(ctx, vm); err == nil {
				last = rep
				switch {
				case rep.phase == clusterconfig.PhaseLauncherFailed || rep.phase == clusterconfig.PhaseError:
					text := rep.err
					if text == "" {
						text = "(the VM reported no error text; see its serial console: gcloud compute instances get-serial-port-output " + vm + " --zone " + a.s.zone + ")"
					}
					return &BootstrapError{VM: vm, Phase: rep.phase, Text: text}
				case want != "" && strings.HasPrefix(rep.configError, want+" "):
					return &ConfigRejectedError{VM: vm, Hash: want, Text: strings.TrimSpace(strings.TrimPrefix(rep.configError, want+" "))}
				case rep.phase == clusterconfig.PhaseReady && (want == "" || rep.hash == want):
					return nil
				}
			}
		}
		if err != nil && ctx.Err() == nil && !gcp.IsRateLimited(err) && !isTransient(err) {
			return fmt.Errorf("waiting for VM %s: %w", vm, err)
		}
		if serr := sleep(ctx, delay); serr != nil {
			if errors.Is(serr, context.Canceled) {
				return errWaitCut
			}
			what := "phase=ready"
			if want != "" {
				what += " with config-hash " + short(want)
			}
			return fmt.Errorf("timed out after %s waiting for VM %s to report %s; last seen: %s. The VM's serial console tells more: gcloud compute instances get-serial-port-output %s --zone %s",
				time.Since(start).Round(time.Second), vm, what, last, vm, a.s.zone)
		}
		delay = min(delay*3/2, 5*time.Second)
	}
}

func isTransient(err error) bool {
	var apiErr *gcp.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatus >= 500 {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// expectCluster is the controller's expectation: the hash of this apply's cluster config and the
// partitions the controller's metadata holds now (other resources add and change them at any time,
// so it is recomputed on every poll). A cluster config someone else wrote meanwhile ends the wait:
// the controller will never report this apply's hash.
func expectCluster(cluster clusterconfig.Cluster, encoded string) expectFunc {
	return func(inst *computepb.Instance) (string, error) {
		md := metadataMap(inst.GetMetadata())
		if md[clusterconfig.ClusterKey] != encoded {
			return "", fmt.Errorf("the cluster configuration on VM %s was changed by someone else while waiting for the controller to apply it; run the apply again", inst.GetName())
		}
		return clusterconfig.Hash(cluster, partitionsOf(cluster.Name, md))
	}
}

// partitionsOf decodes the partitions in the controller's metadata. One that does not decode is
// left out, as the agent leaves it out of slurm.conf.
func partitionsOf(cluster string, md map[string]string) []clusterconfig.Partition {
	var out []clusterconfig.Partition
	for k, v := range md {
		if !strings.HasPrefix(k, clusterconfig.PartitionKeyPrefix) {
			continue
		}
		if p, err := clusterconfig.DecodePartition(cluster, []byte(v)); err == nil {
			out = append(out, p)
		}
	}
	return out
}
