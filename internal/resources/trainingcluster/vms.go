package trainingcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// applier reconciles the cluster's VMs towards one desired cluster.
type applier struct {
	c *gcp.Clients
	d *desired
	// creating: this apply is a create, which may only finish its own unfinished create
	// (ownership.go).
	creating bool
	// oldLoginZones are zones login VMs may still be in: the prior state's and the controller's
	// cluster config's login and pool zones.
	oldLoginZones []string
}

func (a *applier) wait(ctx context.Context, op *compute.Operation, err error) error {
	return tfutil.ComputeDone(ctx, a.c, op, err)
}

// metadata renders the payload of a VM (clusterconfig.VMMetadata).
func (a *applier) metadata(cluster clusterconfig.Cluster, role clusterconfig.Role) (map[string]string, error) {
	return clusterconfig.VMMetadata(cluster, role, nil, a.d.osLogin)
}

// instance is the Compute instance of one of the cluster's VMs.
func (a *applier) instance(name string, role clusterconfig.Role, shape clusterconfig.VMShape, items map[string]string) *computepb.Instance {
	s := a.d
	nic := &computepb.NetworkInterface{Network: proto.String(s.network), Subnetwork: proto.String(s.subnet)}
	if s.publicIPs {
		nic.AccessConfigs = []*computepb.AccessConfig{{Name: proto.String("External NAT"), Type: proto.String("ONE_TO_ONE_NAT")}}
	}
	inst := &computepb.Instance{
		Name:        proto.String(name),
		MachineType: proto.String(fmt.Sprintf("zones/%s/machineTypes/%s", s.zone, shape.MachineType)),
		Disks: []*computepb.AttachedDisk{{
			Boot: proto.Bool(true), AutoDelete: proto.Bool(true), Type: proto.String("PERSISTENT"),
			InitializeParams: &computepb.AttachedDiskInitializeParams{
				SourceImage: proto.String(shape.Image),
				DiskSizeGb:  proto.Int64(int64(shape.DiskSizeGB)),
				DiskType:    proto.String(fmt.Sprintf("zones/%s/diskTypes/%s", s.zone, shape.DiskType)),
			},
		}},
		NetworkInterfaces: []*computepb.NetworkInterface{nic},
		Metadata:          &computepb.Metadata{Items: tfutil.MetadataItems(items)},
		Labels:            a.labels(role),
		ServiceAccounts:   []*computepb.ServiceAccount{s.serviceAccountOf(role)},
		Scheduling: &computepb.Scheduling{
			OnHostMaintenance: proto.String("MIGRATE"), AutomaticRestart: proto.Bool(true),
		},
		Description: proto.String(fmt.Sprintf("%s of Slurm cluster %s (hypercompute)", role, s.name)),
	}
	if s.shielded {
		inst.ShieldedInstanceConfig = &computepb.ShieldedInstanceConfig{
			EnableSecureBoot: proto.Bool(true), EnableVtpm: proto.Bool(true), EnableIntegrityMonitoring: proto.Bool(true),
		}
	}
	return inst
}

// loginInstance is a login VM of a group: its shape in its zone, with its labels and public IP.
// The rest is instance()'s, so both roles stay alike.
func (a *applier) loginInstance(g loginGroup, name string, items map[string]string) *computepb.Instance {
	inst := a.instance(name, clusterconfig.RoleLogin, g.shape, items)
	inst.MachineType = proto.String(fmt.Sprintf("zones/%s/machineTypes/%s", g.zone, g.shape.MachineType))
	inst.Disks[0].InitializeParams.DiskType = proto.String(fmt.Sprintf("zones/%s/diskTypes/%s", g.zone, g.shape.DiskType))
	inst.Labels = a.groupLabels(g)
	inst.NetworkInterfaces[0].AccessConfigs = nil
	if g.publicIP {
		inst.NetworkInterfaces[0].AccessConfigs = []*computepb.AccessConfig{{Name: proto.String("External NAT"), Type: proto.String("ONE_TO_ONE_NAT")}}
	}
	return inst
}

// setPublicIP gives a login VM an external IP or takes it away, in place (add/deleteAccessConfig on
// its one network interface).
func (a *applier) setPublicIP(ctx context.Context, inst *computepb.Instance, want bool) error {
	name, nic := inst.GetName(), inst.GetNetworkInterfaces()[0]
	if want {
		op, err := a.c.Instances.AddAccessConfig(ctx, &computepb.AddAccessConfigInstanceRequest{
			Project: a.d.project, Zone: a.zoneOf(name), Instance: name, NetworkInterface: nic.GetName(), RequestId: gcp.NewRequestIDPtr(),
			AccessConfigResource: &computepb.AccessConfig{Name: proto.String("External NAT"), Type: proto.String("ONE_TO_ONE_NAT")},
		})
		if err := a.wait(ctx, op, err); err != nil {
			return fmt.Errorf("adding a public IP to VM %s: %w", name, err)
		}
		return nil
	}
	for _, ac := range nic.GetAccessConfigs() {
		op, err := a.c.Instances.DeleteAccessConfig(ctx, &computepb.DeleteAccessConfigInstanceRequest{
			Project: a.d.project, Zone: a.zoneOf(name), Instance: name, NetworkInterface: nic.GetName(), AccessConfig: ac.GetName(),
			RequestId: gcp.NewRequestIDPtr(),
		})
		if err := a.wait(ctx, op, err); err != nil {
			return fmt.Errorf("removing the public IP of VM %s: %w", name, err)
		}
	}
	return nil
}

