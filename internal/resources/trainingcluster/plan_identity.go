package trainingcluster

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/release"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

func (p *planner) planServiceAccount(ctx context.Context) {
	sa := serviceAccountModel{Email: types.StringValue("default"), Scopes: types.ListUnknown(types.StringType)}
	if known(p.plan.ServiceAccount) {
		p.diags.Append(p.plan.ServiceAccount.As(ctx, &sa, tfutil.ObjectOpts)...)
	}
	if sa.Email.IsNull() {
		sa.Email = types.StringValue("default")
	}
	if !known(sa.Scopes) {
		if cp, ok := p.checkpointing(ctx); ok {
			scopes := slices.Clone(defaultScopes)
			if cp {
				scopes[slices.Index(scopes, readOnlyStorageScope)] = readWriteStorageScope
			}
			var d diag.Diagnostics
			sa.Scopes, d = types.ListValueFrom(ctx, types.StringType, scopes)
			p.diags.Append(d...)
		} else {
			sa.Scopes = types.ListUnknown(types.StringType)
		}
	} else {
		scopes := stringList(ctx, sa.Scopes, p.diags)
		if !slices.Contains(scopes, "https://www.googleapis.com/auth/compute") && !slices.Contains(scopes, "https://www.googleapis.com/auth/cloud-platform") {
			p.diags.AddAttributeWarning(tfutil.AttrPath("service_account.scopes"), "No Compute scope",
				"service_account.scopes: neither compute nor cloud-platform is listed, so the controller cannot create or delete nodes: partitions with dynamic nodes will not power up.")
		}
	}
	var d diag.Diagnostics
	p.plan.ServiceAccount, d = types.ObjectValueFrom(ctx, serviceAccountAttrTypes, sa)
	p.diags.Append(d...)
}

// agentVersion is the version label of an agent the configuration names without one.
func (p *planner) agentVersion() string {
	for _, v := range []string{release.Version, p.providerVersion()} {
		if v != "" && clusterconfig.ValidateAgentRef(clusterconfig.AgentRef{Version: v, URL: "/x", SHA256: strings.Repeat("0", 64)}) == nil {
			return v
		}
	}
	return "dev"
}

func (p *planner) providerVersion() string {
	if p.r.Provider == nil {
		return ""
	}
	return p.r.Provider.Version
}

func (p *planner) planAgent() {
	ctx := context.Background()
	plan := p.plan
	if plan.Agent.IsNull() || plan.Agent.IsUnknown() {
		a, ok := release.DefaultAgent(catalog.ArchX86)
		if !ok {
			if p.r.Provider != nil {
				tfutil.AddInvalid(p.diags, path.Root("agent"),
					"this is a development build of the provider, which carries no released agent build: set agent = { url = ..., sha256 = ... } "+
						"to a hypercompute-agent binary the VMs can fetch (gs://, https://, http://, file:/// or a path in the image) and its SHA-256")
			}
			return
		}
		var d diag.Diagnostics
		plan.Agent, d = types.ObjectValueFrom(ctx, agentAttrTypes, agentModel{URL: types.StringValue(a.URL), SHA256: types.StringValue(a.SHA256), Version: types.StringValue(a.Version)})
		p.diags.Append(d...)
		return
	}
	var a agentModel
	p.diags.Append(plan.Agent.As(ctx, &a, tfutil.ObjectOpts)...)
	if a.Version.IsNull() || a.Version.IsUnknown() {
		a.Version = types.StringValue(p.agentVersion())
	}
	if known(a.URL) && known(a.SHA256) {
		err := clusterconfig.ValidateAgentRef(clusterconfig.AgentRef{Version: a.Version.ValueString(), URL: a.URL.ValueString(), SHA256: a.SHA256.ValueString()})
		if err != nil {
			p.invalid("agent", "%v", err)
		}
	}
	var d diag.Diagnostics
	plan.Agent, d = types.ObjectValueFrom(ctx, agentAttrTypes, a)
	p.diags.Append(d...)
}

func (p *planner) planLabels(ctx context.Context) {
	plan := p.plan
	if known(plan.Labels) {
		for k := range plan.Labels.Elements() {
			if k == labelCluster || k == labelRole {
				p.invalid("labels", "%q is set by the provider on every VM of the cluster; remove it from labels", k)
			}
		}
	}
	eff, d := tfutil.EffectiveLabels(ctx, p.r.Provider, plan.Labels)
	p.diags.Append(d...)
	if eff.IsUnknown() || !known(plan.Name) {
		plan.EffectiveLabels = types.MapUnknown(types.StringType)
		return
	}
	all := stringMap(ctx, eff, p.diags)
	if all == nil {
		all = map[string]string{}
	}
	all[labelCluster] = plan.Name.ValueString()
	all[labelRole] = string(clusterconfig.RoleController)
	if err := catalog.ValidateLabels(all); err != nil {
		p.invalid("labels", "together with the provider's default_labels and the cluster's own labels: %v", err)
	}
	plan.EffectiveLabels, d = types.MapValueFrom(ctx, types.StringType, all)
	p.diags.Append(d...)
}
