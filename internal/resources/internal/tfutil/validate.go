package tfutil

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// ObjectOpts reads a nested object whose attributes may be null or unknown at plan time (Computed
// attributes inside it) without failing: such fields come back as their zero value.
var ObjectOpts = basetypes.ObjectAsOptions{UnhandledNullAsEmpty: true, UnhandledUnknownAsEmpty: true}

// StringCheck adapts a plain rule (most of them catalog.Validate* functions) to a framework string
// validator, so each rule reads as one function and the provider and the emulator share it.
type StringCheck struct {
	Desc  string
	Check func(string) error
}

func (v StringCheck) Description(context.Context) string         { return v.Desc }
func (v StringCheck) MarkdownDescription(context.Context) string { return v.Desc }

// ValidateString skips null and unknown values: an unknown one is checked again once known, at apply.
func (v StringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.Check(req.ConfigValue.ValueString()); err != nil {
		AddInvalid(&resp.Diagnostics, req.Path, err.Error())
	}
}

// AddInvalid reports an invalid attribute. Terraform does not print the path of a nested attribute
// (it shows only the configuration line), so the message itself starts with the path.
func AddInvalid(diags *diag.Diagnostics, p path.Path, msg string) {
	diags.AddAttributeError(p, "Invalid "+p.String(), WithPath(p.String(), msg))
}

// WithPath starts msg with the attribute path unless it already names it (catalog messages often
// start with the field, "capacity_gb 100 is below ...").
func WithPath(p, msg string) string {
	if strings.HasPrefix(msg, p+" ") || strings.HasPrefix(msg, p+":") {
		return msg
	}
	return p + ": " + msg
}

// AttrPath turns "a.b" into the framework path of a nested attribute.
func AttrPath(dotted string) path.Path {
	parts := strings.Split(dotted, ".")
	p := path.Root(parts[0])
	for _, s := range parts[1:] {
		p = p.AtName(s)
	}
	return p
}
