package recipejob

import (
	"fmt"
	"path"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/resources/internal/tfutil"
)

// jobID is the resource's id and import id.
func jobID(c cc.ClusterID, name string) string { return c.Child("jobs", name) }

// ownedKey is the job's key on the controller, as a create claims it (tfutil.OwnedKey).
func ownedKey(c cc.ClusterID, name string) tfutil.OwnedKey {
	return tfutil.OwnedKey{Type: "hypercompute_recipe_job", What: "recipe job", Cluster: c, Name: name,
		Key: cc.JobKey(name), ImportID: jobID(c, name)}
}

// parseImportID reads {cluster id}/jobs/{name}, or {cluster}/{name} with the
// cluster named in the provider's project and zone.
func parseImportID(id, project, zone string) (cc.ClusterID, string, error) {
	var ref cc.ClusterID
	var name string
	var err error
	if strings.Contains(id, "/jobs/") {
		ref, name, err = cc.ParseChildID(id, "jobs")
	} else if c, n, ok := strings.Cut(id, "/"); ok && !strings.Contains(n, "/") {
		if project == "" || zone == "" {
			return cc.ClusterID{}, "", fmt.Errorf("import ID %q names the cluster without project and zone, and the provider sets no default; use projects/{project}/zones/{zone}/clusters/{cluster}/jobs/{name}", id)
		}
		ref, name = cc.ClusterID{Project: project, Zone: zone, Name: c}, n
		err = cc.ValidateClusterName(c)
	} else {
		return cc.ClusterID{}, "", fmt.Errorf("expected {cluster}/{job name} or projects/{project}/zones/{zone}/clusters/{cluster}/jobs/{name}; got %q", id)
	}
	if err != nil {
		return cc.ClusterID{}, "", err
	}
	if err := cc.ValidateJobName(name); err != nil {
		return cc.ClusterID{}, "", err
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