// hasPublicIP reports whether a VM has an external IP (an access config).
func hasPublicIP(inst *computepb.Instance) bool {
	nics := inst.GetNetworkInterfaces()
	return len(nics) > 0 && len(nics[0].GetAccessConfigs()) > 0
}

func metadataMap(md *computepb.Metadata) map[string]string { return tfutil.MetadataMap(md) }

func (a *applier) vm(name string) tfutil.VM {
	return tfutil.VM{Project: a.d.project, Zone: a.zoneOf(name), Name: name}
}

// owned reports whether a VM is one of this cluster's: an existing VM of the same name that is not
// is never adopted, changed or deleted.
func (a *applier) owned(inst *computepb.Instance) bool {
	return inst.GetLabels()[labelCluster] == a.d.name
}

func (a *applier) notOurs(inst *computepb.Instance) error {
	return fmt.Errorf("a VM named %s already exists in %s and does not belong to cluster %s (its label %s is %q); delete or rename it, or choose another cluster name",
		inst.GetName(), a.zoneOf(inst.GetName()), a.d.name, labelCluster, inst.GetLabels()[labelCluster])
}

// create inserts a VM with a requestId, so a transport retry never creates it twice. A VM that
// already exists and carries this cluster's label was made by an earlier, interrupted apply: it is
// adopted and brought to the desired payload — in a create, the controller only while it carries
// the creation marker (ownership.go).
func (a *applier) create(ctx context.Context, inst *computepb.Instance) (*computepb.Instance, error) {
	op, err := a.c.Instances.Insert(ctx, &computepb.InsertInstanceRequest{
		Project: a.d.project, Zone: a.zoneOf(inst.GetName()), InstanceResource: inst, RequestId: gcp.NewRequestIDPtr(),
	})
	err = a.wait(ctx, op, err)
	if err != nil && !gcp.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating VM %s: %w", inst.GetName(), err)
	}
	got, gerr := a.findVM(ctx, inst.GetName())
	if gerr != nil {
		return nil, fmt.Errorf("reading VM %s after creating it: %w", inst.GetName(), gerr)
	}
	if !a.owned(got) {
		return nil, a.notOurs(got)
	}
	if err != nil && a.creating && got.GetName() == a.d.controllerName() {
		// Absent when apply looked, and made by someone else since: another state's create
		// racing this one, or an unfinished create of its own that this create may finish.
		if aerr := a.adoptable(got); aerr != nil {
			return nil, aerr
		}
	}
	if err != nil { // adopted: make sure it carries this apply's payload
		return a.update(ctx, got, metadataMap(inst.GetMetadata()), inst.GetLabels())
	}
	return got, nil
}

// update brings an existing VM's metadata items and labels to want. Items the provider does not
// own (partitions' and health policies' keys on the controller, keys added by hand) are kept.
func (a *applier) update(ctx context.Context, inst *computepb.Instance, items, labels map[string]string) (*computepb.Instance, error) {
	name := inst.GetName()
	if _, err := tfutil.EditMetadata(ctx, a.c, a.vm(name), inst, func(cur map[string]string) { maps.Copy(cur, items) }); err != nil {
		return nil, err
	}
	if !maps.Equal(inst.GetLabels(), labels) {
		if err := a.setLabels(ctx, name, labels); err != nil {
			return nil, err
		}
	}
	return a.findVM(ctx, name)
}

// maxLabelRetries bounds the retries of a setLabels that lost a race (412).
const maxLabelRetries = 8

func (a *applier) setLabels(ctx context.Context, vm string, labels map[string]string) error {
	for attempt := 0; ; attempt++ {
		cur, err := a.findVM(ctx, vm)
		if err != nil {
			return fmt.Errorf("reading VM %s: %w", vm, err)
		}
		op, err := a.c.Instances.SetLabels(ctx, &computepb.SetLabelsInstanceRequest{
			Project: a.d.project, Zone: a.zoneOf(vm), Instance: vm, RequestId: gcp.NewRequestIDPtr(),
			InstancesSetLabelsRequestResource: &computepb.InstancesSetLabelsRequest{LabelFingerprint: cur.LabelFingerprint, Labels: labels},
		})
		err = a.wait(ctx, op, err)
		if err == nil || !gcp.IsPreconditionFailed(err) || attempt >= maxLabelRetries {
			if err != nil {
				return fmt.Errorf("updating the labels of VM %s: %w", vm, err)
			}
			return nil
		}
	}
}

// remove deletes a VM of the cluster in its zone; one already gone is fine.
func (a *applier) remove(ctx context.Context, vm string) error {
	return a.removeIn(ctx, a.zoneOf(vm), vm)
}

