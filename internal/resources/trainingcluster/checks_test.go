package trainingcluster_test

import (
	"context"
	"fmt"
	"slices"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/instances"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// vm reads an instance straight from the emulator's store, behind the provider's back.
func vm(env *acctest.Env, name string) (*computepb.Instance, error) {
	for _, it := range env.Inventory().Kinds[instances.KindInstances] {
		if it.Name == name {
			var inst computepb.Instance
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(it.Resource, &inst); err != nil {
				return nil, err
			}
			return &inst, nil
		}
	}
	return nil, fmt.Errorf("VM %s does not exist", name)
}

func checkVM(env *acctest.Env, name string, check func(*computepb.Instance) error) func(*terraform.State) error {
	return func(*terraform.State) error {
		inst, err := vm(env, name)
		if err != nil {
			return err
		}
		if err := check(inst); err != nil {
			return fmt.Errorf("VM %s: %w", name, err)
		}
		return nil
	}
}

// checkVMs asserts exactly which VMs exist.
func checkVMs(env *acctest.Env, want ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		got := env.Inventory().Names(instances.KindInstances)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("VMs %v, want %v", got, want)
		}
		return nil
	}
}

func metadataOf(inst *computepb.Instance) map[string]string {
	out := map[string]string{}
	for _, it := range inst.GetMetadata().GetItems() {
		out[it.GetKey()] = it.GetValue()
	}
	return out
}

// deleteVM deletes a VM through the API, the way a person with the console would.
func deleteVM(env *acctest.Env, name string) error {
	c := env.Clients()
	ctx := context.Background()
	op, err := c.Instances.Delete(ctx, &computepb.DeleteInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: name})
	if err != nil {
		return gcp.Classify(err)
	}
	_, err = c.WaitCompute(ctx, op)
	return err
}

// setMetadataKey writes one metadata key on a VM the way another resource (a node partition) does.
func setMetadataKey(env *acctest.Env, name, key, value string) error {
	c := env.Clients()
	ctx := context.Background()
	inst, err := c.Instances.Get(ctx, &computepb.GetInstanceRequest{Project: acctest.Project, Zone: acctest.Zone, Instance: name})
	if err != nil {
		return gcp.Classify(err)
	}
	md := inst.GetMetadata()
	items := append([]*computepb.Items(nil), md.GetItems()...)
	items = append(items, &computepb.Items{Key: &key, Value: &value})
	op, err := c.Instances.SetMetadata(ctx, &computepb.SetMetadataInstanceRequest{
		Project: acctest.Project, Zone: acctest.Zone, Instance: name,
		MetadataResource: &computepb.Metadata{Fingerprint: md.Fingerprint, Items: items},
	})
	if err != nil {
		return gcp.Classify(err)
	}
	_, err = c.WaitCompute(ctx, op)
	return err
}
