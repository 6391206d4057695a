package trainingcluster

import (
	"context"
	"fmt"
	"path"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// The accounting block: slurmdbd and its database (clusterconfig.Accounting). It carries no
// password: the agent generates the one of a database on the controller there, and an external
// database's password stays in a file on the controller that the block only names.

type accountingModel struct {
	Enabled   types.Bool   `tfsdk:"enabled"`
	Database  types.Object `tfsdk:"database"`
	Retention types.Object `tfsdk:"retention"`
	QOS       types.List   `tfsdk:"qos"`
	FairShare types.Bool   `tfsdk:"fair_share"`
}

type accountingDatabaseModel struct {
	Host         types.String `tfsdk:"host"`
	Port         types.Int64  `tfsdk:"port"`
	User         types.String `tfsdk:"user"`
	PasswordFile types.String `tfsdk:"password_file"`
}

type retentionModel struct {
	JobDays   types.Int64 `tfsdk:"job_days"`
	StepDays  types.Int64 `tfsdk:"step_days"`
	EventDays types.Int64 `tfsdk:"event_days"`
}

var (
	accountingDatabaseAttrTypes = map[string]attr.Type{
		"host": types.StringType, "port": types.Int64Type, "user": types.StringType, "password_file": types.StringType,
	}
	retentionAttrTypes  = map[string]attr.Type{"job_days": types.Int64Type, "step_days": types.Int64Type, "event_days": types.Int64Type}
	accountingAttrTypes = map[string]attr.Type{
		"enabled": types.BoolType, "database": types.ObjectType{AttrTypes: accountingDatabaseAttrTypes},
		"retention": types.ObjectType{AttrTypes: retentionAttrTypes}, "qos": types.ListType{ElemType: types.StringType},
		"fair_share": types.BoolType,
	}
)

func accountingAttribute() schema.Attribute {
	days := func(what string) schema.Int64Attribute {
		return schema.Int64Attribute{
			Optional:            true,
			MarkdownDescription: fmt.Sprintf("Days slurmdbd keeps %s records (`Purge%sAfter`); unset keeps them forever.", what, what),
			Validators:          []validator.Int64{int64validator.Between(1, clusterconfig.MaxRetentionDays)},
		}
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Slurm accounting: `slurmdbd` on the controller, storing job records in MariaDB inside the controller VM (or in an external MySQL/MariaDB database), " +
			"so `sacct`, `sreport` and fair share (`sshare`) work and the controller reports measured goodput (`hypercompute_cluster_goodput`). " +
			"The database password is generated inside the cluster and kept root-only on the controller; it is never in metadata, plan or state.",
		Attributes: map[string]schema.Attribute{
			"enabled": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Keep accounting records. Default true when the block is set.",
			},
			"database": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "An external database instead of MariaDB on the controller.",
				Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "The database's host name or address, as the controller reaches it.",
						Validators:          []validator.String{stringvalidator.LengthBetween(1, 253), stringvalidator.NoneOf("localhost", "127.0.0.1")},
					},
					"port": schema.Int64Attribute{
						Optional:            true,
						MarkdownDescription: fmt.Sprintf("Default %d.", clusterconfig.DefaultDatabasePort),
						Validators:          []validator.Int64{int64validator.Between(1, 65535)},
					},
					"user": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: fmt.Sprintf("Default `%s`.", clusterconfig.DefaultDatabaseUser),
						Validators:          []validator.String{stringvalidator.LengthBetween(1, 80)},
					},
					"password_file": schema.StringAttribute{
						Required: true,
						MarkdownDescription: "Absolute path of a root-only (0600) file on the controller holding the password, put there by the image or the site's secret tooling. " +
							"Only the path is in the configuration.",
						Validators: []validator.String{tfutil.StringCheck{Desc: "an absolute path", Check: absolutePath}},
					},
				},
			},
			"retention": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "How long slurmdbd keeps records; unset keeps them forever.",
				Attributes:          map[string]schema.Attribute{"job_days": days("Job"), "step_days": days("Step"), "event_days": days("Event")},
			},
			"qos": tfutil.OptionalList(schema.ListAttribute{
				ElementType:         types.StringType,
				MarkdownDescription: "QoS names created in slurmdbd besides Slurm's `normal`, and granted to the root account so every user may ask for them (`sbatch --qos`).",
				Validators: []validator.List{
					listvalidator.SizeAtMost(clusterconfig.MaxQOS), uniqueStrings{},
					listvalidator.ValueStringsAre(tfutil.StringCheck{Desc: "a QoS name", Check: clusterconfig.ValidateQOSName}),
					listvalidator.ValueStringsAre(stringvalidator.NoneOf("normal")),
				},
			}),
			"fair_share": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Schedule by fair share: `PriorityType=priority/multifactor` with a fair-share weight, so `sshare` shows each account's usage and share.",
			},
		},
	}
}

