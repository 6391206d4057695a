package nodepartition

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// Everything a partition owns has a name derived from the cluster's and the partition's, so Read,
// import and a second apply after a crash find it all without state: VMs <prefix>-<i> (the Slurm
// node names), the instance template <prefix>-<content hash>, the placement policy
// <prefix>-compact, and the label hypercompute-partition=<prefix> on every VM.

// Labels every VM of a partition carries; users cannot set them.
const (
	labelCluster   = "hypercompute-cluster"
	labelPartition = "hypercompute-partition"
)

// partitionID is the resource's id and import id.
func partitionID(c cc.ClusterID, name string) string { return c.Child("partitions", name) }

// parsePartitionID reads an import id: the resource id, or {cluster id}/partitions/{name}.
func parsePartitionID(id string) (cc.ClusterID, string, error) {
	ref, name, err := cc.ParseChildID(id, "partitions")
	if err != nil {
		return cc.ClusterID{}, "", err
	}
	if err := catalog.ValidateSlurmPartitionName(name); err != nil {
		return cc.ClusterID{}, "", err
	}
	return ref, name, nil
}

// maxDerivedBase keeps <base>-<suffix> within Compute's 63 characters for the longest suffix
// ("-" + 12 hex digits of a template hash).
const maxDerivedBase = 63 - 13

func derivedBase(prefix string) string {
	if len(prefix) <= maxDerivedBase {
		return prefix
	}
	return strings.TrimRight(prefix[:maxDerivedBase], "-")
}

// templateName names an instance template by its content, so a changed template is a new one and
// an unchanged one is found again (templates are immutable).
func templateName(prefix string, content []byte) string {
	sum := sha256.Sum256(content)
	return derivedBase(prefix) + "-" + hex.EncodeToString(sum[:6])
}

// templateFilter matches every template a partition may have made.
func templateFilter(prefix string) string {
	return fmt.Sprintf("name eq \"%s-[0-9a-f]{12}\"", derivedBase(prefix))
}

func placementPolicyName(prefix string) string { return derivedBase(prefix) + "-compact" }

func templatePath(project, name string) string {
	return "projects/" + project + "/global/instanceTemplates/" + name
}

func splitPath(s string) []string { return strings.Split(s, "/") }

// regionOfLink reads the region of a regional self link (".../regions/R/subnetworks/S").
func regionOfLink(link string) string {
	parts := splitPath(link)
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "regions" {
			return parts[i+1]
		}
	}
	return ""
}
