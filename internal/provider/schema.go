package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// model mirrors the provider block.
type model struct {
	Project                   types.String `tfsdk:"project"`
	Region                    types.String `tfsdk:"region"`
	Zone                      types.String `tfsdk:"zone"`
	Credentials               types.String `tfsdk:"credentials"`
	AccessToken               types.String `tfsdk:"access_token"`
	ImpersonateServiceAccount types.String `tfsdk:"impersonate_service_account"`
	DefaultLabels             types.Map    `tfsdk:"default_labels"`
	Endpoints                 types.Object `tfsdk:"endpoints"`
	EmulatorHost              types.String `tfsdk:"emulator_host"`
}

type endpointsModel struct {
	Compute           types.String `tfsdk:"compute"`
	Filestore         types.String `tfsdk:"filestore"`
	Lustre            types.String `tfsdk:"lustre"`
	ServiceNetworking types.String `tfsdk:"servicenetworking"`
	Monitoring        types.String `tfsdk:"monitoring"`
}

func (p *hypercomputeProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	url := []validator.String{stringvalidator.RegexMatches(urlPattern, "must be an http:// or https:// URL")}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The hypercompute provider stands up Slurm GPU training clusters on Google Cloud: " +
			"networks with private service access and GPU NIC stacks, Filestore `/home`, Managed Lustre, " +
			"clusters, GPU partitions, health policies and training recipes. " +
			"Set `emulator_host` (or `HYPERCOMPUTE_EMULATOR_HOST`) to run everything against the local cloud emulator.",
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default project ID. Falls back to `GOOGLE_PROJECT`, `GOOGLE_CLOUD_PROJECT` or `CLOUDSDK_CORE_PROJECT`.",
				Validators:          []validator.String{stringvalidator.RegexMatches(projectPattern, "must be a project ID: 6-30 lowercase letters, digits or hyphens, starting with a letter")},
			},
			"region": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default region. Falls back to `GOOGLE_REGION` or `CLOUDSDK_COMPUTE_REGION`.",
			},
			"zone": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default zone. Falls back to `GOOGLE_ZONE` or `CLOUDSDK_COMPUTE_ZONE`.",
			},
			"credentials": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "Path to a service account key or credentials file, or its JSON contents. " +
					"Falls back to `GOOGLE_CREDENTIALS`; default is Application Default Credentials.",
			},
			"access_token": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "An OAuth 2.0 access token used instead of `credentials`. Falls back to `GOOGLE_OAUTH_ACCESS_TOKEN`.",
			},
			"impersonate_service_account": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Service account email to impersonate for every API call. Falls back to `GOOGLE_IMPERSONATE_SERVICE_ACCOUNT`.",
			},
			"default_labels": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Labels applied to every labelled resource this provider creates; a resource's own labels win on conflict. " +
					"The key `hypercompute-create` is the provider's own and cannot be set.",
				Validators: []validator.Map{defaultLabelsValidator{}},
			},
			"endpoints": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Per-API endpoint overrides (for example Private Service Connect endpoints).",
				Attributes: map[string]schema.Attribute{
					"compute":           schema.StringAttribute{Optional: true, Validators: url, MarkdownDescription: "Compute Engine endpoint, e.g. `https://compute.googleapis.com/`."},
					"filestore":         schema.StringAttribute{Optional: true, Validators: url, MarkdownDescription: "Filestore endpoint, e.g. `https://file.googleapis.com/`."},
					"lustre":            schema.StringAttribute{Optional: true, Validators: url, MarkdownDescription: "Managed Lustre endpoint, e.g. `https://lustre.googleapis.com/`."},
					"servicenetworking": schema.StringAttribute{Optional: true, Validators: url, MarkdownDescription: "Service Networking endpoint, e.g. `https://servicenetworking.googleapis.com/`."},
					"monitoring":        schema.StringAttribute{Optional: true, Validators: url, MarkdownDescription: "Cloud Monitoring endpoint (time series, alert policies and dashboards), e.g. `https://monitoring.googleapis.com/`."},
				},
			},
			"emulator_host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "`host:port` of a running `hypercompute-emulator`. Every API is then served by the " +
					"local cloud, without authentication. Falls back to `HYPERCOMPUTE_EMULATOR_HOST`.",
				Validators: []validator.String{stringvalidator.RegexMatches(hostPortPattern, "must be host:port, for example 127.0.0.1:8780")},
			},
		},
	}
}
