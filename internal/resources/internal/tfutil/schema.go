package tfutil

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Attributes every instance resource (Filestore, Managed Lustre) declares the same way. Attributes
// whose text is a product's own (name rules, location, state names) stay in the resource's schema.

// MaxInstanceDescription is the length limit of Filestore's and Managed Lustre's
// Instance.description.
const MaxInstanceDescription = 2048

// InstanceIDAttribute is the computed id, the instance's full name (InstanceName); locAttr names the
// location attribute in the pattern ("location", "zone"). It is known at plan time and never changes.
func InstanceIDAttribute(locAttr string) schema.StringAttribute {
	return schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "`projects/{project}/locations/{" + locAttr + "}/instances/{name}`.",
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// ProjectAttribute is the project of a resource that cannot move (ModifyPlan refuses a change;
// DefaultFromProvider fills it).
func ProjectAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "Project ID. Defaults to the provider's `project`. Cannot be changed.",
	}
}

// InstanceDescriptionAttribute is an instance's description, checked against the API's limit at plan time.
func InstanceDescriptionAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Description of the instance, up to 2048 characters.",
		Validators:          []validator.String{stringvalidator.LengthAtMost(MaxInstanceDescription)},
	}
}

// DeletionProtectionAttribute is a storage instance's deletion_protection: on unless set false,
// so data outlives a careless destroy. markdown says who enforces it.
func DeletionProtectionAttribute(markdown string) schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true, Computed: true,
		Default:             booldefault.StaticBool(true),
		MarkdownDescription: markdown,
	}
}

// Stable is the plan modifier of a computed string that does not change once known: the plan keeps
// the state's value instead of showing it unknown on every update.
func Stable() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
}
