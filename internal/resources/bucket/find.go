package bucket

import (
	"context"
	"strconv"

	"cloud.google.com/go/compute/apiv1/computepb"
	storage "google.golang.org/api/storage/v1"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// find reads the bucket; a missing one is a *tfutil.NotFoundError.
func (r *bucketResource) find(ctx context.Context, name string) (*storage.Bucket, error) {
	svc, err := r.Provider.Clients.Storage(ctx)
	if err != nil {
		return nil, err
	}
	b, err := svc.Buckets.Get(name).Context(ctx).Do()
	return tfutil.Lookup(what, name, b, err)
}

// projectOwns reports whether the bucket belongs to project (buckets carry only the project number).
func (r *bucketResource) projectOwns(ctx context.Context, b *storage.Bucket, project string) (bool, error) {
	p, err := r.Provider.Clients.Projects.Get(ctx, projectRequest(project))
	if err != nil {
		return false, err
	}
	return strconv.FormatUint(p.GetId(), 10) == strconv.FormatUint(b.ProjectNumber, 10), nil
}

func projectRequest(project string) *computepb.GetProjectRequest {
	return &computepb.GetProjectRequest{Project: project}
}
