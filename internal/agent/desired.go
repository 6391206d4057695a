package agent

import (
	"fmt"
	"sort"
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// NodeConfig decodes this VM's hypercompute-node value.
func NodeConfig(attrs map[string]string) (cc.Node, error) {
	v, ok := attrs[cc.NodeConfigKey]
	if !ok {
		return cc.Node{}, fmt.Errorf("this VM's metadata has no %s key; the provider writes it when it creates the VM", cc.NodeConfigKey)
	}
	n, err := cc.DecodeNode([]byte(v))
	if err != nil {
		return cc.Node{}, fmt.Errorf("metadata key %s: %w", cc.NodeConfigKey, err)
	}
	return n, nil
}

// DesiredConfig decodes the cluster and its partitions from the
// controller's metadata, partitions sorted by name. Errors name the key.
func DesiredConfig(attrs map[string]string) (cc.Cluster, []cc.Partition, error) {
	v, ok := attrs[cc.ClusterKey]
	if !ok {
		return cc.Cluster{}, nil, fmt.Errorf("the controller's metadata has no %s key; the training cluster resource writes it", cc.ClusterKey)
	}
	c, err := cc.DecodeCluster([]byte(v))
	if err != nil {
		return cc.Cluster{}, nil, fmt.Errorf("metadata key %s: %w", cc.ClusterKey, err)
	}
	var keys []string
	for k := range attrs {
		if strings.HasPrefix(k, cc.PartitionKeyPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]cc.Partition, 0, len(keys))
	for _, k := range keys {
		p, err := cc.DecodePartition(c.Name, []byte(attrs[k]))
		if err != nil {
			return cc.Cluster{}, nil, fmt.Errorf("metadata key %s: %w", k, err)
		}
		if want := cc.PartitionKey(p.Name); want != k {
			return cc.Cluster{}, nil, fmt.Errorf("metadata key %s holds partition %q, which belongs under %s", k, p.Name, want)
		}
		parts = append(parts, p)
	}
	if err := cc.Validate(c, parts); err != nil {
		return cc.Cluster{}, nil, err
	}
	return c, parts, nil
}