// removeIn deletes a VM in a given zone: a login VM found in a zone it is no longer wanted in.
func (a *applier) removeIn(ctx context.Context, zone, vm string) error {
	op, err := a.c.Instances.Delete(ctx, &computepb.DeleteInstanceRequest{Project: a.d.project, Zone: zone, Instance: vm, RequestId: gcp.NewRequestIDPtr()})
	if err = gcp.IgnoreNotFound(a.wait(ctx, op, err)); err != nil {
		return fmt.Errorf("deleting VM %s in %s: %w", vm, zone, err)
	}
	return nil
}

// zoneOf is the zone a VM of the cluster is wanted in: login VMs have their group's.
func (a *applier) zoneOf(vm string) string {
	if pool, _, ok := clusterconfig.ParseLoginName(a.d.name, vm); ok {
		if g, ok := a.d.group(pool); ok && g.zone != "" {
			return g.zone
		}
	}
	return a.d.zone
}

// loginKey names a login VM by its group and index.
type loginKey struct {
	pool string
	i    int
}

// loginZones are the zones login VMs are looked for in: the cluster's, the wanted login zone and
// the ones an earlier apply may have left them in (the prior state's).
func (a *applier) loginZones() []string {
	zones := []string{a.d.zone}
	wanted := []string{a.d.loginZone}
	for _, g := range a.d.pools {
		wanted = append(wanted, g.zone)
	}
	for _, z := range append(wanted, a.oldLoginZones...) {
		if z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	return zones
}

// logins lists the cluster's login VMs by group and index, preferring the one in the wanted zone.
// VMs named like login VMs but beyond MaxLoginNodes, or without the cluster's label, are not the
// cluster's.
func (a *applier) logins(ctx context.Context) (map[loginKey]*computepb.Instance, error) {
	all, err := a.allLogins(ctx)
	if err != nil {
		return nil, err
	}
	out := map[loginKey]*computepb.Instance{}
	for _, inst := range all {
		pool, i, _ := clusterconfig.ParseLoginName(a.d.name, inst.GetName())
		k := loginKey{pool, i}
		if cur, dup := out[k]; !dup || lastSegment(cur.GetZone()) != a.zoneOf(cur.GetName()) {
			out[k] = inst
		}
	}
	return out, nil
}

// ownLogins are the login block's VMs by index.
func ownLogins(m map[loginKey]*computepb.Instance) map[int]*computepb.Instance {
	out := map[int]*computepb.Instance{}
	for k, inst := range m {
		if k.pool == "" {
			out[k.i] = inst
		}
	}
	return out
}

// sortedLogins orders login VMs: the login block's, then each pool's in order (pools not in order
// last, by name), each by index.
func sortedLogins(m map[loginKey]*computepb.Instance, order []string) []*computepb.Instance {
	rank := func(pool string) int {
		if pool == "" {
			return -1
		}
		if j := slices.Index(order, pool); j >= 0 {
			return j
		}
		return len(order)
	}
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(x, y loginKey) int {
		if rx, ry := rank(x.pool), rank(y.pool); rx != ry {
			return rx - ry
		}
		if x.pool != y.pool {
			return strings.Compare(x.pool, y.pool)
		}
		return x.i - y.i
	})
	out := make([]*computepb.Instance, len(keys))
	for j, k := range keys {
		out[j] = m[k]
	}
	return out
}

// allLogins lists every login VM of the cluster in every zone of loginZones, the same index
// possibly twice (a zone move an apply did not finish).
func (a *applier) allLogins(ctx context.Context) ([]*computepb.Instance, error) {
	var out []*computepb.Instance
	for _, zone := range a.loginZones() {
		it := a.c.Instances.List(ctx, &computepb.ListInstancesRequest{
			Project: a.d.project, Zone: zone,
			Filter: proto.String(fmt.Sprintf("(labels.%s = %q) AND (labels.%s = %q)", labelCluster, a.d.name, labelRole, clusterconfig.RoleLogin)),
		})
		for {
			inst, err := it.Next()
			if errors.Is(err, iterator.Done) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("listing the login VMs of cluster %s in %s: %w", a.d.name, zone, gcp.Classify(err))
			}
			if _, _, ok := clusterconfig.ParseLoginName(a.d.name, inst.GetName()); ok && a.owned(inst) {
				out = append(out, inst)
			}
		}
	}
	return out, nil
}

func internalIP(inst *computepb.Instance) string {
	if nics := inst.GetNetworkInterfaces(); len(nics) > 0 {
		return nics[0].GetNetworkIP()
	}
	return ""
}

func lastSegment(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// serviceAccountOf is the identity role's VMs run as.
func (s *desired) serviceAccountOf(role clusterconfig.Role) *computepb.ServiceAccount {
	id := (&clusterconfig.Cloud{ServiceAccount: s.serviceAccount, Scopes: s.scopes, Identities: s.identities}).Identity(role)
	return &computepb.ServiceAccount{Email: proto.String(id.Email), Scopes: slices.Clone(id.Scopes)}
}
