package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
	hcprovider "github.com/hypercompute/terraform-provider-hypercompute/internal/provider"
)

// Store kinds of the storage APIs.
const (
	KindFilestore = "file.instances"
	KindLustre    = "lustre.instances"
)

// FactoriesWith serves the provider with extra resources added, unless the provider already has a
// resource of the same type: a resource package's tests run before the provider registers it.
func FactoriesWith(extra ...func() resource.Resource) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"hypercompute": providerserver.NewProtocol6WithError(&withResources{Provider: hcprovider.New("test")(), extra: extra}),
	}
}

type withResources struct {
	provider.Provider
	extra []func() resource.Resource
}

func (p *withResources) Resources(ctx context.Context) []func() resource.Resource {
	have := p.Provider.Resources(ctx)
	names := map[string]bool{}
	for _, f := range have {
		names[typeName(ctx, f)] = true
	}
	for _, f := range p.extra {
		if !names[typeName(ctx, f)] {
			have = append(have, f)
		}
	}
	return have
}

func typeName(ctx context.Context, f func() resource.Resource) string {
	var resp resource.MetadataResponse
	f().Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "hypercompute"}, &resp)
	return resp.TypeName
}

// CheckStorageNothingLeft is a CheckDestroy for storage tests: no Filestore or Lustre instance and
// none of a network's parts is left.
func (e *Env) CheckStorageNothingLeft(s *terraform.State) error {
	inv := e.Inventory()
	var left []string
	for _, k := range []string{KindFilestore, KindLustre} {
		for _, n := range inv.Names(k) {
			left = append(left, k+"/"+n)
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("storage left after destroy: %s", strings.Join(left, ", "))
	}
	return e.CheckNothingLeft(s)
}

// FilestoreInstance reads an instance straight from the emulator's store, behind the provider's back.
func (e *Env) FilestoreInstance(name string) (*filestorepb.Instance, error) {
	for _, it := range e.Inventory().Kinds[KindFilestore] {
		if it.Name == name {
			var inst filestorepb.Instance
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(it.Resource, &inst); err != nil {
				return nil, err
			}
			return &inst, nil
		}
	}
	return nil, fmt.Errorf("Filestore instance %s does not exist", name)
}

// CheckFilestore asserts something about a Filestore instance as the emulator holds it.
func (e *Env) CheckFilestore(name string, check func(*filestorepb.Instance) error) func(*terraform.State) error {
	return func(*terraform.State) error {
		inst, err := e.FilestoreInstance(name)
		if err != nil {
			return err
		}
		if err := check(inst); err != nil {
			return fmt.Errorf("Filestore instance %s: %w", name, err)
		}
		return nil
	}
}

// LustreInstance reads a Managed Lustre instance straight from the emulator's store.
func (e *Env) LustreInstance(name string) (*lustre.Instance, error) {
	for _, it := range e.Inventory().Kinds[KindLustre] {
		if it.Name == name {
			var inst lustre.Instance
			if err := json.Unmarshal(it.Resource, &inst); err != nil {
				return nil, err
			}
			return &inst, nil
		}
	}
	return nil, fmt.Errorf("Lustre instance %s does not exist", name)
}

// CheckLustre asserts something about a Lustre instance as the emulator holds it.
func (e *Env) CheckLustre(name string, check func(*lustre.Instance) error) func(*terraform.State) error {
	return func(*terraform.State) error {
		inst, err := e.LustreInstance(name)
		if err != nil {
			return err
		}
		if err := check(inst); err != nil {
			return fmt.Errorf("Lustre instance %s: %w", name, err)
		}
		return nil
	}
}

// DeleteFilestoreOutOfBand deletes an instance through the API, the way a person with the console
// would, lifting its deletion protection first.
func (e *Env) DeleteFilestoreOutOfBand(ctx context.Context, location, name string) error {
	c := e.Clients()
	full := fmt.Sprintf("projects/%s/locations/%s/instances/%s", Project, location, name)
	op, err := c.Filestore.DeleteInstance(ctx, &filestorepb.DeleteInstanceRequest{Name: full})
	if gcp.IsPreconditionFailed(gcp.Classify(err)) {
		up, uerr := c.Filestore.UpdateInstance(ctx, &filestorepb.UpdateInstanceRequest{
			Instance:   &filestorepb.Instance{Name: full},
			UpdateMask: fieldMask("deletion_protection_enabled", "deletion_protection_reason"),
		})
		if uerr != nil {
			return gcp.Classify(uerr)
		}
		if _, uerr = c.WaitFilestoreInstance(ctx, up.Name()); uerr != nil {
			return uerr
		}
		op, err = c.Filestore.DeleteInstance(ctx, &filestorepb.DeleteInstanceRequest{Name: full})
	}
	if err != nil {
		return gcp.Classify(err)
	}
	return c.WaitFilestoreOp(ctx, op.Name(), nil)
}

// DeleteLustreOutOfBand deletes a Managed Lustre instance through the API.
func (e *Env) DeleteLustreOutOfBand(ctx context.Context, zone, name string) error {
	c := e.Clients()
	op, err := c.Lustre.DeleteInstance(ctx, fmt.Sprintf("projects/%s/locations/%s/instances/%s", Project, zone, name))
	if err != nil {
		return gcp.Classify(err)
	}
	_, err = c.WaitLustreOp(ctx, op)
	return err
}

// CheckNoWrites asserts that no mutating call to an API whose methods start with prefix (e.g.
// "file.") was made since the counters were last reset: a refused plan touched nothing.
func (e *Env) CheckNoWrites(prefix string) func(*terraform.State) error {
	return func(*terraform.State) error {
		var writes []string
		for m, c := range e.Calls().Methods {
			if strings.HasPrefix(m, prefix) && c.Mutating && c.Count > 0 {
				writes = append(writes, fmt.Sprintf("%s×%d", m, c.Count))
			}
		}
		if len(writes) > 0 {
			slices.Sort(writes)
			return fmt.Errorf("mutating calls were made: %s", strings.Join(writes, ", "))
		}
		return nil
	}
}

func fieldMask(paths ...string) *fieldmaskpb.FieldMask { return &fieldmaskpb.FieldMask{Paths: paths} }
