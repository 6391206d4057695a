package filestore

import (
	"context"

	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// find reads the instance; a missing one is a *tfutil.NotFoundError.
func (r *filestoreResource) find(ctx context.Context, name string) (*filestorepb.Instance, error) {
	inst, err := r.Provider.Clients.Filestore.GetInstance(ctx, &filestorepb.GetInstanceRequest{Name: name})
	return tfutil.Lookup("Filestore instance", name, inst, err)
}
