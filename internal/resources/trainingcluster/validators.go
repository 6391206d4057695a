package trainingcluster

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// parseSubnet reads a subnet given as a self link or projects/{p}/regions/{r}/subnetworks/{n}.
func parseSubnet(ref string) (project, region, name string, err error) {
	rel := strings.TrimPrefix(strings.TrimPrefix(ref, tfutil.ComputeV1), "https://compute.googleapis.com/compute/v1/")
	parts := strings.Split(rel, "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[1] == "" || parts[2] != "regions" || parts[4] != "subnetworks" {
		return "", "", "", fmt.Errorf("%q is not a subnet self link or projects/{project}/regions/{region}/subnetworks/{name}", ref)
	}
	if !catalog.IsRegion(parts[3]) {
		return "", "", "", fmt.Errorf("%q names region %q, which is not known", ref, parts[3])
	}
	if err := catalog.ValidateResourceName(parts[5]); err != nil {
		return "", "", "", fmt.Errorf("%q does not name a valid subnet: %v", ref, err)
	}
	return parts[1], parts[3], parts[5], nil
}

func subnetValidator() validator.String {
	return tfutil.StringCheck{Desc: "a subnet self link", Check: func(s string) error {
		_, _, _, err := parseSubnet(s)
		return err
	}}
}

// loginLabelsValidator refuses the product's own label keys in login.labels: the cluster and role
// labels are how partitions, the agent and this resource find the VMs, and the creation marker is
// the provider's (tfutil/label_ownership.go).
type loginLabelsValidator struct{}

func (loginLabelsValidator) Description(context.Context) string {
	return "no label key starting with " + productLabelPrefix
}
func (v loginLabelsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (loginLabelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	var keys []string
	for k := range req.ConfigValue.Elements() {
		if strings.HasPrefix(k, productLabelPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		tfutil.AddInvalid(&resp.Diagnostics, req.Path, fmt.Sprintf("label %q: keys starting with %q are the provider's own (%s, %s, %s) and cannot be set",
			k, productLabelPrefix, labelCluster, labelRole, tfutil.CreateMarkerLabel))
	}
}

// maxLoginPoolNameLength keeps a pool's VM names (<cluster>-login-<pool>-<i>) within Compute's 63
// characters for the longest cluster name.
const maxLoginPoolNameLength = 63 - clusterconfig.MaxClusterNameLength - len("-login-") - len("-15")

var loginPoolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func validateLoginPoolName(name string) error {
	if !loginPoolNameRE.MatchString(name) || len(name) > maxLoginPoolNameLength {
		return fmt.Errorf("login pool name %q is invalid: use 1-%d lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen", name, maxLoginPoolNameLength)
	}
	return nil
}
