package bulk

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
)

// ListLabelled calls fn for every VM in project/zone whose label has value, page by page (one list call per
// 500 VMs, never one GET per VM). The error is the list call's, classified.
func ListLabelled(ctx context.Context, cl *gcp.Clients, project, zone, label, value string, fn func(*computepb.Instance)) error {
	it := cl.Instances.List(ctx, &computepb.ListInstancesRequest{
		Project: project, Zone: zone, MaxResults: proto.Uint32(pageSize),
		Filter: proto.String(fmt.Sprintf("labels.%s = %q", label, value)),
	})
	for {
		inst, err := it.Next()
		if err == iterator.Done {
			return nil
		}
		if err != nil {
			return gcp.Classify(err)
		}
		fn(inst)
	}
}
