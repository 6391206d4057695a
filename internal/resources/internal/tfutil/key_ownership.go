package tfutil

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Which controller metadata key a create may take over.
//
// A partition, a health policy and a recipe job each own one key on their cluster's controller
// (hypercompute-partition-<name>, hypercompute-health-policy-<name>, hypercompute-job-<name>),
// named after the cluster and their name alone, so a second Terraform state with the same names
// would find the first state's keys and, without a check, rewrite them, and its destroy would
// delete them (a partition's VMs and template with them).
//
// As for storage (storage_ownership.go), only the cloud survives a crash, so the key says how far
// its own create got: the create writes it with cc.CreateMarkerField before it makes anything else,
// and removes the marker as its very last step (after the controller applied it; for a partition,
// once its nodes registered). A create therefore takes over a key only while it is marked — an
// unfinished create of the same resource type, which it finishes — and refuses any other before a
// single mutating call; `terraform import` takes over a finished one. The key is checked again in
// the write that marks it (EditMetadata edits what it read, fingerprint-checked), so a key another
// state wrote in between is never overwritten.
//
// What the marker cannot tell apart it cannot close, and the refusal says so:
//   - a crash between removing the marker and Terraform writing the state leaves a finished key,
//     and the retry is refused with the import hint;
//   - another create still running holds a marked key that this create would finish. Within one
//     provider process inFlight closes that: two creates of one key never run at once. Another
//     process (another state's apply, or another provider configuration, which Terraform serves
//     from a process of its own) running the same create at the same moment is not told apart:
//     the window is that of one create, and a killed one's key is finished by whichever applies.
//
// A failed create that still records its resource (tainted) removes the marker first: the state
// owns the key from then on, and no other state's create may take it over.
//
// Two resources of ONE configuration with the same name are refused as duplicates at plan
// (PlanCreate: the per-operation registry of the configured provider), which the apply's own plan
// of each create repeats once names unknown at plan are known; inFlight refuses at apply whatever
// the registry did not see.

// OwnedKey is a controller metadata key that one resource owns, with what messages say about it.
type OwnedKey struct {
	// Type is the owning resource type (hypercompute_node_partition).
	Type string
	// What is what the key holds, for messages ("partition").
	What    string
	Cluster cc.ClusterID
	Name    string
	// Key is the metadata key on the controller.
	Key string
	// ImportID is the id the resource's ImportState takes for it.
	ImportID string
}

// owner identifies the key across the resources of a provider: project, zone, cluster, type, name.
func (k OwnedKey) owner() string { return k.Type + " " + k.Cluster.String() + " " + k.Name }

func (k OwnedKey) importHint() string {
	return fmt.Sprintf("terraform import %s.<name> %s (or an import block)", k.Type, k.ImportID)
}

// KeyNotOursError refuses a create whose key (or, for a partition, VMs or template) exists and
// was not left by an unfinished create of the same resource type. Create records no state for it.
type KeyNotOursError struct {
	k OwnedKey
	// found is what exists, why is why it is not this create's to take over.
	found, why string
}

func (e *KeyNotOursError) Error() string {
	return fmt.Sprintf("%s %q of cluster %s: %s, which %s. It may be another Terraform state's, or an interrupted apply "+
		"of this one; a create never takes over, rewrites or deletes what it did not make. If it is yours: %s; "+
		"otherwise choose another name.", e.k.What, e.k.Name, e.k.Cluster, e.found, e.why, e.k.importHint())
}

// NotOurs is the refusal for other things a resource owns beside its key (a partition's VMs and
// templates) that exist while the key does not: found says what exists, why why it is not ours.
func (k OwnedKey) NotOurs(found, why string) error {
	return &KeyNotOursError{k: k, found: found, why: why}
}

// DuplicateError refuses a second resource of one configuration that would own the same key.
type DuplicateError struct {
	k OwnedKey
	// concurrent: found at apply, another create of the key running in this provider process.
	concurrent bool
}

func (e *DuplicateError) Error() string {
	what := fmt.Sprintf("two %s resources have the name %q on cluster %s", e.k.Type, e.k.Name, e.k.Cluster)
	if e.concurrent {
		what = fmt.Sprintf("another %s with the name %q on cluster %s is being created by this apply at the same time "+
			"(two resources of the configuration have the same name)", e.k.Type, e.k.Name, e.k.Cluster)
	}
	return fmt.Sprintf("%s; only one can own the %s (metadata key %s on the controller %s). Give each a name of its own.",
		what, e.k.What, e.k.Key, e.k.Cluster.Controller())
}

// IsRefusedCreate says whether a create was refused before it changed anything: the key is
// someone else's, or another resource of the configuration has its name. Create then records
// no state.
func IsRefusedCreate(err error) bool {
	var n *KeyNotOursError
	var d *DuplicateError
	return errors.As(err, &n) || errors.As(err, &d)
}

