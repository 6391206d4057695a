package catalog

import (
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Google Cloud's label rules, the same for Compute Engine, Filestore and
// Managed Lustre (public "Labels" documentation; gcp-apis.md only names the
// labels fields): at most 64 labels on a resource; keys 1-63 characters and
// values 0-63 characters of lowercase letters, digits, '_' and '-', where
// letters without case (international characters such as 日本) count as
// lowercase; a key starts with a lowercase letter. Lengths count characters,
// not bytes.
const (
	MaxLabels        = 64
	MaxLabelKeyLen   = 63
	MaxLabelValueLen = 63
)

// CreateMarkerLabel is the label key the provider keeps to itself: the insert of a Filestore or
// Managed Lustre instance, a bucket or a training cluster's VMs carries it until the create
// finished (tfutil's label ownership), so neither a resource's labels nor the provider's
// default_labels may set it.
const CreateMarkerLabel = "hypercompute-create"

// ReservedLabelKey is why labels a user sets (a resource's labels, the provider's default_labels)
// may not carry CreateMarkerLabel.
var ReservedLabelKey = fmt.Sprintf("label key %q is reserved: the provider sets it on what it creates (a Filestore or "+
	"Managed Lustre instance, a bucket, a cluster's VMs) while the create has not finished, to tell its own half-made object from someone else's; choose another key",
	CreateMarkerLabel)

// ValidateLabels checks a resource's labels against Google Cloud's rules
// and returns an error naming the first offending key (in sorted order, so
// the same map always gives the same message), or nil.
func ValidateLabels(labels map[string]string) error {
	if len(labels) > MaxLabels {
		return fmt.Errorf("%d labels are set; a resource may carry at most %d", len(labels), MaxLabels)
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if why := labelKeyRule(k); why != "" {
			return fmt.Errorf("label key %q is invalid: %s; keys must be 1-%d characters, start with a lowercase letter and contain only lowercase letters, digits, '_' and '-'", k, why, MaxLabelKeyLen)
		}
		if why := labelValueRule(labels[k]); why != "" {
			return fmt.Errorf("the value %q of label %q is invalid: %s; values must be 0-%d characters of lowercase letters, digits, '_' and '-'", labels[k], k, why, MaxLabelValueLen)
		}
	}
	return nil
}

// labelKeyRule explains the first rule a key breaks ("" when it breaks none).
func labelKeyRule(k string) string {
	if k == "" {
		return "it is empty"
	}
	if n := utf8.RuneCountInString(k); n > MaxLabelKeyLen {
		return fmt.Sprintf("it is %d characters long", n)
	}
	if why := labelCharsRule(k); why != "" {
		return why
	}
	if r, _ := utf8.DecodeRuneInString(k); !isLabelLetter(r) {
		return "it does not start with a lowercase letter"
	}
	return ""
}

func labelValueRule(v string) string {
	if n := utf8.RuneCountInString(v); n > MaxLabelValueLen {
		return fmt.Sprintf("it is %d characters long", n)
	}
	return labelCharsRule(v)
}

func labelCharsRule(s string) string {
	if !utf8.ValidString(s) {
		return "it is not valid UTF-8"
	}
	for _, r := range s {
		switch {
		case isLabelLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-':
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			return "it contains uppercase letters"
		default:
			return fmt.Sprintf("it contains %q", r)
		}
	}
	return ""
}

// isLabelLetter: a lowercase letter, or a letter that has no case at all
// (Google's \p{Ll}\p{Lo}); digits are any \p{N}.
func isLabelLetter(r rune) bool {
	return unicode.IsLower(r) || unicode.In(r, unicode.Lo)
}
