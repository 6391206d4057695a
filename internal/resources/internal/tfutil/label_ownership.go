package tfutil

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Which existing object a create may take over, for every labelled resource the provider creates
// (Filestore and Managed Lustre instances, Cloud Storage buckets, a training cluster's VMs).
//
// A create finds what it makes by name, so that an apply stopped after an insert — the provider or
// Terraform killed, or an answer lost, leaving nothing in the state — is finished by the next
// apply. The same lookup must not take over an object another Terraform state (or another tool)
// made: that state's destroy, or this one's, would delete the other's data.
//
// As for hypercompute_network, only the cloud survives a crash, so the object says how far its own
// create got: the insert carries the label CreateMarkerLabel, and the create removes it (a labels
// patch) once the create finished and the object was read back. A create that finds an object
// adopts it only while it carries the label — an unfinished create of its resource type — and
// otherwise refuses (NotOurs) before making a single change and records no state; `terraform
// import` takes over a finished one. Read hides the label from `labels` (ReadMarkedLabels), so a
// plan never shows it for a finished object, and LabelsAttribute refuses it in a configuration.
//
// What remains is the window between the labels patch and the state being written: a crash there
// leaves a finished object and no state. The retry cannot tell that from another state's object,
// so it is refused, and the refusal says both are possible and names the import.
const (
	CreateMarkerLabel = catalog.CreateMarkerLabel
	createMarkerValue = "pending"
)

// WithCreateMarker is labels plus the creation marker, for the insert; labels is not changed.
func WithCreateMarker(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[CreateMarkerLabel] = createMarkerValue
	return out
}

// HasCreateMarker says whether an object's labels mark a create that has not finished.
func HasCreateMarker(labels map[string]string) bool {
	return labels[CreateMarkerLabel] == createMarkerValue
}

// WithoutCreateMarker is an object's labels as the configuration manages them: without the
// marker. labels is not changed.
func WithoutCreateMarker(labels map[string]string) map[string]string {
	if _, ok := labels[CreateMarkerLabel]; !ok {
		return labels
	}
	out := maps.Clone(labels)
	delete(out, CreateMarkerLabel)
	return out
}

// notOursError refuses a create whose object exists and is not an unfinished create of this
// resource type. Create records no state for it: the object is someone else's to keep.
type notOursError struct{ what, name, resourceType, importID string }

// NotOurs is the refusal of a create that found what (a "Cloud Storage bucket") name existing
// without the creation marker; resourceType and importID make the `terraform import` it names.
func NotOurs(what, name, resourceType, importID string) error {
	return &notOursError{what: what, name: name, resourceType: resourceType, importID: importID}
}

func (e *notOursError) Error() string {
	return fmt.Sprintf("%s %s already exists and was not left by an unfinished create of %s (it lacks the %s=%s "+
		"label a create carries until it finished). A create never adopts, changes or deletes what it did not make: "+
		"it may be another Terraform state's, or an interrupted apply of this one that stopped after its create "+
		"finished. If it is yours: terraform import %s.<name> %s (or an import block); otherwise choose another name.",
		e.what, e.name, e.resourceType, CreateMarkerLabel, createMarkerValue, e.resourceType, e.importID)
}

// IsNotOurs says whether a create was refused because the object may belong to someone else.
func IsNotOurs(err error) bool {
	var n *notOursError
	return errors.As(err, &n)
}

// reservedKeyValidator refuses the creation marker's key in a configuration's labels: Read hides
// that label, so a configuration setting it would never converge, and setting it by hand would
// make a finished object adoptable by another state's create.
type reservedKeyValidator struct{}

func (reservedKeyValidator) Description(context.Context) string {
	return "the label " + CreateMarkerLabel + " is reserved for the provider"
}
func (v reservedKeyValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (reservedKeyValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, ok := req.ConfigValue.Elements()[CreateMarkerLabel]; ok {
		AddInvalid(&resp.Diagnostics, req.Path, catalog.ReservedLabelKey)
	}
}

// ReadMarkedLabels is ReadLabels for an object made under the creation marker: `labels` never
// shows the marker, while `effective_labels` keeps it, so an object imported (or recorded) before
// its create finished plans one in-place update that removes the marker — otherwise it would stay
// adoptable by another state's create — and a finished object plans no change.
func ReadMarkedLabels(ctx context.Context, p *providerdata.Data, api map[string]string, prior types.Map) (labels, effective types.Map, diags diag.Diagnostics) {
	labels, _, diags = ReadLabels(ctx, p, WithoutCreateMarker(api), prior)
	_, effective, d := ReadLabels(ctx, p, api, prior)
	diags.Append(d...)
	return labels, effective, diags
}
