package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// ResourceNamePattern is Compute Engine's name regex exactly as its 400
// "Must be a match of regex" errors quote it (gcp-apis.md).
const ResourceNamePattern = `(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)`

var resourceNameRE = regexp.MustCompile(`^` + ResourceNamePattern + `$`)

// IsValidResourceName reports whether name matches ResourceNamePattern.
func IsValidResourceName(name string) bool { return resourceNameRE.MatchString(name) }

// ValidateResourceName checks a Compute Engine (and Filestore/Lustre
// instance) name: RFC 1035, 1-63 characters.
func ValidateResourceName(name string) error {
	if resourceNameRE.MatchString(name) {
		return nil
	}
	return fmt.Errorf("name %q is invalid: %s", name, resourceNameRule(name))
}

// resourceNameRule explains the first rule a name breaks.
func resourceNameRule(name string) string {
	const rule = "names must be 1-63 characters long, start with a lowercase letter, contain only lowercase letters, digits and hyphens, and not end with a hyphen"
	switch {
	case name == "":
		return "it is empty; " + rule
	case len(name) > 63:
		return fmt.Sprintf("it is %d characters long; %s", len(name), rule)
	case name != strings.ToLower(name):
		return "it contains uppercase letters; " + rule
	case name[0] < 'a' || name[0] > 'z':
		return "it does not start with a lowercase letter; " + rule
	case strings.HasSuffix(name, "-"):
		return "it ends with a hyphen; " + rule
	default:
		return "it contains characters other than lowercase letters, digits and hyphens; " + rule
	}
}

// MaxSlurmPartitionName is this project's limit on partition names. Slurm
// itself has no short limit, but partition names also appear in node and VM
// names, so they are kept short.
const MaxSlurmPartitionName = 40

var slurmPartitionRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// ValidateSlurmPartitionName checks a Slurm partition name. Slurm splits
// slurm.conf lines on spaces and partition lists on commas, and "=" ends a
// key; "DEFAULT" (any case) is not a partition but the line that sets
// defaults for all partitions. On top of that this project asks for a
// leading letter and letters, digits, "_" and "-" only.
func ValidateSlurmPartitionName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("partition name must not be empty")
	case strings.EqualFold(name, "default"):
		return fmt.Errorf("partition name %q is reserved: in slurm.conf PartitionName=DEFAULT sets defaults for every partition", name)
	case len(name) > MaxSlurmPartitionName:
		return fmt.Errorf("partition name %q is %d characters long; at most %d are allowed", name, len(name), MaxSlurmPartitionName)
	case strings.ContainsAny(name, ", =\t\n\r"):
		return fmt.Errorf("partition name %q is invalid: it must not contain spaces, commas or \"=\" (Slurm uses them as separators); use letters, digits, \"_\" and \"-\"", name)
	case !slurmPartitionRE.MatchString(name):
		return fmt.Errorf("partition name %q is invalid: it must start with a letter and contain only letters, digits, \"_\" and \"-\"", name)
	}
	return nil
}
