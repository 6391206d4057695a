package catalog

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Cloud Storage bucket rules, read by the provider's plan checks and by the emulator's storage API alike
// (https://cloud.google.com/storage/docs/buckets, /locations, /storage-classes, /soft-delete, /autoclass).

// BucketStorageClasses are the storage classes a bucket may have. The legacy MULTI_REGIONAL, REGIONAL and
// DURABLE_REDUCED_AVAILABILITY are accepted by the API but not offered here.
var bucketStorageClasses = []string{"STANDARD", "NEARLINE", "COLDLINE", "ARCHIVE"}

// BucketStorageClasses returns the storage classes, cheapest access first.
func BucketStorageClasses() []string { return slices.Clone(bucketStorageClasses) }

// AutoclassTerminalClasses are the classes Autoclass may move objects down to; it requires the bucket's own
// class to be STANDARD.
var autoclassTerminalClasses = []string{"NEARLINE", "ARCHIVE"}

// AutoclassTerminalClasses returns the terminal storage classes Autoclass accepts (default NEARLINE).
func AutoclassTerminalClasses() []string { return slices.Clone(autoclassTerminalClasses) }

// Multi-regions and predefined dual-regions (upper case, as the API answers them).
var (
	bucketMultiRegions = []string{"US", "EU", "ASIA"}
	bucketDualRegions  = []string{"ASIA1", "EUR4", "EUR5", "EUR7", "EUR8", "NAM4"}
)

// Soft delete retention bounds: 0 turns soft delete off, otherwise 7 to 90 days; new buckets get 7 days.
const (
	SoftDeleteMin     = 7 * 24 * time.Hour
	SoftDeleteMax     = 90 * 24 * time.Hour
	SoftDeleteDefault = SoftDeleteMin
)

// DefaultBucketLocation is the location the API gives a bucket created without one.
const DefaultBucketLocation = "US"

// BucketLocationType is the API's locationType for a location ("region", "dual-region", "multi-region"), or
// false for a location Cloud Storage does not offer (regions are the catalog's).
func BucketLocationType(location string) (string, bool) {
	up := strings.ToUpper(location)
	switch {
	case slices.Contains(bucketMultiRegions, up):
		return "multi-region", true
	case slices.Contains(bucketDualRegions, up):
		return "dual-region", true
	case IsRegion(strings.ToLower(location)):
		return "region", true
	}
	return "", false
}

// ValidateBucketLocation returns a user-facing error for a location Cloud Storage does not offer.
func ValidateBucketLocation(location string) error {
	if _, ok := BucketLocationType(location); ok {
		return nil
	}
	return fmt.Errorf("location %q is not a Cloud Storage location: use a region (%s), a dual-region (%s) or a multi-region (%s)",
		location, strings.Join(Regions(), ", "), strings.Join(bucketDualRegions, ", "), strings.Join(bucketMultiRegions, ", "))
}

// ValidateBucketStorageClass returns a user-facing error for an unknown storage class.
func ValidateBucketStorageClass(class string) error {
	if slices.Contains(bucketStorageClasses, class) {
		return nil
	}
	return fmt.Errorf("storage class %q is not one of %s", class, strings.Join(bucketStorageClasses, ", "))
}

// ValidateSoftDeleteRetention checks a soft delete retention duration.
func ValidateSoftDeleteRetention(d time.Duration) error {
	if d == 0 || (d >= SoftDeleteMin && d <= SoftDeleteMax) {
		return nil
	}
	return fmt.Errorf("soft delete retention %s is out of range: 0 (off) or 7 to 90 days (%d to %d seconds)",
		d, int64(SoftDeleteMin/time.Second), int64(SoftDeleteMax/time.Second))
}

// ValidateBucketFeatures checks the rules that tie a bucket's settings together: hierarchical namespace needs
// uniform bucket-level access, and Autoclass needs the STANDARD class.
func ValidateBucketFeatures(storageClass string, autoclass, hierarchicalNamespace, uniformAccess bool) error {
	if hierarchicalNamespace && !uniformAccess {
		return fmt.Errorf("hierarchical namespace requires uniform bucket-level access")
	}
	if autoclass && storageClass != "" && storageClass != "STANDARD" {
		return fmt.Errorf("autoclass requires the STANDARD storage class, not %s (Autoclass moves objects between classes itself)", storageClass)
	}
	return nil
}

// ValidateBucketVersioning checks object versioning against the bucket's namespace: Cloud Storage keeps no
// noncurrent generations in a bucket with a hierarchical namespace, so it refuses versioning there.
func ValidateBucketVersioning(versioning, hierarchicalNamespace bool) error {
	if versioning && hierarchicalNamespace {
		return fmt.Errorf("object versioning is not supported on a bucket with a hierarchical namespace")
	}
	return nil
}

var (
	bucketNameChars = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*[a-z0-9]$`)
	dottedQuad      = regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`)
)

// ValidateBucketName checks a bucket name against Cloud Storage's naming rules.
func ValidateBucketName(name string) error {
	if why := bucketNameRule(name); why != "" {
		return fmt.Errorf("bucket name %q is invalid: %s", name, why)
	}
	return nil
}

func bucketNameRule(name string) string {
	switch {
	case len(name) < 3:
		return "it must be at least 3 characters long"
	case !bucketNameChars.MatchString(name):
		return "it may contain only lowercase letters, digits, dashes, underscores and dots, and must start and end with a letter or digit"
	case !strings.Contains(name, ".") && len(name) > 63:
		return "it must be at most 63 characters long (222 with dots, 63 per dot-separated part)"
	case len(name) > 222:
		return "it must be at most 222 characters long"
	case strings.HasPrefix(name, "goog"):
		return `it must not start with "goog"`
	case strings.Contains(name, "google") || strings.Contains(name, "g00gle"):
		return `it must not contain "google" or close misspellings`
	case dottedQuad.MatchString(name) && net.ParseIP(name) != nil:
		return "it must not be an IP address in dotted-decimal notation"
	case strings.Contains(name, ".."):
		return "dot-separated parts must not be empty"
	}
	for _, part := range strings.Split(name, ".") {
		if len(part) > 63 {
			return "each dot-separated part must be at most 63 characters long"
		}
	}
	return ""
}
