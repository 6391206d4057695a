package tfutil

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// maxMetadataAttempts bounds the writes of a VM's metadata that lose a race (412): the cluster,
// every partition and every job write keys of their own on the controller at the same time.
const maxMetadataAttempts = 20

// MetadataMap is a VM's metadata items by key.
func MetadataMap(md *computepb.Metadata) map[string]string {
	out := map[string]string{}
	for _, it := range md.GetItems() {
		out[it.GetKey()] = it.GetValue()
	}
	return out
}

// MetadataItems is items as Compute takes them, sorted by key so equal maps make equal requests.
func MetadataItems(items map[string]string) []*computepb.Items {
	keys := slices.Sorted(maps.Keys(items))
	out := make([]*computepb.Items, 0, len(keys))
	for _, k := range keys {
		out = append(out, &computepb.Items{Key: proto.String(k), Value: proto.String(items[k])})
	}
	return out
}

// EditMetadata applies edit to a VM's current metadata and writes the result with the
// fingerprint it read. Others write the same VM's metadata at the same time (every partition and
// job has its key on the controller), and then Compute answers 412: the edit is redone on a fresh
// read and written with a new requestId (the same one would replay the failed call). cur is the
// VM as last read, or nil. It returns the VM as the write left it; no write is made when edit
// changes nothing.
func EditMetadata(ctx context.Context, cl *gcp.Clients, vm VM, cur *computepb.Instance, edit func(map[string]string)) (*computepb.Instance, error) {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		if cur == nil {
			inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: vm.Project, Zone: vm.Zone, Instance: vm.Name})
			if err != nil {
				return nil, fmt.Errorf("reading VM %s: %w", vm.Name, gcp.Classify(err))
			}
			cur = inst
		}
		have := MetadataMap(cur.GetMetadata())
		want := maps.Clone(have)
		edit(want)
		if maps.Equal(have, want) {
			return cur, nil
		}
		if err := cc.CheckMetadataSize(want); err != nil {
			return nil, fmt.Errorf("the metadata of VM %s would exceed Compute's limits: %w", vm.Name, err)
		}
		op, err := cl.Instances.SetMetadata(ctx, &computepb.SetMetadataInstanceRequest{
			Project: vm.Project, Zone: vm.Zone, Instance: vm.Name, RequestId: gcp.NewRequestIDPtr(),
			MetadataResource: &computepb.Metadata{Fingerprint: cur.GetMetadata().Fingerprint, Items: MetadataItems(want)},
		})
		if err == nil {
			_, err = cl.WaitCompute(ctx, op)
		} else {
			err = gcp.Classify(err)
		}
		if err == nil {
			inst, err := cl.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: vm.Project, Zone: vm.Zone, Instance: vm.Name})
			if err != nil {
				return nil, fmt.Errorf("reading VM %s after updating its metadata: %w", vm.Name, gcp.Classify(err))
			}
			return inst, nil
		}
		cur = nil
		if !gcp.IsPreconditionFailed(err) || attempt >= maxMetadataAttempts {
			return nil, fmt.Errorf("updating the metadata of VM %s: %w", vm.Name, err)
		}
		if err := Sleep(ctx, delay); err != nil {
			return nil, err
		}
		delay = min(delay*2, 2*time.Second)
	}
}

// SetMetadataKey writes one key of a VM's metadata (value != nil) or removes it, as EditMetadata.
// It is how a resource that owns one key of the controller's metadata (a partition's
// hypercompute-partition-<name>, a job's hypercompute-job-<name>) writes it.
func SetMetadataKey(ctx context.Context, cl *gcp.Clients, vm VM, cur *computepb.Instance, key string, value *string) (*computepb.Instance, error) {
	return EditMetadata(ctx, cl, vm, cur, func(md map[string]string) {
		if value == nil {
			delete(md, key)
		} else {
			md[key] = *value
		}
	})
}
