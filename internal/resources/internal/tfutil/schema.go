package tfutil

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Attributes every instance resource (Filestore, Managed Lustre) declares the same way. Attributes
// whose text is a product's own (name rules, location, state names) stay in the resource's schema.

// MaxInstanceDescription is the length limit of Filestore's and Managed Lustre's
// Instance.description.
const MaxInstanceDescription = 2048

// InstanceIDAttribute is the computed id, the instance's full name (InstanceName); locAttr names the
// location attribute in the pattern ("location", "zone"). It is known at plan time and never changes.
func InstanceIDAttribute(locAttr string) schema.StringAttribute {
	return IDAttribute("`projects/{project}/locations/{" + locAttr + "}/instances/{name}`.")
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

// IDAttribute is a resource's computed id; markdown gives its pattern. It is known at plan time
// (or once created) and never changes.
func IDAttribute(markdown string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: markdown, PlanModifiers: Stable()}
}

// ClusterAttribute is the `cluster` of a resource that lives in a training cluster (partition,
// health policy, recipe job): a training cluster's id, checked at plan; more is the resource's own
// sentence about it, modifiers its plan modifiers.
func ClusterAttribute(more string, modifiers ...planmodifier.String) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		MarkdownDescription: "The training cluster: `hypercompute_training_cluster.<name>.id` " +
			"(`projects/{project}/zones/{zone}/clusters/{name}`)." + more,
		Validators:    []validator.String{StringCheck{Desc: "a training cluster id", Check: func(s string) error { _, err := cc.ParseClusterID(s); return err }}},
		PlanModifiers: modifiers,
	}
}