// PlanCreate is for ModifyPlan: a create of a resource whose "cluster" and "name" are known is
// recorded (key names what it would own), and the plan fails on name when another resource of the
// operation already plans to create the same. Updates and destroys are not recorded (see
// providerdata.PlannedCreates); p is nil in validation-only runs.
func PlanCreate(ctx context.Context, req resource.ModifyPlanRequest, p *providerdata.Data, key func(cc.ClusterID, string) OwnedKey, diags *diag.Diagnostics) {
	if p == nil || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var cluster, name types.String
	diags.Append(req.Plan.GetAttribute(ctx, path.Root("cluster"), &cluster)...)
	diags.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if diags.HasError() || cluster.IsUnknown() || cluster.IsNull() || name.IsUnknown() || name.IsNull() {
		return // not known yet: the apply's own plan of the create records it
	}
	ref, err := cc.ParseClusterID(cluster.ValueString())
	if err != nil {
		return // the resource's own checks report it
	}
	k := key(ref, name.ValueString())
	if !p.Creates.Plan(k.owner()) {
		diags.AddAttributeError(path.Root("name"), "Duplicate "+k.What, "name: "+(&DuplicateError{k: k}).Error())
	}
}

// inFlight holds the creates running in this provider process, by owner.
var inFlight = struct {
	sync.Mutex
	owners map[string]bool
}{owners: map[string]bool{}}

// BeginCreate marks the create of k as running in this process until done is called; while it
// runs, another create of k is a *DuplicateError and makes no call. Without it, two creates of one
// key in one apply would each find the other's marked key and both finish it.
func (k OwnedKey) BeginCreate() (done func(), err error) {
	inFlight.Lock()
	defer inFlight.Unlock()
	if inFlight.owners[k.owner()] {
		return func() {}, &DuplicateError{k: k, concurrent: true}
	}
	inFlight.owners[k.owner()] = true
	return func() {
		inFlight.Lock()
		delete(inFlight.owners, k.owner())
		inFlight.Unlock()
	}, nil
}

// CheckClaim says whether a create may write k over the controller's metadata md: the key is
// absent, or an unfinished create of this resource type left it. Otherwise a *KeyNotOursError.
func (k OwnedKey) CheckClaim(md map[string]string) error {
	v, ok := md[k.Key]
	if !ok || cc.HasCreateMarker(v) {
		return nil
	}
	return &KeyNotOursError{k: k,
		found: fmt.Sprintf("its metadata key %s already exists on the controller %s", k.Key, k.Cluster.Controller()),
		why: fmt.Sprintf("is not an unfinished create of %s (its value lacks %q: %q, which a create keeps until it finished)",
			k.Type, cc.CreateMarkerField, cc.CreateMarkerPending)}
}

// Claim writes value under k, marked as an unfinished create, checking CheckClaim again on the
// metadata the write replaces: a key someone else wrote since the caller's check is refused, and
// nothing is written. cur is the controller as last read, or nil. It returns the controller as
// the write left it.
func (k OwnedKey) Claim(ctx context.Context, cl *gcp.Clients, cur *computepb.Instance, value string) (*computepb.Instance, error) {
	marked, err := k.Pending(value)
	if err != nil {
		return nil, err
	}
	var refused error
	inst, err := EditMetadata(ctx, cl, ControllerVM(k.Cluster), cur, func(md map[string]string) {
		if refused = k.CheckClaim(md); refused == nil {
			md[k.Key] = marked
		}
	})
	if refused != nil {
		return nil, refused
	}
	return inst, err
}

// Pending is value marked as an unfinished create: what a create writes under k until it finished.
func (k OwnedKey) Pending(value string) (string, error) {
	marked, ok := cc.WithCreateMarker(value)
	if !ok {
		return "", fmt.Errorf("the value of %s is not a JSON object, so it cannot carry the creation marker", k.Key)
	}
	return marked, nil
}

// Finish removes the creation marker from k once the create finished (or once a failed create
// is recorded in the state): from then on no create takes the key over. A key that is gone or
// not marked is left as it is. ctx may be done already (a create that ran out of time still
// finishes): Finish then works on a detached context of its own.
func (k OwnedKey) Finish(ctx context.Context, cl *gcp.Clients, cur *computepb.Instance) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = Detached(ctx)
		defer cancel()
	}
	_, err := EditMetadata(ctx, cl, ControllerVM(k.Cluster), cur, func(md map[string]string) {
		if v, ok := md[k.Key]; ok {
			md[k.Key] = cc.WithoutCreateMarker(v)
		}
	})
	if err != nil {
		// Recorded tainted, the resource is replaced by the next apply, so no other state's create
		// can take the still-marked key over for long.
		return fmt.Errorf("the %s %s was written, but removing its creation marker (%q) from %s failed: %w; it is "+
			"recorded as tainted, and the next apply replaces it", k.What, k.Name, cc.CreateMarkerField, k.Key, err)
	}
	return nil
}
