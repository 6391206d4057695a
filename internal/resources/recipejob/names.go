package recipejob

import (
	"fmt"
	"path"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// clusterRef is a parsed training cluster id, projects/P/zones/Z/clusters/NAME.
type clusterRef struct{ project, zone, name string }

func (c clusterRef) id() string {
	return fmt.Sprintf("projects/%s/zones/%s/clusters/%s", c.project, c.zone, c.name)
}

func (c clusterRef) controller() string { return cc.ControllerName(c.name) }

func (c clusterRef) cid() cc.ClusterID {
	return cc.ClusterID{Project: c.project, Zone: c.zone, Name: c.name}
}

// parseClusterID reads the id hypercompute_training_cluster exports.
func parseClusterID(id string) (clusterRef, error) {
	c, err := cc.ParseClusterID(id)
	return clusterRef{project: c.Project, zone: c.Zone, name: c.Name}, err
}

// jobID is the resource's id and import id.
func jobID(c clusterRef, name string) string { return c.id() + "/jobs/" + name }

// parseImportID reads {cluster id}/jobs/{name}, or {cluster}/{name} with the
// cluster named in the provider's project and zone.
func parseImportID(id, project, zone string) (clusterRef, string, error) {
	var ref clusterRef
	var name string
	var err error
	if i := strings.LastIndex(id, "/jobs/"); i >= 0 {
		ref, err = parseClusterID(id[:i])
		name = id[i+len("/jobs/"):]
	} else if c, n, ok := strings.Cut(id, "/"); ok && !strings.Contains(n, "/") {
		if project == "" || zone == "" {
			return clusterRef{}, "", fmt.Errorf("import ID %q names the cluster without project and zone, and the provider sets no default; use projects/{project}/zones/{zone}/clusters/{cluster}/jobs/{name}", id)
		}
		ref, name = clusterRef{project: project, zone: zone, name: c}, n
		err = cc.ValidateClusterName(c)
	} else {
		return clusterRef{}, "", fmt.Errorf("expected {cluster}/{job name} or projects/{project}/zones/{zone}/clusters/{cluster}/jobs/{name}; got %q", id)
	}
	if err != nil {
		return clusterRef{}, "", err
	}
	if err := cc.ValidateJobName(name); err != nil {
		return clusterRef{}, "", err
	}
	return ref, name, nil
}

// runDir is where a job's script, logs, metrics and Progress file live: on
// the cluster's /home, which every node mounts.
func runDir(m cc.Mounts, name string) string {
	return path.Join(m.SharedDir(), "jobs", name)
}

// defaultCheckpointDir is on the cluster's Lustre when it has one (the
// fast, large file system checkpoints are written to), else on /home.
func defaultCheckpointDir(m cc.Mounts, name string) string {
	if l := m.Lustre; l != nil {
		mp := l.MountPoint
		if mp == "" {
			mp = cc.DefaultLustreMountPoint
		}
		return path.Join(mp, "checkpoints", name)
	}
	return path.Join(m.HomeMountPoint(), "checkpoints", name)
}
