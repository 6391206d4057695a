package clusterconfig

import (
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// ClusterID names a training cluster the way hypercompute_training_cluster's id does:
// projects/{project}/zones/{zone}/clusters/{name}. Partitions, jobs, health policies and the data
// sources that read a cluster all take it, so it is parsed here once.
type ClusterID struct{ Project, Zone, Name string }

func (c ClusterID) String() string {
	return "projects/" + c.Project + "/zones/" + c.Zone + "/clusters/" + c.Name
}

// ParseClusterID reads a cluster id; errors say what form is expected.
func ParseClusterID(id string) (ClusterID, error) {
	p := strings.Split(id, "/")
	if len(p) != 6 || p[0] != "projects" || p[2] != "zones" || p[4] != "clusters" || p[1] == "" {
		return ClusterID{}, fmt.Errorf("%q is not a training cluster id; use hypercompute_training_cluster.<name>.id (projects/{project}/zones/{zone}/clusters/{name})", id)
	}
	c := ClusterID{Project: p[1], Zone: p[3], Name: p[5]}
	if err := catalog.ValidateZone(c.Zone); err != nil {
		return ClusterID{}, fmt.Errorf("cluster id %q: %w", id, err)
	}
	if err := ValidateClusterName(c.Name); err != nil {
		return ClusterID{}, fmt.Errorf("cluster id %q: %w", id, err)
	}
	return c, nil
}

// Controller is the name of the cluster's controller VM.
func (c ClusterID) Controller() string { return ControllerName(c.Name) }

// Child is the id of something a cluster holds: {cluster id}/{collection}/{name}, e.g. a
// partition (partitions), a recipe job (jobs) or a health policy (healthPolicies).
func (c ClusterID) Child(collection, name string) string {
	return c.String() + "/" + collection + "/" + name
}

// ParseChildID reads an id Child made: the cluster's id and the child's name.
func ParseChildID(id, collection string) (ClusterID, string, error) {
	sep := "/" + collection + "/"
	i := strings.LastIndex(id, sep)
	if i < 0 {
		return ClusterID{}, "", fmt.Errorf("expected projects/{project}/zones/{zone}/clusters/{cluster}%s{name}; got %q", sep, id)
	}
	c, err := ParseClusterID(id[:i])
	if err != nil {
		return ClusterID{}, "", err
	}
	return c, id[i+len(sep):], nil
}
