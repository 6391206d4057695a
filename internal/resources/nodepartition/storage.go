package nodepartition

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// A node set's choice of the cluster's storage: the mount paths of the cluster's `storage` and
// `buckets` its nodes mount (cc.Partition.Storage, applied by cc.NewNode). Empty is all of them,
// as before the choice existed; an empty list cannot mean "none" because an optional list reads
// back empty whether or not it was set (tfutil/collections.go).

func storageAttribute() schema.ListAttribute {
	return tfutil.OptionalList(schema.ListAttribute{
		ElementType: types.StringType,
		MarkdownDescription: "Which of the cluster's extra storage (`storage`) and buckets (`buckets`) this node set's nodes mount, by `mount_path`. " +
			"Empty (the default): all of them. `/home` and the cluster's `lustre` are mounted on every node either way. " +
			"A path that is not one of the cluster's is refused at plan when the cluster exists (else at apply, before anything is created). " +
			"A change is a new node configuration: the static nodes are replaced by the rolling update, dynamic ones take it when next created.",
		Validators: []validator.List{listvalidator.UniqueValues(), listvalidator.SizeAtMost(32)},
	})
}

func storageOf(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// storageError is the error of a choice the cluster's mounts refuse, naming storage[i].
func storageError(m cc.Mounts, paths []string) error {
	if i, err := m.CheckStorageChoice(paths); err != nil {
		return fmt.Errorf("storage[%d]: %w", i, err)
	}
	return nil
}

// planStorage refuses at plan a choice the cluster's configuration does not offer, reading it from
// the controller (one read, paid only by a node set that chooses and is created or changed). A
// cluster not created yet is checked at apply, before anything is created.
func (r *partitionResource) planStorage(ctx context.Context, plan *model, ref *cc.ClusterID, changing bool, diags *diag.Diagnostics) {
	if ref == nil || !changing || r.Provider == nil || r.Provider.Clients == nil || plan.Storage.IsUnknown() {
		return
	}
	for _, e := range plan.Storage.Elements() {
		if e.IsUnknown() {
			return
		}
	}
	paths := storageOf(ctx, plan.Storage, diags)
	if len(paths) == 0 {
		return
	}
	ci, err := readCluster(ctx, r.Provider.Clients, *ref)
	switch {
	case errors.Is(err, tfutil.ErrNoController):
	case err != nil:
		diags.AddAttributeError(pathOf("storage"), "Unable to read the cluster", "storage: "+err.Error())
	default:
		if err := storageError(ci.cfg.Mounts, paths); err != nil {
			diags.AddAttributeError(pathOf("storage"), "Invalid storage", err.Error())
		}
	}
}

// flattenStorage reads the choice back from the partition's key.
func flattenStorage(p *cc.Partition) types.List {
	vals := make([]string, 0, len(p.Storage))
	vals = append(vals, p.Storage...)
	l, _ := types.ListValueFrom(context.Background(), types.StringType, vals)
	return l
}
