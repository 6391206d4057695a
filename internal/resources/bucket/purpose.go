package bucket

import (
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// Purposes and the defaults each sets; every one is overridable attribute by attribute.
const (
	purposeCheckpoints = "checkpoints"
	purposeDatasets    = "datasets"
	purposeGeneral     = "general"
)

var purposes = []string{purposeCheckpoints, purposeDatasets, purposeGeneral}

// defaults are the settings a purpose implies.
type defaults struct {
	hns, autoclass, uniform bool
	softDelete              time.Duration
}

// purposeDefaults: checkpoints get a hierarchical namespace (atomic folder renames and fast listing, which
// checkpoint writers and gcsfuse rely on) and no soft delete (checkpoints are rewritten often; keeping every
// deleted one for a week is paid storage); datasets get Autoclass (read-mostly data cools down by itself).
// Every purpose gets uniform bucket-level access (IAM only, no object ACLs), which a hierarchical namespace
// requires anyway.
func purposeDefaults(purpose string) defaults {
	switch purpose {
	case purposeCheckpoints:
		return defaults{hns: true, uniform: true}
	case purposeDatasets:
		return defaults{autoclass: true, uniform: true, softDelete: catalog.SoftDeleteDefault}
	default:
		return defaults{uniform: true, softDelete: catalog.SoftDeleteDefault}
	}
}

// inferPurpose names the purpose whose defaults an imported bucket looks like.
func inferPurpose(hns, autoclass bool) string {
	switch {
	case hns:
		return purposeCheckpoints
	case autoclass:
		return purposeDatasets
	}
	return purposeGeneral
}