// uniqueStrings refuses a list naming a value twice, with the attribute path in the message
// (listvalidator.UniqueValues' message has none, and Terraform does not print nested paths).
type uniqueStrings struct{}

func (uniqueStrings) Description(context.Context) string         { return "values are unique" }
func (uniqueStrings) MarkdownDescription(context.Context) string { return "values are unique" }
func (uniqueStrings) ValidateList(ctx context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	seen := map[string]bool{}
	for _, e := range req.ConfigValue.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if seen[s.ValueString()] {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value", fmt.Sprintf("%s: %q is listed twice", req.Path, s.ValueString()))
		}
		seen[s.ValueString()] = true
	}
}

func absolutePath(p string) error {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return fmt.Errorf("%q is not a clean absolute path", p)
	}
	return nil
}

// accountingDesired reads the block; nil when it is not set.
func accountingDesired(ctx context.Context, o types.Object, diags *diag.Diagnostics) *clusterconfig.Accounting {
	a, ok := readObject[accountingModel](ctx, o, diags)
	if !ok {
		return nil
	}
	out := &clusterconfig.Accounting{
		Enabled:   a.Enabled.IsNull() || a.Enabled.ValueBool(),
		QOS:       stringList(ctx, a.QOS, diags),
		FairShare: a.FairShare.ValueBool(),
	}
	if d, ok := readObject[accountingDatabaseModel](ctx, a.Database, diags); ok {
		out.Database = clusterconfig.AccountingDatabase{
			Host: d.Host.ValueString(), Port: int(d.Port.ValueInt64()), User: d.User.ValueString(), PasswordFile: d.PasswordFile.ValueString(),
		}
	}
	if r, ok := readObject[retentionModel](ctx, a.Retention, diags); ok {
		out.Retention = clusterconfig.Retention{JobDays: int(r.JobDays.ValueInt64()), StepDays: int(r.StepDays.ValueInt64()), EventDays: int(r.EventDays.ValueInt64())}
	}
	return out
}

// flattenAccounting is the block as the controller's metadata holds it; prior keeps the form the
// configuration wrote of an empty retention block (qos, a collection, is always empty, never null).
func flattenAccounting(ctx context.Context, a *clusterconfig.Accounting, prior types.Object, diags *diag.Diagnostics) types.Object {
	if a == nil {
		return types.ObjectNull(accountingAttrTypes)
	}
	var p accountingModel
	if known(prior) {
		diags.Append(prior.As(ctx, &p, tfutil.ObjectOpts)...)
	}
	m := accountingModel{
		Enabled: types.BoolValue(a.Enabled), FairShare: types.BoolValue(a.FairShare),
		QOS:      stringListValue(ctx, a.QOS, diags),
		Database: types.ObjectNull(accountingDatabaseAttrTypes), Retention: types.ObjectNull(retentionAttrTypes),
	}
	var d diag.Diagnostics
	if db := a.Database; !db.Local() {
		m.Database, d = types.ObjectValueFrom(ctx, accountingDatabaseAttrTypes, accountingDatabaseModel{
			Host: types.StringValue(db.Host), Port: intOrNull(db.Port), User: stringOrNull(db.User), PasswordFile: types.StringValue(db.PasswordFile),
		})
		diags.Append(d...)
	}
	if r := a.Retention; r != (clusterconfig.Retention{}) || known(p.Retention) {
		m.Retention, d = types.ObjectValueFrom(ctx, retentionAttrTypes, retentionModel{
			JobDays: intOrNull(r.JobDays), StepDays: intOrNull(r.StepDays), EventDays: intOrNull(r.EventDays),
		})
		diags.Append(d...)
	}
	out, d := types.ObjectValueFrom(ctx, accountingAttrTypes, m)
	diags.Append(d...)
	return out
}
