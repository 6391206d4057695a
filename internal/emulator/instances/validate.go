package instances

import (
	"fmt"
	"regexp"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// Metadata limits (gcp-apis.md).
const (
	metadataKeyPattern  = `[a-zA-Z0-9-_]{1,128}`
	maxMetadataValue    = 262144
	maxMetadataTotal    = 512 * 1024
	metadataFingerprint = "Supplied fingerprint does not match current metadata fingerprint."
	labelsFingerprint   = "Labels fingerprint either invalid or resource labels have changed"
)

var (
	metadataKeyRE = regexp.MustCompile(`^` + metadataKeyPattern + `$`)
)

// validateMetadata checks keys, value sizes, the total size and duplicates; field is the request path of the
// metadata object ("resource.metadata", "metadata").
func validateMetadata(field string, md *computepb.Metadata) *core.APIError {
	total := 0
	seen := map[string]bool{}
	for i, it := range md.GetItems() {
		k := it.GetKey()
		if !metadataKeyRE.MatchString(k) {
			return core.Invalid(fmt.Sprintf("Invalid value for field '%s.items[%d].key': '%s'. Must be a match of regex '%s'", field, i, k, metadataKeyPattern))
		}
		if seen[k] {
			return core.Invalid(fmt.Sprintf("Invalid value for field '%s.items[%d].key': '%s'. Duplicate metadata key.", field, i, k))
		}
		seen[k] = true
		if n := len(it.GetValue()); n > maxMetadataValue {
			return core.Invalid(fmt.Sprintf("Invalid value for field '%s.items[%d].value': the value of metadata key '%s' is %d bytes long; the limit is %d bytes.", field, i, k, n, maxMetadataValue))
		}
		total += len(k) + len(it.GetValue())
	}
	if total >= maxMetadataTotal {
		return core.Invalid(fmt.Sprintf("Invalid value for field '%s': metadata keys and values total %d bytes; the limit is %d bytes (512 KB).", field, total, maxMetadataTotal))
	}
	return nil
}

// validateLabels applies Google Cloud's label rules (one table, in the catalog); field is the request path of the
// labels map.
func validateLabels(field string, labels map[string]string) *core.APIError {
	if err := catalog.ValidateLabels(labels); err != nil {
		return core.Invalid(fmt.Sprintf("Invalid value for field '%s': %v", field, err))
	}
	return nil
}

// normalizeMetadata fills the server-owned fields of a metadata object with a fresh fingerprint.
func (s *Service) normalizeMetadata(md *computepb.Metadata) *computepb.Metadata {
	if md == nil {
		md = &computepb.Metadata{}
	}
	md.Kind = proto.String("compute#metadata")
	md.Fingerprint = proto.String(s.randomFingerprint())
	return md
}

var hostnameLabelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// validateHostname applies the custom hostname rules: a fully qualified name of at least two labels, at most 253
// characters.
func validateHostname(field, h string) *core.APIError {
	labels := strings.Split(h, ".")
	ok := len(h) <= 253 && len(labels) >= 2
	for _, l := range labels {
		ok = ok && hostnameLabelRE.MatchString(l)
	}
	if !ok {
		return core.Invalid(fmt.Sprintf("Invalid value for field '%s': '%s'. Must be a fully qualified domain name of at least two labels, each matching '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?', 253 characters at most.", field, h))
	}
	return nil
}
