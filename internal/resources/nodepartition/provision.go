package nodepartition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/bulk"
)

// vmFailure is one VM a bulkInsert could not create, from its per-VM insert operation.
type vmFailure = bulk.Failure

// provisionError is a bulkInsert that did not create every VM asked for.
type provisionError struct {
	zone, machineType string
	requested         int
	created           int // VMs the failed requests created and kept (allow_partial)
	rolledBack        int // VMs this apply created and deleted again (all-or-nothing)
	failures          []vmFailure
	cause             error
	partial           bool
}

func (e *provisionError) stockout() bool {
	return gcp.IsStockout(e.cause) || slices.ContainsFunc(e.failures, func(f vmFailure) bool {
		return strings.HasPrefix(f.Code, "ZONE_RESOURCE_POOL_EXHAUSTED")
	})
}

func (e *provisionError) Unwrap() error { return e.cause }

func (e *provisionError) Error() string {
	var b strings.Builder
	if e.stockout() {
		fmt.Fprintf(&b, "zone %s does not have enough capacity for %d more %s VMs (ZONE_RESOURCE_POOL_EXHAUSTED)", e.zone, e.requested, e.machineType)
	} else {
		fmt.Fprintf(&b, "creating %d %s VMs in %s failed", e.requested, e.machineType, e.zone)
	}
	switch {
	case e.partial:
		fmt.Fprintf(&b, ": %d of them were created and are kept (allow_partial)", e.created)
	case e.rolledBack > 0:
		fmt.Fprintf(&b, ": the request was all-or-nothing, so the %d VMs it had created were deleted again", e.rolledBack)
	default:
		b.WriteString(": the request was all-or-nothing, so none was kept")
	}
	if s := summarizeFailures(e.failures); s != "" {
		b.WriteString(". Per-VM errors: " + s)
	} else if e.cause != nil {
		b.WriteString(". " + e.cause.Error())
	}
	return b.String()
}

// summarizeFailures groups per-VM errors by code: "ZONE_RESOURCE_POOL_EXHAUSTED on 600 VMs
// (c-a3-[400-999]): The zone ...".
func summarizeFailures(fs []vmFailure) string {
	byCode := map[string][]vmFailure{}
	for _, f := range fs {
		byCode[f.Code] = append(byCode[f.Code], f)
	}
	codes := make([]string, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var parts []string
	for _, c := range codes {
		list := byCode[c]
		names := make([]string, len(list))
		for i, f := range list {
			names[i] = f.Name
		}
		parts = append(parts, fmt.Sprintf("%s on %d VMs (%s): %s", c, len(list), cc.CompressHostlist(names), list[0].Message))
	}
	return strings.Join(parts, "; ")
}

// createNodes creates the named VMs with bulkInsert: chunks of at most 5,000, all in flight at
// once, each with its own requestId (a retried call returns the same operation) and names given
// one by one in perInstanceProperties so numbering is exact. minCount equals the chunk's size
// unless partial success is allowed, so a chunk that cannot be satisfied creates nothing; if one
// chunk fails, what the others created in this call is deleted again. It returns the names
// created.
func createNodes(ctx context.Context, cl *gcp.Clients, d *desired, props *computepb.InstanceProperties, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var chunks [][]string
	for i := 0; i < len(names); i += bulk.MaxVMs {
		chunks = append(chunks, names[i:min(i+bulk.MaxVMs, len(names))])
	}
	type result struct {
		created  []string
		failures []vmFailure
		err      error
	}
	results := make([]result, len(chunks))
	var wg sync.WaitGroup
	for i, chunk := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			created, failures, err := bulkInsert(ctx, cl, d, props, chunk)
			results[i] = result{created, failures, err}
		}()
	}
	wg.Wait()

	var created []string
	var failures []vmFailure
	var errs []error
	for _, r := range results {
		created = append(created, r.created...)
		failures = append(failures, r.failures...)
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	if len(errs) == 0 && len(failures) == 0 {
		return created, nil
	}
	pe := &provisionError{zone: d.zone, machineType: d.machine.Name, requested: len(names), failures: failures, cause: errors.Join(errs...)}
	if d.allowPartial {
		pe.partial, pe.created = true, len(created)
		return created, pe
	}
	if len(created) > 0 {
		if err := deleteNodes(ctx, cl, d.project, d.zone, created); err != nil {
			return created, fmt.Errorf("%w; deleting the %d VMs created before the failure failed too: %v", pe, len(created), err)
		}
		pe.rolledBack = len(created)
	}
	return nil, pe
}

// bulkInsert runs one chunk and reports the names it created and the per-VM failures.
func bulkInsert(ctx context.Context, cl *gcp.Clients, d *desired, props *computepb.InstanceProperties, names []string) ([]string, []vmFailure, error) {
	minCount := int64(len(names))
	if d.allowPartial {
		minCount = 1
	}
	done, all, werr := bulk.Insert{Project: d.project, Zone: d.zone, Names: names, MinCount: minCount, Properties: props}.Run(ctx, cl)
	if done == nil {
		return nil, nil, werr
	}
	if all {
		return names, nil, nil
	}
	// Some or all VMs failed: their own insert operations, grouped under the bulk operation's
	// operationGroupId, say why. An existing VM of the same name is this partition's and fine.
	failures, lerr := bulk.Failures(ctx, cl, d.project, done.GetOperationGroupId())
	if lerr != nil && werr == nil {
		werr = fmt.Errorf("listing the per-VM operations of bulk request %s: %w", done.GetOperationGroupId(), lerr)
	}
	failed := map[string]bool{}
	var real []vmFailure
	for _, f := range failures {
		if f.Code == "RESOURCE_ALREADY_EXISTS" {
			continue
		}
		failed[f.Name] = true
		real = append(real, f)
	}
	var created []string
	if werr == nil {
		for _, n := range names {
			if !failed[n] {
				created = append(created, n)
			}
		}
	}
	return created, real, werr
}

// deleteNodes deletes VMs concurrently; one already gone is deleted.
func deleteNodes(ctx context.Context, cl *gcp.Clients, project, zone string, names []string) error {
	_, errs := bulk.ForEach(ctx, names, bulk.Parallelism, func(ctx context.Context, n string) error {
		return deleteNode(ctx, cl, project, zone, n)
	})
	if len(errs) > 3 {
		return fmt.Errorf("%w (and %d more VMs could not be deleted)", errors.Join(errs[:3]...), len(errs)-3)
	}
	return errors.Join(errs...)
}

func deleteNode(ctx context.Context, cl *gcp.Clients, project, zone, name string) error {
	if err := bulk.DeleteVM(ctx, cl, project, zone, name); err != nil {
		return fmt.Errorf("deleting VM %s: %w", name, err)
	}
	return nil
}
