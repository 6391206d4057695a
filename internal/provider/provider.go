// Package provider defines the hypercompute provider: its configuration, the API clients it
// builds from it, and the resources it registers.
package provider

import (
	"context"
	"os"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/datasources/clustergoodput"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/datasources/clusterhealth"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/datasources/goodputplan"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/datasources/machinetype"
	recipesds "github.com/hypercompute/terraform-provider-hypercompute/internal/datasources/recipes"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/gcp"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/providerdata"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/bucket"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/filestore"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/healthpolicy"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/lustre"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/network"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/nodepartition"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/recipejob"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/trainingcluster"
)

// EmulatorHostEnv points every API at the local emulator, like PUBSUB_EMULATOR_HOST does for Pub/Sub.
const EmulatorHostEnv = "HYPERCOMPUTE_EMULATOR_HOST"

var (
	projectPattern  = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	hostPortPattern = regexp.MustCompile(`^[^\s:/]+:[0-9]{1,5}$`)
	urlPattern      = regexp.MustCompile(`^https?://[^\s]+$`)
)

type hypercomputeProvider struct {
	version string
}

// New returns a constructor of the provider, as providerserver and the test factories expect.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &hypercomputeProvider{version: version} }
}

func (p *hypercomputeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "hypercompute"
	resp.Version = p.version
}

func (p *hypercomputeProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m model
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Unknown values (from resources not yet created) cannot configure clients; the framework
	// calls Configure again during apply once they are known.
	if m.Project.IsUnknown() || m.Credentials.IsUnknown() || m.EmulatorHost.IsUnknown() || m.AccessToken.IsUnknown() {
		return
	}

	cfg := gcp.Config{
		Project:                   firstNonEmpty(m.Project.ValueString(), os.Getenv("GOOGLE_PROJECT"), os.Getenv("GOOGLE_CLOUD_PROJECT"), os.Getenv("CLOUDSDK_CORE_PROJECT")),
		Region:                    firstNonEmpty(m.Region.ValueString(), os.Getenv("GOOGLE_REGION"), os.Getenv("CLOUDSDK_COMPUTE_REGION")),
		Zone:                      firstNonEmpty(m.Zone.ValueString(), os.Getenv("GOOGLE_ZONE"), os.Getenv("CLOUDSDK_COMPUTE_ZONE")),
		Credentials:               firstNonEmpty(m.Credentials.ValueString(), os.Getenv("GOOGLE_CREDENTIALS")),
		AccessToken:               firstNonEmpty(m.AccessToken.ValueString(), os.Getenv("GOOGLE_OAUTH_ACCESS_TOKEN")),
		ImpersonateServiceAccount: firstNonEmpty(m.ImpersonateServiceAccount.ValueString(), os.Getenv("GOOGLE_IMPERSONATE_SERVICE_ACCOUNT")),
		EmulatorHost:              firstNonEmpty(m.EmulatorHost.ValueString(), os.Getenv(EmulatorHostEnv)),
		UserAgent:                 "terraform-provider-hypercompute/" + p.version,
	}
	if !m.Endpoints.IsNull() && !m.Endpoints.IsUnknown() {
		var e endpointsModel
		resp.Diagnostics.Append(m.Endpoints.As(ctx, &e, basetypes.ObjectAsOptions{})...)
		cfg.Endpoints.Compute = e.Compute.ValueString()
		cfg.Endpoints.Filestore = e.Filestore.ValueString()
		cfg.Endpoints.Lustre = e.Lustre.ValueString()
		cfg.Endpoints.ServiceNetworking = e.ServiceNetworking.ValueString()
		cfg.Endpoints.Monitoring = e.Monitoring.ValueString()
	}
	labels := map[string]string{}
	if !m.DefaultLabels.IsNull() && !m.DefaultLabels.IsUnknown() {
		resp.Diagnostics.Append(m.DefaultLabels.ElementsAs(ctx, &labels, false)...)
		if _, ok := labels[catalog.CreateMarkerLabel]; ok {
			reservedKey(&resp.Diagnostics)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if !hostPortPattern.MatchString(cfg.EmulatorHost) && cfg.EmulatorHost != "" {
		resp.Diagnostics.AddError("Invalid "+EmulatorHostEnv, "the emulator host must be host:port, for example 127.0.0.1:8780; got "+cfg.EmulatorHost)
		return
	}

	clients, err := gcp.NewClients(ctx, cfg)
	if err != nil {
		resp.Diagnostics.AddError("Unable to create Google Cloud API clients", err.Error())
		return
	}
	tflog.Info(ctx, "configured hypercompute provider", map[string]any{
		"project": cfg.Project, "region": cfg.Region, "zone": cfg.Zone, "emulated": cfg.EmulatorHost != "",
	})
	data := &providerdata.Data{
		Clients:       clients,
		Project:       cfg.Project,
		Region:        cfg.Region,
		Zone:          cfg.Zone,
		DefaultLabels: labels,
		Version:       p.version,
		Emulated:      cfg.EmulatorHost != "",
	}
	resp.ResourceData = data
	resp.DataSourceData = data
}

func (p *hypercomputeProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		network.NewResource,
		filestore.NewResource,
		lustre.NewResource,
		bucket.NewResource,
		trainingcluster.NewResource,
		nodepartition.NewResource,
		healthpolicy.NewResource,
		recipejob.NewResource,
	}
}

func (p *hypercomputeProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		machinetype.NewDataSource,
		goodputplan.NewDataSource,
		clusterhealth.NewDataSource,
		clustergoodput.NewDataSource,
		recipesds.NewDataSource,
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

var _ provider.Provider = (*hypercomputeProvider)(nil)
