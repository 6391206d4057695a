package clusterconfig

import (
	"encoding/json"
	"fmt"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/catalog"
)

// NewNode builds the hypercompute-node config of a VM. The partition is
// required for RoleCompute and must be nil otherwise. Controller and login
// VMs run the x86_64 agent; compute VMs the build for their machine type.
func NewNode(c Cluster, role Role, p *Partition) (Node, error) {
	if err := ValidateCluster(c); err != nil {
		return Node{}, err
	}
	layout := c.Layout // as configured: zero keeps the node config free of defaults
	c = c.withDefaults()
	n := Node{
		Schema:        SchemaVersion,
		Role:          role,
		Cluster:       c.Name,
		Controller:    c.Controller,
		SlurmctldPort: c.Slurm.SlurmctldPort,
		Mounts:        c.Mounts,
		Layout:        layout,
	}
	arch := catalog.ArchX86
	switch role {
	case RoleController:
		n.ConfigKeys = []string{ClusterKey}
		n.ConfigKeyPrefixes = []string{PartitionKeyPrefix, HealthPolicyKeyPrefix}
	case RoleLogin:
		n.StartupScript = c.LoginStartupScript
		n.Mounts = c.Mounts.ForLogin()
	case RoleCompute:
		if p == nil {
			return Node{}, fmt.Errorf("a compute node needs its partition")
		}
		if err := ValidatePartition(c.Name, *p); err != nil {
			return Node{}, err
		}
		m, _ := catalog.Machine(p.MachineType)
		arch = m.Arch
		n.Partition = p.Name
		n.NodeSet = NodeSetName(p.Name)
		n.StartupScript = p.StartupScript
		if len(p.Storage) > 0 {
			if i, err := c.Mounts.CheckStorageChoice(p.Storage); err != nil {
				return Node{}, fmt.Errorf("partition %s: storage[%d]: %w", p.Name, i, err)
			}
			n.Mounts = c.Mounts.ForNodeSet(p.Storage)
		}
	default:
		return Node{}, fmt.Errorf("role %q is not one of controller, login, compute", role)
	}
	if role != RoleCompute && p != nil {
		return Node{}, fmt.Errorf("a %s node belongs to no partition", role)
	}
	agent, err := c.AgentFor(arch)
	if err != nil {
		return Node{}, err
	}
	n.Agent = agent
	return n, nil
}

// RenderNodeConfig renders the hypercompute-node metadata value.
func RenderNodeConfig(n Node) ([]byte, error) {
	if err := validateNode(n); err != nil {
		return nil, err
	}
	n.Schema = SchemaVersion
	return marshal(n)
}

// DecodeNode reads a hypercompute-node value.
func DecodeNode(data []byte) (Node, error) {
	var n Node
	if err := json.Unmarshal(data, &n); err != nil {
		return Node{}, fmt.Errorf("%s is not valid JSON: %w", NodeConfigKey, err)
	}
	return n, validateNode(n)
}

func validateNode(n Node) error {
	if n.Schema > SchemaVersion {
		return fmt.Errorf("node config has schema %d, newer than this agent understands (%d); update the agent", n.Schema, SchemaVersion)
	}
	switch n.Role {
	case RoleController, RoleLogin:
	case RoleCompute:
		if n.Partition == "" {
			return fmt.Errorf("compute node config names no partition")
		}
	default:
		return fmt.Errorf("node role %q is not one of controller, login, compute", n.Role)
	}
	if err := ValidateClusterName(n.Cluster); err != nil {
		return err
	}
	if err := validateController(n.Controller); err != nil {
		return err
	}
	if err := ValidateMounts(n.Mounts); err != nil {
		return err
	}
	if err := validateLayout(n.Layout); err != nil {
		return err
	}
	if n.MountTimeout < 0 {
		return fmt.Errorf("node config mount timeout %d is negative", n.MountTimeout)
	}
	return ValidateAgentRef(n.Agent)
}
