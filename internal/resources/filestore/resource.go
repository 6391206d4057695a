// Package filestore implements hypercompute_filestore: the Filestore instance that holds a training
// cluster's /home.
package filestore

import (
	"context"
	"fmt"
	"maps"
	"time"

	"cloud.google.com/go/filestore/apiv1/filestorepb"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Real Filestore creation takes many minutes (Enterprise and Regional longer still).
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 60 * time.Minute
)

type filestoreResource struct {
	tfutil.Base
}

var _ tfutil.PlannedResource = (*filestoreResource)(nil)

// what names the resource in messages: "Filestore instance <name>".
const what = "Filestore instance"

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &filestoreResource{Base: tfutil.Base{TypeSuffix: "_filestore"}}
}

// crud is the resource's Create, Read, Update and Delete: the storage lifecycle it shares with
// Managed Lustre, over Filestore's calls.
func (r *filestoreResource) crud() tfutil.StorageResource[model, *desired, *filestorepb.Instance] {
	return tfutil.StorageResource[model, *desired, *filestorepb.Instance]{
		Storage: r.storage(), Fields: (*model).storageFields, ToDesired: toDesired, Names: (*desired).names,
		Insert: r.create, Patch: r.patch, Remove: r.remove, Flatten: r.flatten,
		CreateTimeout: defaultCreateTimeout, UpdateTimeout: defaultUpdateTimeout, DeleteTimeout: defaultDeleteTimeout,
	}
}

func (r *filestoreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.crud().Create(ctx, req, resp)
}

func (r *filestoreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.crud().Read(ctx, req, resp)
}

func (r *filestoreResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.crud().Update(ctx, req, resp)
}

func (r *filestoreResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.crud().Delete(ctx, req, resp)
}

// create starts the create and waits for it. The REST client sends no request ID, so when the
// transport resends a create whose first answer was lost the API says ALREADY_EXISTS: the instance
// is then this request's own, and is adopted when it is exactly what the plan asks for. The insert
// carries the creation marker (see tfutil/label_ownership.go), so that only this resource's own
// unfinished create is adopted.
func (r *filestoreResource) create(ctx context.Context, d *desired) (*filestorepb.Instance, error) {
	c := r.Provider.Clients
	in := proto.Clone(d.inst).(*filestorepb.Instance)
	in.Labels = tfutil.WithCreateMarker(d.inst.Labels)
	op, err := c.Filestore.CreateInstance(ctx, &filestorepb.CreateInstanceRequest{Parent: d.parent(), InstanceId: d.name, Instance: in})
	return r.storage().Create(ctx, d.fullName(), err, func() (*filestorepb.Instance, error) {
		return c.WaitFilestoreInstance(ctx, op.Name())
	}, d.mismatch)
}

// storage is the lifecycle Filestore shares with Managed Lustre.
func (r *filestoreResource) storage() tfutil.Storage[*filestorepb.Instance] {
	return tfutil.Storage[*filestorepb.Instance]{
		What: what, Type: "hypercompute_filestore", Find: r.find,
		Labels: (*filestorepb.Instance).GetLabels,
		Ready: func(got *filestorepb.Instance) (bool, error) {
			switch got.GetState() {
			case filestorepb.Instance_READY:
				return true, nil
			case filestorepb.Instance_ERROR:
				return false, fmt.Errorf("%s %s is in state ERROR: %s", what, got.GetName(), got.GetStatusMessage())
			}
			return false, nil
		},
		Deleting: func(cur *filestorepb.Instance) bool { return cur.GetState() == filestorepb.Instance_DELETING },
	}
}

// patch applies in place what differs: capacity, labels, description, deletion protection.
func (r *filestoreResource) patch(ctx context.Context, name string, cur *filestorepb.Instance, want *desired) (*filestorepb.Instance, []string, error) {
	mask := updateMask(cur, want.inst)
	if len(mask) == 0 {
		return cur, nil, nil
	}
	patch := &filestorepb.Instance{
		Name: name, Description: want.inst.Description, Labels: want.inst.Labels,
		FileShares:                []*filestorepb.FileShareConfig{{Name: cur.GetFileShares()[0].GetName(), CapacityGb: want.inst.FileShares[0].CapacityGb}},
		DeletionProtectionEnabled: want.inst.DeletionProtectionEnabled,
		DeletionProtectionReason:  want.inst.DeletionProtectionReason,
	}
	op, err := r.Provider.Clients.Filestore.UpdateInstance(ctx, &filestorepb.UpdateInstanceRequest{Instance: patch, UpdateMask: &fieldmaskpb.FieldMask{Paths: mask}})
	if err != nil {
		return nil, mask, err
	}
	inst, err := r.Provider.Clients.WaitFilestoreInstance(ctx, op.Name())
	return inst, mask, err
}

// updateMask lists the fields that differ between the instance and what is wanted, in the API's
// update_mask paths; everything else about an instance is immutable (and refused at plan time).
func updateMask(cur, want *filestorepb.Instance) []string {
	var mask []string
	if cur.GetDescription() != want.GetDescription() {
		mask = append(mask, "description")
	}
	if !maps.Equal(cur.GetLabels(), want.GetLabels()) {
		mask = append(mask, "labels")
	}
	if len(cur.GetFileShares()) == 1 && cur.GetFileShares()[0].GetCapacityGb() != want.FileShares[0].GetCapacityGb() {
		mask = append(mask, "file_shares")
	}
	if cur.GetDeletionProtectionEnabled() != want.GetDeletionProtectionEnabled() {
		mask = append(mask, "deletion_protection_enabled")
	}
	if cur.GetDeletionProtectionReason() != want.GetDeletionProtectionReason() {
		mask = append(mask, "deletion_protection_reason")
	}
	return mask
}

func (r *filestoreResource) remove(ctx context.Context, name string) error {
	op, err := r.Provider.Clients.Filestore.DeleteInstance(ctx, &filestorepb.DeleteInstanceRequest{Name: name})
	if err != nil {
		return err
	}
	return r.Provider.Clients.WaitFilestoreOp(ctx, op.Name(), nil)
}

// ImportState accepts projects/{project}/locations/{location}/instances/{name},
// {project}/{location}/{name} or {location}/{name} (in the provider's project).
func (r *filestoreResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var project string
	if r.Provider != nil {
		project = r.Provider.Project
	}
	tfutil.ImportInstance(ctx, req, resp, project, "location", catalog.ValidateResourceName)
}
