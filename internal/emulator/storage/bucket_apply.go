package storage

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// uniformAccessLock is how long after turning uniform bucket-level access on it can still be turned off.
const uniformAccessLock = 90 * 24 * time.Hour

// apply sets the fields the request names on b and checks the result against the catalog's bucket rules.
func (req *bucketRequest) apply(b *Bucket, now time.Time, existing bool) error {
	if req.Location != nil && !existing {
		loc := strings.ToUpper(*req.Location)
		if catalog.ValidateBucketLocation(loc) != nil {
			return badRequest("invalid", "The specified location constraint is not valid.")
		}
		b.Location = loc
	}
	b.LocationType, _ = catalog.BucketLocationType(b.Location)
	b.RPO = ""
	if b.LocationType != "region" {
		b.RPO = "DEFAULT"
		if req.RPO != nil && *req.RPO != "" {
			if *req.RPO != "DEFAULT" && *req.RPO != "ASYNC_TURBO" {
				return badRequest("invalid", fmt.Sprintf("Invalid value for rpo: '%s'.", *req.RPO))
			}
			b.RPO = *req.RPO
		}
	}
	if req.StorageClass != nil {
		if catalog.ValidateBucketStorageClass(*req.StorageClass) != nil {
			return badRequest("invalid", "The specified storage class is not valid.")
		}
		b.StorageClass = *req.StorageClass
	}
	if req.Labels != nil {
		if b.Labels == nil {
			b.Labels = map[string]string{}
		}
		for k, v := range req.Labels {
			if v == nil {
				delete(b.Labels, k)
			} else {
				b.Labels[k] = *v
			}
		}
		if len(b.Labels) == 0 {
			b.Labels = nil
		}
		if err := catalog.ValidateLabels(b.Labels); err != nil {
			return badRequest("invalid", err.Error())
		}
	}
	if ic := req.IAMConfiguration; ic != nil {
		var on *bool
		if ic.BucketPolicyOnly != nil && ic.BucketPolicyOnly.Enabled != nil {
			on = ic.BucketPolicyOnly.Enabled
		}
		if ic.UniformBucketLevelAccess != nil && ic.UniformBucketLevelAccess.Enabled != nil {
			on = ic.UniformBucketLevelAccess.Enabled
		}
		if on != nil && *on != b.uniformAccess() {
			ua := &UniformAccess{Enabled: *on}
			if *on {
				ua.LockedTime = timestamp(now.Add(uniformAccessLock))
			} else if locked, err := time.Parse(time.RFC3339, b.IAMConfiguration.UniformBucketLevelAccess.LockedTime); err == nil && now.After(locked) {
				return badRequest("invalid", "Uniform bucket-level access cannot be disabled after it has been enabled for 90 days.")
			}
			b.IAMConfiguration.UniformBucketLevelAccess, b.IAMConfiguration.BucketPolicyOnly = ua, ua
		}
		if ic.PublicAccessPrevention != nil {
			if p := *ic.PublicAccessPrevention; p != "inherited" && p != "enforced" {
				return badRequest("invalid", fmt.Sprintf("Invalid value for publicAccessPrevention: '%s'.", p))
			}
			b.IAMConfiguration.PublicAccessPrevention = *ic.PublicAccessPrevention
		}
	}
	if ac := req.Autoclass; ac != nil && ac.Enabled != nil {
		if *ac.Enabled != b.autoclass() || b.Autoclass == nil {
			b.Autoclass = &Autoclass{Enabled: *ac.Enabled, ToggleTime: timestamp(now)}
		}
		if b.Autoclass.Enabled {
			terminal := "NEARLINE"
			if ac.TerminalStorageClass != nil && *ac.TerminalStorageClass != "" {
				terminal = *ac.TerminalStorageClass
			} else if b.Autoclass.TerminalStorageClass != "" {
				terminal = b.Autoclass.TerminalStorageClass
			}
			if terminal != "NEARLINE" && terminal != "ARCHIVE" {
				return badRequest("invalid", fmt.Sprintf("Invalid value for autoclass.terminalStorageClass: '%s'. It must be NEARLINE or ARCHIVE.", terminal))
			}
			if terminal != b.Autoclass.TerminalStorageClass {
				b.Autoclass.TerminalStorageClass, b.Autoclass.TerminalStorageClassUpdateTime = terminal, timestamp(now)
			}
		} else {
			b.Autoclass.TerminalStorageClass, b.Autoclass.TerminalStorageClassUpdateTime = "", ""
		}
	}
	if sd := req.SoftDeletePolicy; sd != nil && sd.RetentionDurationSeconds != nil {
		secs := int64(*sd.RetentionDurationSeconds)
		if catalog.ValidateSoftDeleteRetention(time.Duration(secs)*time.Second) != nil {
			return badRequest("invalid", fmt.Sprintf("Invalid argument: soft delete retention duration %d s must be 0 or between %d and %d seconds.",
				secs, int64(catalog.SoftDeleteMin/time.Second), int64(catalog.SoftDeleteMax/time.Second)))
		}
		b.SoftDeletePolicy = &SoftDeletePolicy{RetentionDurationSeconds: strconv.FormatInt(secs, 10)}
		if secs > 0 {
			b.SoftDeletePolicy.EffectiveTime = timestamp(now)
		}
	}
	if req.Versioning != nil && req.Versioning.Enabled != nil {
		b.Versioning = &Versioning{Enabled: *req.Versioning.Enabled}
	}
	if len(req.Lifecycle) > 0 {
		b.Lifecycle = req.Lifecycle
		if string(req.Lifecycle) == "null" {
			b.Lifecycle = nil
		}
	}
	if len(req.IPFilter) > 0 {
		b.IPFilter = req.IPFilter
		if string(req.IPFilter) == "null" {
			b.IPFilter = nil
		}
	}
	for kind, sent := range map[aclKind]*[]AccessControl{bucketACL: req.ACL, defaultObjectACL: req.DefaultObjectACL} {
		if sent == nil {
			continue
		}
		if err := checkACL(kind, *sent); err != nil {
			return err
		}
		list := b.entries(kind)
		*list = nil
		for _, a := range *sent {
			*list = append(*list, AccessControl{Entity: a.Entity, Role: a.Role})
		}
	}
	if (req.ACL != nil || req.DefaultObjectACL != nil) && b.uniformAccess() {
		return uniformAccessACL(true)
	}
	// Autoclass manages the storage class: a bucket created with it starts STANDARD whatever class the
	// request named (the real API accepts the request and answers STANDARD).
	if !existing && b.autoclass() {
		b.StorageClass = "STANDARD"
	}
	if err := catalog.ValidateBucketFeatures(b.StorageClass, b.autoclass(), b.hns(), b.uniformAccess()); err != nil {
		if b.hns() && !b.uniformAccess() {
			return badRequest("invalid", "Hierarchical namespace requires uniform bucket-level access to be enabled.")
		}
		return badRequest("invalid", "Autoclass requires the bucket's storage class to be STANDARD.")
	}
	if catalog.ValidateBucketVersioning(b.versioning(), b.hns()) != nil {
		return badRequest("invalid", "Object versioning is not supported for buckets with hierarchical namespace enabled.")
	}
	return nil
}
