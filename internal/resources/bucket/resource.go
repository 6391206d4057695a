// Package bucket implements hypercompute_bucket: a Cloud Storage bucket for datasets and checkpoints, with the
// AI/ML defaults its purpose sets.
package bucket

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// Bucket calls are synchronous; deleting a bucket's objects one by one is what can take long.
const (
	defaultCreateTimeout = 5 * time.Minute
	defaultUpdateTimeout = 5 * time.Minute
	defaultDeleteTimeout = 30 * time.Minute
)

// what names the resource in messages: "Cloud Storage bucket <name>".
const what = "Cloud Storage bucket"

type bucketResource struct {
	tfutil.Base
}

var _ tfutil.PlannedResource = (*bucketResource)(nil)

// NewResource is registered by the provider.
func NewResource() resource.Resource {
	return &bucketResource{Base: tfutil.Base{TypeSuffix: "_bucket"}}
}

func (r *bucketResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel, plan, ok := tfutil.Begin[model](ctx, req.Plan, tfutil.Create, defaultCreateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	want, diags := toDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, project := plan.Name.ValueString(), want.project
	svc, err := r.Provider.Clients.Storage(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Unable to create "+what+" "+name, err.Error())
		return
	}
	// The insert carries the creation marker (tfutil/label_ownership.go): until it is removed
	// below, a retry of this create may adopt the bucket, and no other create may.
	in := *want.bucket
	in.Labels = tfutil.WithCreateMarker(want.bucket.Labels)
	b, err := svc.Buckets.Insert(project, &in).Context(ctx).Do()
	if err != nil {
		b, err = r.adopt(ctx, err, want)
	}
	if err == nil && tfutil.HasCreateMarker(b.Labels) {
		// The bucket exists and was read back: the create is done, and it is no longer a half-made
		// create that a retry may adopt. want has no marker, so the patch removes it.
		if b, _, err = r.patch(ctx, b, want); err != nil {
			// Nothing is recorded: a recorded failed create is tainted, and replacing a bucket would
			// delete its data. The marker is still there, so the next apply adopts the bucket.
			err = fmt.Errorf("the bucket was created; removing its %s label failed (apply again to finish): %w", tfutil.CreateMarkerLabel, err)
		}
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to create "+what+" "+name, err.Error())
		return
	}
	resp.Diagnostics.Append(r.flatten(ctx, b, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// adopt finishes an insert that answered 409. Bucket names are global: the bucket is this apply's own only
// when it is in the project and still carries the creation marker — an earlier try whose answer was lost,
// or an earlier apply that stopped before its create finished — and matches the plan. A bucket of the
// project without the marker is refused untouched: it may be another Terraform state's.
func (r *bucketResource) adopt(ctx context.Context, insertErr error, want *desired) (*storage.Bucket, error) {
	err := gcp.Classify(insertErr)
	if !gcp.IsConflict(err) {
		return nil, err
	}
	name, project := want.bucket.Name, want.project
	got, gerr := r.find(ctx, name)
	if gerr != nil {
		return nil, fmt.Errorf("the bucket name %s is taken (%w); choose another: bucket names are unique across all of Cloud Storage", name, err)
	}
	if mine, perr := r.projectOwns(ctx, got, project); perr != nil || !mine {
		return nil, fmt.Errorf("the bucket name %s is taken by another project; choose another: bucket names are unique across all of Cloud Storage", name)
	}
	if !tfutil.HasCreateMarker(got.Labels) {
		return nil, tfutil.NotOurs(what, name, "hypercompute_bucket", project+"/"+name)
	}
	if attr := want.mismatch(got); attr != "" {
		return nil, fmt.Errorf("%s %s already exists in project %s and differs from this configuration in %s; "+
			"import it (terraform import <address> %s/%s) or choose another name", what, name, project, attr, project, name)
	}
	return got, nil
}

func (r *bucketResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := tfutil.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	b, err := r.find(ctx, state.ID.ValueString())
	if !tfutil.Found(ctx, err, what+" "+state.ID.ValueString(), resp) {
		return
	}
	resp.Diagnostics.Append(r.flatten(ctx, b, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(tfutil.ReadNonNullCollections(ctx, &resp.State)...)
}

func (r *bucketResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, cancel, plan, state, ok := tfutil.BeginUpdate[model](ctx, req, defaultUpdateTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	want, diags := toDesired(ctx, &plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.ID.ValueString()
	cur, err := r.find(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Unable to read "+what+" "+name, err.Error())
		return
	}
	b, fields, err := r.patch(ctx, cur, want)
	if err != nil {
		resp.Diagnostics.AddError("Unable to update "+what+" "+name, fmt.Sprintf("updating %s: %v", strings.Join(fields, ", "), gcp.Classify(err)))
		return
	}
	resp.Diagnostics.Append(r.flatten(ctx, b, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// patch changes in place what differs between cur and want (a finished create's marker among it, as
// want never carries one) and returns the bucket after and the attributes it changed.
func (r *bucketResource) patch(ctx context.Context, cur *storage.Bucket, want *desired) (*storage.Bucket, []string, error) {
	p, fields := want.patch(cur)
	if len(fields) == 0 {
		return cur, nil, nil
	}
	name := cur.Name
	svc, err := r.Provider.Clients.Storage(ctx)
	if err != nil {
		return nil, fields, err
	}
	// The metageneration precondition makes a concurrent change fail instead of being overwritten.
	b, err := svc.Buckets.Patch(name, p).IfMetagenerationMatch(cur.Metageneration).Context(ctx).Do()
	if err != nil && gcp.IsPreconditionFailed(gcp.Classify(err)) {
		// A resent patch whose first answer was lost finds the metageneration moved on: the change is
		// done when the bucket now is what the plan asks for.
		if now, ferr := r.find(ctx, name); ferr == nil {
			if _, left := want.patch(now); len(left) == 0 {
				return now, fields, nil
			}
		}
	}
	if err != nil {
		return nil, fields, gcp.Classify(err)
	}
	return b, fields, nil
}

func (r *bucketResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := tfutil.Get[model](ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	name := state.ID.ValueString()
	if state.DeletionProtection.ValueBool() {
		tfutil.RefuseProtectedDelete(&resp.Diagnostics, what, name)
		return
	}
	ctx, cancel := tfutil.Deadline(ctx, state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	svc, err := r.Provider.Clients.Storage(ctx)
	if err == nil && state.ForceDestroy.ValueBool() {
		err = deleteObjects(ctx, svc, name)
	}
	if err == nil {
		err = gcp.IgnoreNotFound(gcp.Classify(svc.Buckets.Delete(name).Context(ctx).Do()))
	}
	if err != nil {
		msg := err.Error()
		if gcp.IsConflict(err) && !state.ForceDestroy.ValueBool() {
			msg += "; the bucket still holds objects and force_destroy is false. Delete them, or set force_destroy = true and apply, then destroy again"
		}
		resp.Diagnostics.AddError("Unable to delete "+what+" "+name, msg)
	}
}

// deleteObjects deletes every object of the bucket, noncurrent generations included.
func deleteObjects(ctx context.Context, svc *storage.Service, bucket string) error {
	return svc.Objects.List(bucket).Versions(true).Context(ctx).Pages(ctx, func(page *storage.Objects) error {
		for _, o := range page.Items {
			err := svc.Objects.Delete(bucket, o.Name).Generation(o.Generation).Context(ctx).Do()
			if err = gcp.IgnoreNotFound(gcp.Classify(err)); err != nil {
				return fmt.Errorf("deleting object %s: %w", o.Name, err)
			}
		}
		return nil
	})
}

// ImportState accepts NAME, PROJECT/NAME or projects/PROJECT/buckets/NAME; without a project the provider's
// is the bucket's.
func (r *bucketResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := req.ID
	var project string
	parts := strings.Split(id, "/")
	switch {
	case len(parts) == 1:
		if r.Provider != nil {
			project = r.Provider.Project
		}
	case len(parts) == 2:
		project, id = parts[0], parts[1]
	case len(parts) == 4 && parts[0] == "projects" && parts[2] == "buckets":
		project, id = parts[1], parts[3]
	default:
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("%q is not a bucket: use NAME, PROJECT/NAME or projects/PROJECT/buckets/NAME", req.ID))
		return
	}
	if err := catalog.ValidateBucketName(id); err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), id)...)
	if project != "" && project != "_" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("project"), project)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("labels"), types.MapNull(types.StringType))...)
}
