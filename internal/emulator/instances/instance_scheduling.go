package instances

import (
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Scheduling and reservation affinity rules: provisioning models, host maintenance (GPUs, Spot, flex-start and
// compact placement need TERMINATE), run durations, and which reservations a VM may target.

func (s *Service) planScheduling(p *plan, out *computepb.Instance, field string, collocated bool) *core.APIError {
	if out.Scheduling == nil {
		out.Scheduling = &computepb.Scheduling{}
	}
	sc := out.Scheduling
	f := field + ".scheduling"
	model := sc.GetProvisioningModel()
	if model == "" {
		model = modelStandard
		if sc.GetPreemptible() {
			model = modelSpot
		}
	}
	switch model {
	case modelStandard, modelSpot, modelFlexStart, modelReservation:
	default:
		return core.InvalidField(f+".provisioningModel", model, "Must be one of STANDARD, SPOT, FLEX_START, RESERVATION_BOUND.")
	}
	sc.ProvisioningModel = proto.String(model)
	mt := p.mt
	if mt.Placement.ReservationBound && model != modelReservation {
		return core.InvalidField(f+".provisioningModel", model, fmt.Sprintf("Machine type '%s' can only be provisioned from a reservation (provisioningModel RESERVATION_BOUND).", mt.Name))
	}
	interruptible := model == modelSpot || model == modelFlexStart || sc.GetPreemptible()
	switch model {
	case modelSpot:
		if !mt.SpotCapable {
			return core.InvalidField(f+".provisioningModel", model, fmt.Sprintf("Machine type '%s' cannot run as a Spot VM.", mt.Name))
		}
		if sc.InstanceTerminationAction == nil {
			sc.InstanceTerminationAction = proto.String("STOP")
		}
	case modelFlexStart:
		if !mt.FlexStartCapable {
			return core.InvalidField(f+".provisioningModel", model, fmt.Sprintf("Machine type '%s' cannot be provisioned with flex-start.", mt.Name))
		}
		d := durationOf(sc.GetMaxRunDuration())
		if sc.MaxRunDuration == nil || d < minFlexRun || d > maxFlexRun {
			return core.InvalidField(f+".maxRunDuration", fmt.Sprintf("%ds", sc.GetMaxRunDuration().GetSeconds()), "Flex-start VMs need a maxRunDuration between 30 seconds and 7 days.")
		}
		if a := sc.GetInstanceTerminationAction(); a != "" && a != "DELETE" {
			return core.InvalidField(f+".instanceTerminationAction", a, "Flex-start VMs must use instanceTerminationAction DELETE.")
		}
		sc.InstanceTerminationAction = proto.String("DELETE")
	}
	if a := sc.GetInstanceTerminationAction(); a != "" && a != "DELETE" && a != "STOP" {
		return core.InvalidField(f+".instanceTerminationAction", a, "Must be DELETE or STOP.")
	}
	if sc.MaxRunDuration != nil {
		if d := durationOf(sc.MaxRunDuration); d < minFlexRun || d > 120*24*time.Hour {
			return core.InvalidField(f+".maxRunDuration", fmt.Sprintf("%ds", sc.GetMaxRunDuration().GetSeconds()), "Must be between 30 seconds and 120 days.")
		}
		if sc.InstanceTerminationAction == nil {
			return core.Required(f + ".instanceTerminationAction")
		}
	}
	ohm := sc.GetOnHostMaintenance()
	if ohm != "" && ohm != catalog.MaintenanceMigrate && ohm != catalog.MaintenanceTerminate {
		return core.InvalidField(f+".onHostMaintenance", ohm, "Must be MIGRATE or TERMINATE.")
	}
	if ohm == "" {
		ohm = catalog.MaintenanceMigrate
		if interruptible || collocated {
			ohm = catalog.MaintenanceTerminate
		}
	}
	if ohm == catalog.MaintenanceMigrate {
		switch {
		case mt.HasGPU():
			return core.InvalidField(f+".onHostMaintenance", ohm, "Instances with guest accelerators do not support live migration.")
		case interruptible:
			return core.InvalidField(f+".onHostMaintenance", ohm, "Spot, preemptible and flex-start instances must use onHostMaintenance TERMINATE.")
		case collocated:
			return core.InvalidField(f+".onHostMaintenance", ohm, "Instances with a compact placement policy must use onHostMaintenance TERMINATE.")
		}
	}
	sc.OnHostMaintenance = proto.String(ohm)
	if sc.AutomaticRestart == nil {
		sc.AutomaticRestart = proto.Bool(!interruptible)
	} else if sc.GetAutomaticRestart() && interruptible {
		return core.InvalidField(f+".automaticRestart", "true", "Spot, preemptible and flex-start instances cannot restart automatically.")
	}
	if sc.Preemptible == nil {
		sc.Preemptible = proto.Bool(false)
	}
	return nil
}

func durationOf(d *computepb.Duration) time.Duration {
	return time.Duration(d.GetSeconds())*time.Second + time.Duration(d.GetNanos())
}

// planReservation validates reservation affinity against the provisioning model and the seeded reservations.
// Whether the reservation still has room is decided when the VM is provisioned.
func (s *Service) planReservation(p *plan, out *computepb.Instance, field string) *core.APIError {
	f := field + ".reservationAffinity"
	ra := out.ReservationAffinity
	model := out.GetScheduling().GetProvisioningModel()
	if ra == nil || ra.GetConsumeReservationType() == "" {
		ra = &computepb.ReservationAffinity{ConsumeReservationType: proto.String(anyReservation)}
		if model == modelFlexStart {
			ra.ConsumeReservationType = proto.String(noReservation)
		}
		out.ReservationAffinity = ra
	}
	switch ra.GetConsumeReservationType() {
	case anyReservation, noReservation:
		if len(ra.GetValues()) > 0 {
			return core.InvalidField(f+".values", strings.Join(ra.GetValues(), ","), "Values are only allowed with SPECIFIC_RESERVATION.")
		}
	case specificReservation:
		if ra.GetKey() != reservationNameKey || len(ra.GetValues()) != 1 {
			return core.InvalidField(f, ra.GetKey(), fmt.Sprintf("SPECIFIC_RESERVATION needs key '%s' and exactly one reservation name.", reservationNameKey))
		}
		ref, ok := parseReservationRef(p.project, p.zone, ra.GetValues()[0])
		if !ok {
			return core.InvalidField(f+".values[0]", ra.GetValues()[0], "Must be a reservation name or 'projects/PROJECT/reservations/NAME'.")
		}
		res, found := s.reservation(s.Store.Get, ref.key)
		if !found || !sharedWith(res, ref, p.project) {
			return core.InvalidField(f, ra.GetValues()[0], fmt.Sprintf("Specified reservation '%s' does not exist.", ra.GetValues()[0]))
		}
		if !res.GetSpecificReservationRequired() {
			return core.InvalidField(f, ra.GetValues()[0], fmt.Sprintf("Specified reservations [%s] can not be targeted as specificReservationRequired is not set", ref.display()))
		}
		if got := lastSegment(res.GetSpecificReservation().GetInstanceProperties().GetMachineType()); got != p.mt.Name {
			return core.InvalidField(f, ra.GetValues()[0], fmt.Sprintf("No available resources in specified reservations '%s': the reservation holds machine type '%s', the instance needs '%s'.", ref.name, got, p.mt.Name))
		}
	default:
		return core.InvalidField(f+".consumeReservationType", ra.GetConsumeReservationType(), "Must be ANY_RESERVATION, NO_RESERVATION or SPECIFIC_RESERVATION.")
	}
	switch {
	case model == modelFlexStart && ra.GetConsumeReservationType() != noReservation:
		return core.InvalidField(f+".consumeReservationType", ra.GetConsumeReservationType(), "Flex-start VMs cannot consume reservations; use NO_RESERVATION.")
	case model == modelReservation && ra.GetConsumeReservationType() != specificReservation:
		return core.InvalidField(f+".consumeReservationType", ra.GetConsumeReservationType(), "RESERVATION_BOUND VMs must target a reservation with SPECIFIC_RESERVATION.")
	}
	return nil
}
