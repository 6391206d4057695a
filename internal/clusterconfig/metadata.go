package clusterconfig

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Metadata keys. The cluster writes ClusterKey on the controller; each
// partition and health policy writes a key of its own there, so parallel
// applies never rewrite each other's values (they still race on the
// metadata fingerprint and retry on 412).
const (
	// StartupScriptKey holds the launcher (RenderLauncher) on every VM.
	StartupScriptKey = "startup-script"
	// NodeConfigKey holds the Node config (RenderNodeConfig) on every VM.
	NodeConfigKey = "hypercompute-node"
	// ClusterKey holds the Cluster (EncodeCluster) on the controller.
	ClusterKey = "hypercompute-cluster"
	// PartitionKeyPrefix + partition name holds a Partition on the controller.
	PartitionKeyPrefix = "hypercompute-partition-"
	// HealthPolicyKeyPrefix + policy name holds a health policy.
	HealthPolicyKeyPrefix = "hypercompute-health-policy-"
	// GuestAttributesKey enables guest attributes on a VM (value "TRUE").
	GuestAttributesKey = "enable-guest-attributes"
)

// Guest attributes the launcher and the agent report under
// GuestAttributeNamespace, read by the provider with
// instances.getGuestAttributes?queryPath=hypercompute/.
const (
	GuestAttributeNamespace = "hypercompute"
	// GuestAttrPhase is the bootstrap phase ("launcher-failed", then the
	// agent's phases up to "ready").
	GuestAttrPhase = "phase"
	// GuestAttrError is the last error text, verbatim from where it arose.
	GuestAttrError = "error"
	// GuestAttrConfigHash is the Hash of the configuration last applied.
	GuestAttrConfigHash = "config-hash"
)

// PhaseLauncherFailed is the phase the launcher reports when it cannot
// start the agent.
const PhaseLauncherFailed = "launcher-failed"

// PartitionKey is the controller metadata key of a partition.
func PartitionKey(partition string) string { return PartitionKeyPrefix + partition }

// Compute's metadata limits (gcp-apis.md).
const (
	MaxMetadataKeyLength = 128
	MaxMetadataValue     = 262144
	// MaxMetadataTotal: all keys and values of one VM together must stay
	// below this many bytes (512 KB).
	MaxMetadataTotal = 512 * 1024
)

var metadataKeyRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// CheckMetadataSize checks metadata items against Compute's limits before a
// request is sent: key names, each value at most 262,144 bytes, and all keys
// and values below 512 KB. The error names the offending key and the sizes.
func CheckMetadataSize(items map[string]string) error {
	total := 0
	for _, k := range sortedKeys(items) {
		v := items[k]
		if !metadataKeyRE.MatchString(k) {
			return fmt.Errorf("metadata key %q is invalid: use 1-%d letters, digits, \"-\" and \"_\"", k, MaxMetadataKeyLength)
		}
		if len(v) > MaxMetadataValue {
			return fmt.Errorf("metadata value of %q is %d bytes; Compute Engine allows at most %d bytes per value", k, len(v), MaxMetadataValue)
		}
		total += len(k) + len(v)
	}
	if total >= MaxMetadataTotal {
		return fmt.Errorf("metadata keys and values total %d bytes (largest: %s); Compute Engine allows less than %d bytes (512 KB) per VM", total, largestItems(items, 3), MaxMetadataTotal)
	}
	return nil
}

func largestItems(items map[string]string, n int) string {
	keys := sortedKeys(items)
	// Stable order: by size descending, then name.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && len(items[keys[j]]) > len(items[keys[j-1]]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	if len(keys) > n {
		keys = keys[:n]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d bytes", k, len(items[k]))
	}
	return strings.Join(parts, ", ")
}

// EncodeCluster serializes the cluster for ClusterKey.
func EncodeCluster(c Cluster) ([]byte, error) {
	if err := ValidateCluster(c); err != nil {
		return nil, err
	}
	c.Schema = SchemaVersion
	return marshal(c)
}

// DecodeCluster reads a ClusterKey value. Unknown fields are ignored, so an
// agent reads configs from a newer provider of the same schema.
func DecodeCluster(data []byte) (Cluster, error) {
	var c Cluster
	if err := json.Unmarshal(data, &c); err != nil {
		return Cluster{}, fmt.Errorf("cluster config is not valid JSON: %w", err)
	}
	return c, ValidateCluster(c)
}

// EncodePartition serializes a partition for its PartitionKey.
func EncodePartition(cluster string, p Partition) ([]byte, error) {
	if err := ValidatePartition(cluster, p); err != nil {
		return nil, err
	}
	p.Schema = SchemaVersion
	return marshal(p)
}

// DecodePartition reads a PartitionKey value.
func DecodePartition(cluster string, data []byte) (Partition, error) {
	var p Partition
	if err := json.Unmarshal(data, &p); err != nil {
		return Partition{}, fmt.Errorf("partition config is not valid JSON: %w", err)
	}
	return p, ValidatePartition(cluster, p)
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
