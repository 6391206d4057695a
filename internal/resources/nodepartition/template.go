package nodepartition

import (
	"context"
	"errors"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Compute's names for the provisioning models and reservation affinities.
const (
	computeStandard         = "STANDARD"
	computeSpot             = "SPOT"
	computeFlexStart        = "FLEX_START"
	computeReservationBound = "RESERVATION_BOUND"
	affinityAny             = "ANY_RESERVATION"
	affinityNone            = "NO_RESERVATION"
	affinitySpecific        = "SPECIFIC_RESERVATION"
	reservationNameKey      = "compute.googleapis.com/reservation-name"
)

// instanceProperties is every node of the partition: the instance template holds exactly this, and
// the static nodes are bulk-inserted with it too (inline, so the bulkInsert need not wait for the
// template's own operation). policy is the placement policy's self link or "".
func instanceProperties(d *desired, ci *clusterInfo, nics []*computepb.NetworkInterface, policy string) (*computepb.InstanceProperties, error) {
	m := d.machine
	if _, err := ci.cfg.AgentFor(m.Arch); err != nil {
		return nil, fmt.Errorf("%s nodes are %s: %w", m.Name, m.Arch, err)
	}
	part := d.partition("")
	// Nodes have OS Login on whatever the cluster's os_login says (as they always had): changing it
	// would rename every partition's template.
	md, err := cc.VMMetadata(ci.cfg, cc.RoleCompute, &part, true)
	if err != nil {
		return nil, err
	}

	disks := []*computepb.AttachedDisk{{
		Boot: proto.Bool(true), AutoDelete: proto.Bool(true), Type: proto.String("PERSISTENT"),
		InitializeParams: &computepb.AttachedDiskInitializeParams{
			SourceImage: proto.String(d.image), DiskSizeGb: proto.Int64(d.bootGB), DiskType: proto.String(d.bootType),
		},
	}}
	// A3 and A4 machines come with their local SSDs; others attach what was asked for.
	if bundledLocalSSDs(m) == 0 {
		for i := 0; i < d.localSSDs; i++ {
			disks = append(disks, &computepb.AttachedDisk{
				Type: proto.String("SCRATCH"), AutoDelete: proto.Bool(true), Interface: proto.String("NVME"),
				InitializeParams: &computepb.AttachedDiskInitializeParams{DiskType: proto.String("local-ssd"), DiskSizeGb: proto.Int64(localSSDGB)},
			})
		}
	}

	p := &computepb.InstanceProperties{
		MachineType:       proto.String(m.Name),
		Disks:             disks,
		NetworkInterfaces: nics,
		Metadata:          &computepb.Metadata{Items: tfutil.MetadataItems(md)},
		Labels:            d.vmLabels(),
		Scheduling:        scheduling(d),
		ServiceAccounts:   ci.serviceAccounts,
	}
	// Nodes are Shielded VMs like the controller and login VMs (a config without cloud settings
	// predates the switch and gets the secure default).
	if ci.cfg.Cloud == nil || ci.cfg.Cloud.ShieldedVM {
		p.ShieldedInstanceConfig = &computepb.ShieldedInstanceConfig{
			EnableSecureBoot: proto.Bool(m.SecureBootByDefault()), EnableVtpm: proto.Bool(true), EnableIntegrityMonitoring: proto.Bool(true),
		}
	}
	if ci.publicIPs {
		nics[0].AccessConfigs = []*computepb.AccessConfig{{Name: proto.String("External NAT"), Type: proto.String("ONE_TO_ONE_NAT")}}
	}
	if len(ci.tags) > 0 {
		p.Tags = &computepb.Tags{Items: ci.tags}
	}
	if policy != "" {
		p.ResourcePolicies = []string{policy}
	}
	p.ReservationAffinity = reservationAffinity(d)
	return p, nil
}

func scheduling(d *desired) *computepb.Scheduling {
	m := d.machine
	sc := &computepb.Scheduling{OnHostMaintenance: proto.String(m.OnHostMaintenance)}
	switch d.model {
	case modelSpot:
		sc.ProvisioningModel = proto.String(computeSpot)
		sc.AutomaticRestart = proto.Bool(false)
		sc.OnHostMaintenance = proto.String(catalog.MaintenanceTerminate)
		sc.InstanceTerminationAction = proto.String(d.termination)
	case modelFlexStart:
		sc.ProvisioningModel = proto.String(computeFlexStart)
		sc.AutomaticRestart = proto.Bool(false)
		sc.OnHostMaintenance = proto.String(catalog.MaintenanceTerminate)
		sc.InstanceTerminationAction = proto.String("DELETE")
		sc.MaxRunDuration = &computepb.Duration{Seconds: proto.Int64(int64(d.maxRun.Seconds()))}
	case modelReservation, modelCalendar:
		sc.ProvisioningModel = proto.String(computeStandard)
		// Dense reservations (A3 Ultra, A4, A4X) hand out reservation-bound capacity.
		if m.Placement.ReservationBound || m.Placement.Mode == catalog.PlacementFromReservation {
			sc.ProvisioningModel = proto.String(computeReservationBound)
		}
	default:
		sc.ProvisioningModel = proto.String(computeStandard)
	}
	if d.compact {
		sc.OnHostMaintenance = proto.String(catalog.MaintenanceTerminate)
	}
	return sc
}

func reservationAffinity(d *desired) *computepb.ReservationAffinity {
	switch d.model {
	case modelReservation:
		return &computepb.ReservationAffinity{ConsumeReservationType: proto.String(affinitySpecific),
			Key: proto.String(reservationNameKey), Values: []string{d.reservation}}
	case modelFlexStart, modelSpot, modelCalendar:
		// A calendar partition's VMs are created by the controller with the delivered reservation as
		// their affinity (agent/power/calendar.go); the template never consumes anything by itself.
		return &computepb.ReservationAffinity{ConsumeReservationType: proto.String(affinityNone)}
	}
	return &computepb.ReservationAffinity{ConsumeReservationType: proto.String(affinityAny)}
}

// templateFor names the template of properties by its content.
func templateFor(d *desired, p *computepb.InstanceProperties) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p)
	if err != nil {
		return "", err
	}
	return templateName(d.prefix, b), nil
}

