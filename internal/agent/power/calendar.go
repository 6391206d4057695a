package power

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// A calendar partition's nodes are created on the reservation its future reservation delivered, whose name
// Compute makes up at delivery: the template cannot name it, so the VMs are created from the template's
// properties with the delivered reservation as their affinity (bulkInsert with instanceProperties alone).

// DeliveredReservation returns the name of the reservation a future reservation delivered, or an error that
// says when its capacity arrives.
func DeliveredReservation(ctx context.Context, cl *gcp.Clients, cal cc.Calendar) (string, *computepb.FutureReservation, error) {
	project, zone, name, err := splitFutureReservation(cal.FutureReservation)
	if err != nil {
		return "", nil, err
	}
	fr, err := cl.FutureReservations.Get(ctx, &computepb.GetFutureReservationRequest{Project: project, Zone: zone, FutureReservation: name})
	if err != nil {
		return "", nil, fmt.Errorf("reading future reservation %s: %w", name, gcp.Classify(err))
	}
	st := fr.GetStatus()
	if st.GetProcurementStatus() != "FULFILLED" || len(st.GetAutoCreatedReservations()) == 0 {
		return "", fr, fmt.Errorf("future reservation %s is %s: its capacity arrives at %s", name, st.GetProcurementStatus(), fr.GetTimeWindow().GetStartTime())
	}
	link := st.GetAutoCreatedReservations()[0]
	return link[strings.LastIndex(link, "/")+1:], fr, nil
}

func splitFutureReservation(p string) (project, zone, name string, err error) {
	parts := strings.Split(p, "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[2] != "zones" || parts[4] != "futureReservations" {
		return "", "", "", fmt.Errorf("%q is not projects/P/zones/Z/futureReservations/N", p)
	}
	return parts[1], parts[3], parts[5], nil
}

// calendarProperties are the template's properties with the delivered reservation as affinity.
func calendarProperties(ctx context.Context, cl *gcp.Clients, g *group) (*computepb.InstanceProperties, error) {
	res, _, err := DeliveredReservation(ctx, cl, *g.part.Calendar)
	if err != nil {
		return nil, err
	}
	name := g.part.InstanceTemplate[strings.LastIndex(g.part.InstanceTemplate, "/")+1:]
	tmpl, err := cl.InstanceTemplates.Get(ctx, &computepb.GetInstanceTemplateRequest{Project: g.project, InstanceTemplate: name})
	if err != nil {
		return nil, fmt.Errorf("reading the partition's instance template %s: %w", name, gcp.Classify(err))
	}
	props := proto.Clone(tmpl.GetProperties()).(*computepb.InstanceProperties)
	if props == nil {
		return nil, errors.New("the partition's instance template has no properties")
	}
	props.ReservationAffinity = &computepb.ReservationAffinity{ConsumeReservationType: proto.String("SPECIFIC_RESERVATION"),
		Key: proto.String("compute.googleapis.com/reservation-name"), Values: []string{res}}
	return props, nil
}
