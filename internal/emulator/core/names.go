package core

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"
)

// ComputeBase is the prefix of every Compute selfLink. Real selfLinks use www.googleapis.com whatever endpoint the
// client talked to, and the provider stores them in state, so the emulator must produce the same strings.
const ComputeBase = "https://www.googleapis.com/compute/v1/"

// NameRegex is the RFC 1035 rule Compute applies to resource names.
const NameRegex = `(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)`

var nameRE = regexp.MustCompile(`^` + NameRegex + `$`)

// ValidName reports whether s is a valid Compute resource name.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// ValidateName returns the 400 Compute answers for a bad resource name, or nil. field is the request field
// path as the API names it, e.g. "resource.name".
func ValidateName(field, value string) *APIError {
	if ValidName(value) {
		return nil
	}
	if value == "" {
		return Invalid(fmt.Sprintf("Invalid value for field '%s': ''. Must be a match of regex '%s'", field, NameRegex))
	}
	return Invalid(fmt.Sprintf("Invalid value for field '%s': '%s'. Must be a match of regex '%s'", field, value, NameRegex))
}

// SelfLink turns a relative resource path ("projects/p/global/networks/n") into its Compute selfLink.
func SelfLink(path string) string { return ComputeBase + strings.TrimPrefix(path, "/") }

// RelativePath strips any scheme, host and "compute/v1/" prefix from a Compute reference, so full URLs and
// partial paths compare equal.
func RelativePath(ref string) string {
	if i := strings.Index(ref, "/compute/v1/"); i >= 0 {
		return ref[i+len("/compute/v1/"):]
	}
	if i := strings.Index(ref, "/compute/beta/"); i >= 0 {
		return ref[i+len("/compute/beta/"):]
	}
	return strings.TrimPrefix(ref, "/")
}

// Timestamp formats t the way Compute does ("2018-09-11T08:16:58.674-07:00").
func Timestamp(t time.Time) string { return t.Format("2006-01-02T15:04:05.000-07:00") }

// RFC3339 formats t the way the AIP-style APIs (Filestore, Lustre) do.
func RFC3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Fingerprint derives an opaque, content-dependent fingerprint in the form Compute uses (8 bytes, base64).
// Content-dependent means equal content gives equal fingerprints, which is what clients may observe too; callers
// that need a change on every write mix in a counter or time.
func Fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return base64.URLEncoding.EncodeToString(h.Sum(nil)[:8])
}

// ProjectNumber is the deterministic project number the emulator assigns to a project id. Service Networking and
// the Compute project resource both use it, so they agree without shared state.
func ProjectNumber(projectID string) string {
	h := fnv.New64a()
	h.Write([]byte(projectID))
	return fmt.Sprintf("%d", 100000000000+h.Sum64()%900000000000)
}
