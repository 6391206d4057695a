package lustre

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// stringCheck adapts a plain func to a framework string validator so each rule reads as one function.
type stringCheck struct {
	desc  string
	check func(string) error
}

func (v stringCheck) Description(context.Context) string         { return v.desc }
func (v stringCheck) MarkdownDescription(context.Context) string { return v.desc }
func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		// Terraform does not print the path of a nested attribute, so the message names it.
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), withPath(req.Path.String(), err.Error()))
	}
}

// withPath starts msg with the attribute path unless it already names it.
func withPath(p, msg string) string {
	if strings.HasPrefix(msg, p+" ") || strings.HasPrefix(msg, p+":") {
		return msg
	}
	return p + ": " + msg
}

func nameValidator() validator.String {
	return stringCheck{desc: "an instance ID: RFC 1035, 1-63 characters", check: catalog.ValidateLustreInstanceID}
}

func zoneValidator() validator.String {
	return stringCheck{desc: "a zone", check: catalog.ValidateZone}
}

func filesystemValidator() validator.String {
	return stringCheck{desc: "1-8 letters or digits", check: catalog.ValidateLustreFilesystem}
}

func networkValidator() validator.String {
	return stringCheck{desc: "a network name, ID or self link", check: func(s string) error {
		_, _, err := parseNetwork(s, "")
		return err
	}}
}

const computeV1 = "https://www.googleapis.com/compute/v1/"

// parseNetwork reads a network given as a name, "global/networks/N", "projects/P/global/networks/N"
// or a Compute self link. project is "" when the reference does not name one.
func parseNetwork(ref, defaultProject string) (project, name string, err error) {
	rel := strings.TrimPrefix(strings.TrimPrefix(ref, computeV1), "https://compute.googleapis.com/compute/v1/")
	parts := strings.Split(rel, "/")
	switch {
	case len(parts) == 1:
		project, name = defaultProject, parts[0]
	case len(parts) == 3 && parts[0] == "global" && parts[1] == "networks":
		project, name = defaultProject, parts[2]
	case len(parts) == 5 && parts[0] == "projects" && parts[1] != "" && parts[2] == "global" && parts[3] == "networks":
		project, name = parts[1], parts[4]
	default:
		return "", "", fmt.Errorf("%q is not a network name, an ID projects/{project}/global/networks/{name} or a self link", ref)
	}
	if err := catalog.ValidateResourceName(name); err != nil {
		return "", "", fmt.Errorf("%q does not name a valid network: %v", ref, err)
	}
	return project, name, nil
}

// networkPath is the form the API is sent: projects/{project}/global/networks/{name}.
func networkPath(ref, defaultProject string) string {
	p, n, err := parseNetwork(ref, defaultProject)
	if err != nil {
		return ref
	}
	return "projects/" + p + "/global/networks/" + n
}

// sameNetwork reports whether two references name the same network.
func sameNetwork(a, b, defaultProject string) bool {
	return networkPath(a, defaultProject) == networkPath(b, defaultProject)
}

// networkRef is how a network the API answers is shown when the configuration gives no form to
// keep: the bare name inside the instance's project, the ID otherwise.
func networkRef(apiValue, project string) string {
	p, n, err := parseNetwork(apiValue, project)
	if err != nil {
		return apiValue
	}
	if p == project {
		return n
	}
	return "projects/" + p + "/global/networks/" + n
}
