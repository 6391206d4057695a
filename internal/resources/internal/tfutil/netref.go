package tfutil

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// ComputeV1 is the prefix of Compute Engine self links.
const ComputeV1 = "https://www.googleapis.com/compute/v1/"

// computeV1Alt is the other host Compute self links come with (the APIs accept and sometimes
// answer either).
const computeV1Alt = "https://compute.googleapis.com/compute/v1/"

// NetworkID is a VPC's relative name, projects/{project}/global/networks/{name}: what
// hypercompute_network exports as id and the form Filestore and Lustre are sent.
func NetworkID(project, name string) string {
	return "projects/" + project + "/global/networks/" + name
}

// ParseNetwork reads a network given as a name, "global/networks/N", "projects/P/global/networks/N"
// or a Compute self link, so a configuration may pass any output of hypercompute_network (or of the
// google provider). project is defaultProject when the reference does not name one.
func ParseNetwork(ref, defaultProject string) (project, name string, err error) {
	rel := strings.TrimPrefix(strings.TrimPrefix(ref, ComputeV1), computeV1Alt)
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

// NetworkValidator accepts every form ParseNetwork reads.
func NetworkValidator() validator.String {
	return StringCheck{Desc: "a network name, ID or self link", Check: func(s string) error {
		_, _, err := ParseNetwork(s, "")
		return err
	}}
}

// NetworkPath is the form the APIs are sent, projects/{project}/global/networks/{name}; a reference
// it cannot read is passed on as it is, for the API to refuse.
func NetworkPath(ref, defaultProject string) string {
	p, n, err := ParseNetwork(ref, defaultProject)
	if err != nil {
		return ref
	}
	return NetworkID(p, n)
}

// SameNetwork reports whether two references name the same network, whatever their forms.
func SameNetwork(a, b, defaultProject string) bool {
	return NetworkPath(a, defaultProject) == NetworkPath(b, defaultProject)
}

// NetworkRef is how a network the API answers is shown when the configuration gives no form to
// keep (import): the bare name inside the resource's project, the ID otherwise (a shared VPC).
func NetworkRef(apiValue, project string) string {
	p, n, err := ParseNetwork(apiValue, project)
	if err != nil {
		return apiValue
	}
	if p == project {
		return n
	}
	return NetworkID(p, n)
}
