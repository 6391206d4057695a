package trainingcluster

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/release"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// planServiceAccount resolves service_account and each role's identity in service_accounts: a role's own
// value, else the shared email and the shared scopes when they are set (`[]` too: VMs without scopes, as
// before roles existed), else the role's minimal default scopes. A state written before roles existed keeps
// its shared scopes, so its VMs keep the identity they run with instead of planning a replacement.
func (p *planner) planServiceAccount(ctx context.Context) {
	sa := serviceAccountModel{Email: types.StringUnknown(), Scopes: types.ListUnknown(types.StringType)}
	if known(p.plan.ServiceAccount) {
		p.diags.Append(p.plan.ServiceAccount.As(ctx, &sa, tfutil.ObjectOpts)...)
	}
	if !known(sa.Email) {
		sa.Email = types.StringValue("default")
	}
	shared := p.configuredServiceAccountScopes()
	if !shared {
		sa.Scopes = types.ListValueMust(types.StringType, []attr.Value{})
		if st, legacy := p.stateScopes(ctx); st != nil {
			sa.Scopes, shared = *st, legacy || len(st.Elements()) > 0
		}
	} else if sa.Scopes.IsNull() {
		sa.Scopes = types.ListValueMust(types.StringType, []attr.Value{})
	}
	p.checkIdentity(ctx, "service_account", sa)
	var d diag.Diagnostics
	p.plan.ServiceAccount, d = types.ObjectValueFrom(ctx, serviceAccountAttrTypes, sa)
	p.diags.Append(d...)

	var roles serviceAccountsModel
	if known(p.plan.ServiceAccounts) {
		p.diags.Append(p.plan.ServiceAccounts.As(ctx, &roles, tfutil.ObjectOpts)...)
	}
	roles.Controller = p.planRole(ctx, clusterconfig.RoleController, roles.Controller, sa, shared)
	roles.Compute = p.planRole(ctx, clusterconfig.RoleCompute, roles.Compute, sa, shared)
	roles.Login = p.planRole(ctx, clusterconfig.RoleLogin, roles.Login, sa, shared)
	p.plan.ServiceAccounts, d = types.ObjectValueFrom(ctx, serviceAccountsAttrTypes, roles)
	p.diags.Append(d...)

	var ctl serviceAccountModel
	p.diags.Append(roles.Controller.As(ctx, &ctl, tfutil.ObjectOpts)...)
	if known(ctl.Scopes) {
		scopes := stringList(ctx, ctl.Scopes, p.diags)
		if !slices.Contains(scopes, scopeCompute) && !slices.Contains(scopes, scopeCloudPlatform) {
			p.diags.AddAttributeWarning(tfutil.AttrPath("service_accounts.controller.scopes"), "No Compute scope",
				"service_accounts.controller.scopes: neither compute nor cloud-platform is listed, so the controller cannot create, repair or delete nodes: "+
					"partitions with dynamic nodes will not power up and health repairs will fail.")
		}
	}
}

// configuredServiceAccountScopes: service_account.scopes is set in the configuration (to a value not yet
// known, when the plan's is unknown).
func (p *planner) configuredServiceAccountScopes() bool {
	if p.configSA.IsUnknown() {
		return true
	}
	return !p.configSA.IsNull() && !p.configSA.Attributes()["scopes"].IsNull()
}

// roleIdentity is role's identity in m ({email, scopes}); a model written before service_accounts ran every
// role as service_account.
func roleIdentity(ctx context.Context, m *model, role clusterconfig.Role, diags *diag.Diagnostics) types.Object {
	if m.ServiceAccounts.IsNull() {
		return m.ServiceAccount
	}
	if m.ServiceAccounts.IsUnknown() {
		return types.ObjectUnknown(serviceAccountAttrTypes)
	}
	var roles serviceAccountsModel
	diags.Append(m.ServiceAccounts.As(ctx, &roles, tfutil.ObjectOpts)...)
	switch role {
	case clusterconfig.RoleController:
		return roles.Controller
	case clusterconfig.RoleLogin:
		return roles.Login
	default:
		return roles.Compute
	}
}

// stateScopes are the state's shared scopes, which a configuration that leaves them out keeps (removing
// them never changes the VMs), and whether the state predates service_accounts: such a cluster runs every VM
// with exactly those scopes, empty or not.
func (p *planner) stateScopes(ctx context.Context) (*types.List, bool) {
	if !p.hasState || !known(p.state.ServiceAccount) {
		return nil, false
	}
	var st serviceAccountModel
	p.diags.Append(p.state.ServiceAccount.As(ctx, &st, tfutil.ObjectOpts)...)
	if !known(st.Scopes) {
		return nil, false
	}
	return &st.Scopes, p.state.ServiceAccounts.IsNull()
}

// planRole resolves one role's identity from what the plan holds for it.
func (p *planner) planRole(ctx context.Context, role clusterconfig.Role, v types.Object, shared serviceAccountModel, sharedScopes bool) types.Object {
	r := serviceAccountModel{Email: types.StringUnknown(), Scopes: types.ListUnknown(types.StringType)}
	if known(v) {
		p.diags.Append(v.As(ctx, &r, tfutil.ObjectOpts)...)
	}
	attr := "service_accounts." + string(role)
	p.checkIdentity(ctx, attr, r)
	if !known(r.Email) {
		r.Email = shared.Email
	}
	if r.Scopes.IsNull() || r.Scopes.IsUnknown() {
		switch {
		case sharedScopes:
			r.Scopes = shared.Scopes
		default:
			var d diag.Diagnostics
			r.Scopes, d = types.ListValueFrom(ctx, types.StringType, roleDefaultScopes[role])
			p.diags.Append(d...)
		}
	}
	out, d := types.ObjectValueFrom(ctx, serviceAccountAttrTypes, r)
	p.diags.Append(d...)
	return out
}

// checkIdentity refuses, at plan, an email that is neither "default" nor an address and scopes that are not
// Google OAuth scope URLs (Compute refuses them only at insert, after other VMs were made).
func (p *planner) checkIdentity(ctx context.Context, attrPath string, sa serviceAccountModel) {
	if known(sa.Email) {
		if e := sa.Email.ValueString(); e != "default" && !emailRE.MatchString(e) {
			p.invalid(attrPath+".email", `%q is not a service account email: use "default" (the project's Compute Engine default service account) or NAME@PROJECT.iam.gserviceaccount.com`, e)
		}
	}
	if !known(sa.Scopes) {
		return
	}
	seen := map[string]bool{}
	for i, s := range stringList(ctx, sa.Scopes, p.diags) {
		switch {
		case !scopeRE.MatchString(s):
			hint := ""
			if scopeNameRE.MatchString(s) {
				hint = fmt.Sprintf(" (did you mean %q?)", scopeURLPrefix+s)
			}
			p.invalid(fmt.Sprintf("%s.scopes[%d]", attrPath, i), "%q is not an OAuth scope URL of the form %s<scope>%s", s, scopeURLPrefix, hint)
		case seen[s]:
			p.invalid(fmt.Sprintf("%s.scopes[%d]", attrPath, i), "%q is listed twice", s)
		}
		seen[s] = true
	}
}

const scopeURLPrefix = "https://www.googleapis.com/auth/"

var (
	emailRE     = regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$`)
	scopeNameRE = regexp.MustCompile(`^[a-z][a-z0-9._-]*$`)
	scopeRE     = regexp.MustCompile(`^https://www\.googleapis\.com/auth/[a-z][a-z0-9._-]*$`)
)

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