// ensureTemplate creates the template unless it exists: its name is its content, so an existing
// one is exactly this one.
func ensureTemplate(ctx context.Context, cl *gcp.Clients, project, name string, p *computepb.InstanceProperties) error {
	op, err := cl.InstanceTemplates.Insert(ctx, &computepb.InsertInstanceTemplateRequest{
		Project: project, RequestId: gcp.NewRequestIDPtr(),
		InstanceTemplateResource: &computepb.InstanceTemplate{
			Name: proto.String(name), Description: proto.String("hypercompute node partition: every node is created from this template"),
			Properties: p,
		},
	})
	if err == nil {
		_, err = cl.WaitCompute(ctx, op)
	}
	if err != nil && !gcp.IsAlreadyExists(err) {
		return fmt.Errorf("creating instance template %s: %w", name, gcp.Classify(err))
	}
	return nil
}

// ensurePlacementPolicy creates the partition's compact placement policy unless it exists.
func ensurePlacementPolicy(ctx context.Context, cl *gcp.Clients, d *desired) (string, error) {
	name := placementPolicyName(d.prefix)
	link := fmt.Sprintf("%sprojects/%s/regions/%s/resourcePolicies/%s", computeV1, d.project, d.region, name)
	op, err := cl.ResourcePolicies.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: d.project, Region: d.region, RequestId: gcp.NewRequestIDPtr(),
		ResourcePolicyResource: &computepb.ResourcePolicy{
			Name:                 proto.String(name),
			Description:          proto.String("hypercompute node partition " + d.name + ": compact placement"),
			GroupPlacementPolicy: &computepb.ResourcePolicyGroupPlacementPolicy{Collocation: proto.String("COLLOCATED")},
		},
	})
	if err == nil {
		_, err = cl.WaitCompute(ctx, op)
	}
	if err != nil && !gcp.IsAlreadyExists(err) {
		return "", fmt.Errorf("creating placement policy %s: %w", name, gcp.Classify(err))
	}
	return link, nil
}

const computeV1 = "https://www.googleapis.com/compute/v1/"

// pruneTemplates deletes the partition's templates other than keep (templates are immutable, so
// every change made a new one). VMs created from a deleted template are not affected.
func (a *applier) pruneTemplates(ctx context.Context, keep string) error {
	names, err := listTemplates(ctx, a.cl, a.d.project, a.d.prefix)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if n == keep {
			continue
		}
		if err := deleteTemplate(ctx, a.cl, a.d.project, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func listTemplates(ctx context.Context, cl *gcp.Clients, project, prefix string) ([]string, error) {
	it := cl.InstanceTemplates.List(ctx, &computepb.ListInstanceTemplatesRequest{Project: project, Filter: proto.String(templateFilter(prefix))})
	var out []string
	for {
		t, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing instance templates: %w", gcp.Classify(err))
		}
		out = append(out, t.GetName())
	}
}

func deleteTemplate(ctx context.Context, cl *gcp.Clients, project, name string) error {
	op, err := cl.InstanceTemplates.Delete(ctx, &computepb.DeleteInstanceTemplateRequest{Project: project, InstanceTemplate: name, RequestId: gcp.NewRequestIDPtr()})
	if err == nil {
		_, err = cl.WaitCompute(ctx, op)
	}
	if err = gcp.IgnoreNotFound(err); err != nil {
		return fmt.Errorf("deleting instance template %s: %w", name, err)
	}
	return nil
}
