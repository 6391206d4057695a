package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// preflight checks, before anything is created, what would otherwise fail half-way through a
// thousand VMs: the reservation (it exists, is in the zone, holds this machine type, has room for
// the new static nodes) and the regional quota for their GPUs and CPUs. n is the number of static
// nodes this apply creates.
func preflight(ctx context.Context, cl *gcp.Clients, d *desired, n int) error {
	if n <= 0 {
		return nil
	}
	var errs []error
	reserved := false
	if d.model == modelReservation {
		if err := checkReservation(ctx, cl, d, n); err != nil {
			errs = append(errs, err)
		}
		reserved = true
	}
	if err := checkQuota(ctx, cl, d, n, reserved); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func checkReservation(ctx context.Context, cl *gcp.Clients, d *desired, n int) error {
	ref, err := parseReservation(d.reservation, d.project)
	if err != nil {
		return fmt.Errorf("provisioning.reservation: %w", err)
	}
	res, err := findReservation(ctx, cl, ref.project, d.zone, ref.name)
	if tfutil.IsNotFound(err) {
		if where := findReservationZones(ctx, cl, ref); len(where) > 0 {
			return fmt.Errorf("provisioning.reservation: reservation %s of project %s is in %s, not in the partition's zone %s; set zone = %q on the partition or use a reservation in %s",
				ref.name, ref.project, strings.Join(where, ", "), d.zone, where[0], d.zone)
		}
		hint := ""
		if ref.shared {
			hint = " (a reservation of another project must be shared with this one)"
		}
		return fmt.Errorf("provisioning.reservation: reservation %s does not exist in project %s, zone %s%s", ref.name, ref.project, d.zone, hint)
	}
	if err != nil {
		return fmt.Errorf("provisioning.reservation: reading reservation %s: %w", ref.name, err)
	}
	sr := res.GetSpecificReservation()
	if mt := lastSegment(sr.GetInstanceProperties().GetMachineType()); mt != d.machine.Name {
		return fmt.Errorf("provisioning.reservation: reservation %s holds %s VMs, but the partition's machine_type is %s", ref.name, mt, d.machine.Name)
	}
	if !res.GetSpecificReservationRequired() {
		return fmt.Errorf("provisioning.reservation: reservation %s can be consumed by any matching VM (specificReservationRequired is false), so it cannot be targeted by name; create it with specific reservation required, or use model = \"standard\" to consume it automatically", ref.name)
	}
	if st := res.GetStatus(); st != "" && st != "READY" {
		return fmt.Errorf("provisioning.reservation: reservation %s is %s, not READY", ref.name, st)
	}
	free := sr.GetCount() - sr.GetInUseCount()
	if free < int64(n) {
		return fmt.Errorf("provisioning.reservation: reservation %s has %d of its %d %s VMs free (%d in use), and this apply creates %d static nodes; lower static_node_count to %d or enlarge the reservation",
			ref.name, free, sr.GetCount(), d.machine.Name, sr.GetInUseCount(), n, max(free, 0))
	}
	return nil
}

// findReservationZones looks for a reservation of the name in the owner's other zones, so a
// reservation in the wrong zone is reported as such.
func findReservationZones(ctx context.Context, cl *gcp.Clients, ref reservationRef) []string {
	it := cl.Reservations.AggregatedList(ctx, &computepb.AggregatedListReservationsRequest{
		Project: ref.project, Filter: proto.String(fmt.Sprintf("name = %q", ref.name)),
	})
	var zones []string
	for {
		pair, err := it.Next()
		if err != nil {
			break
		}
		for _, r := range pair.Value.GetReservations() {
			if r.GetName() == ref.name {
				zones = append(zones, lastSegment(r.GetZone()))
			}
		}
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}

// quotaNeed is what n nodes of the partition take from regional quota.
func quotaNeed(d *desired, n int, reserved bool) map[string]float64 {
	per := d.machine.QuotaMetrics()
	switch {
	case reserved:
		// A reservation holds the CPUs and GPUs already; only the VMs count.
		per = map[string]float64{catalog.QuotaInstances: 1}
	case d.model == modelSpot || d.model == modelFlexStart:
		per = d.machine.SpotQuotaMetrics()
	}
	need := map[string]float64{}
	for k, v := range per {
		need[k] = v * float64(n)
	}
	return need
}

func checkQuota(ctx context.Context, cl *gcp.Clients, d *desired, n int, reserved bool) error {
	reg, err := findRegion(ctx, cl, d.project, d.region)
	if err != nil {
		return fmt.Errorf("reading the quotas of region %s: %w", d.region, err)
	}
	return quotaError(d, n, tfutil.Shortfalls(reg.GetQuotas(), d.quotaNeed(n, reserved), nil))
}

// quotaNeed is what n new static nodes take from the region, named for the plan-time sum
// across resources (providerdata.PlannedQuota).
func (d *desired) quotaNeed(n int, reserved bool) providerdata.QuotaNeed {
	return providerdata.QuotaNeed{Project: d.project, Region: d.region, What: "partition " + d.name, Metrics: quotaNeed(d, n, reserved)}
}

// quotaError is the one error that lists every metric the n new static nodes do not fit.
func quotaError(d *desired, n int, short []string) error {
	if len(short) == 0 {
		return nil
	}
	return fmt.Errorf("regional quota in %s does not cover %d more %s static nodes: %s. Request more quota for the region, or lower static_node_count (dynamic nodes are charged when Slurm creates them)",
		d.region, n, d.machine.Name, strings.Join(short, "; "))
}

func lastSegment(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}
