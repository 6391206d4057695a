package tfutil

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
)

// Which storage instance a create may take over.
//
// A storage create adopts an instance of its name that already exists (ALREADY_EXISTS), so that an
// apply stopped after the insert — the provider or Terraform killed, or the answer lost, leaving
// nothing in the state — is finished by the next apply. The same lookup must not take over an
// instance another Terraform state (or another tool) made: that state's destroy, or this one's,
// would delete the other's data.
//
// As for hypercompute_network, only the cloud survives a crash, so the instance says how far its
// own create got: the insert carries the label CreateMarkerLabel, and the create removes it (a
// labels patch) once the create operation finished and the instance was read back. A create that
// finds an instance adopts it only while it carries the label — an unfinished create of this
// resource type — and refuses any other before making a single change; `terraform import` takes
// over a finished one. Read hides the label, so a plan never shows it. What remains is the window
// between the labels patch and the state being written: a crash there leaves a finished instance,
// and the retry is refused and names the import.
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

// HasCreateMarker says whether an instance's labels mark a create that has not finished.
func HasCreateMarker(labels map[string]string) bool {
	return labels[CreateMarkerLabel] == createMarkerValue
}

// WithoutCreateMarker is an instance's labels as the configuration manages them: without the
// marker. labels is not changed.
func WithoutCreateMarker(labels map[string]string) map[string]string {
	if _, ok := labels[CreateMarkerLabel]; !ok {
		return labels
	}
	out := maps.Clone(labels)
	delete(out, CreateMarkerLabel)
	return out
}

// notOursError refuses a create whose instance exists and is not an unfinished create of this
// resource type. Create records no state for it: the instance is someone else's to keep.
type notOursError struct{ what, resourceType, name string }

func (e *notOursError) Error() string {
	return fmt.Sprintf("%s %s already exists and was not left by an unfinished create of %s (it lacks the %s=%s "+
		"label a create carries until it finished), so another Terraform state or tool owns it. A create only "+
		"finishes its own half-made instance. To manage it from this configuration, import it with "+
		"terraform import %s.<name> %s (or an import block); otherwise choose another name.",
		e.what, e.name, e.resourceType, CreateMarkerLabel, createMarkerValue, e.resourceType, e.name)
}

// IsNotOurs says whether a create was refused because the instance belongs to someone else.
func IsNotOurs(err error) bool {
	var n *notOursError
	return errors.As(err, &n)
}

// StorageLabelsAttribute is the `labels` attribute of a storage instance: LabelsAttribute, with
// the creation marker's key refused, since Read hides that label and a configuration setting it
// would never converge.
func StorageLabelsAttribute(what string) schema.MapAttribute {
	a := LabelsAttribute(what)
	a.MarkdownDescription += " The label `" + CreateMarkerLabel + "` is the provider's own (it marks a create that has not finished) and cannot be set."
	a.Validators = append(a.Validators, markerKeyValidator{})
	return a
}

type markerKeyValidator struct{}

func (markerKeyValidator) Description(context.Context) string {
	return "the label " + CreateMarkerLabel + " is reserved for the provider"
}
func (v markerKeyValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (markerKeyValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, ok := req.ConfigValue.Elements()[CreateMarkerLabel]; ok {
		AddInvalid(&resp.Diagnostics, req.Path, catalog.ReservedLabelKey)
	}
}

// ReadStorageLabels is ReadLabels for a storage instance: `labels` never shows the creation
// marker, while `effective_labels` keeps it, so an instance imported (or recorded) before its
// create finished plans one in-place update that removes the marker — otherwise it would stay
// adoptable by another state's create — and a finished instance plans no change.
func ReadStorageLabels(ctx context.Context, p *providerdata.Data, api map[string]string, prior types.Map) (labels, effective types.Map, diags diag.Diagnostics) {
	labels, _, diags = ReadLabels(ctx, p, WithoutCreateMarker(api), prior)
	_, effective, d := ReadLabels(ctx, p, api, prior)
	diags.Append(d...)
	return labels, effective, diags
}
