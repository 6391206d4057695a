package clusterconfig

import (
	"strconv"
	"strings"
)

// Compute Engine's own metadata keys that every VM of a cluster sets.
const (
	// OSLoginKey turns OS Login on ("TRUE") or off ("FALSE").
	OSLoginKey = "enable-oslogin"
	// BlockProjectSSHKeysKey keeps project-wide SSH keys off the VM: access
	// goes through OS Login or the VM's own keys only.
	BlockProjectSSHKeysKey = "block-project-ssh-keys"
)

// VMMetadata is the whole payload of one VM of the cluster: the launcher
// that fetches and starts the agent of the node's architecture, the node's
// config, guest attributes on (the agent reports through them), OS Login as
// asked and project-wide SSH keys blocked; the controller also carries the
// cluster's config. Controller, login and partition templates are all built
// here, so the contract with the agent is written once. The result is
// checked against Compute's metadata limits.
func VMMetadata(c Cluster, role Role, p *Partition, osLogin bool) (map[string]string, error) {
	node, err := NewNode(c, role, p)
	if err != nil {
		return nil, err
	}
	launcher, err := RenderLauncher(node.Agent)
	if err != nil {
		return nil, err
	}
	nodeJSON, err := RenderNodeConfig(node)
	if err != nil {
		return nil, err
	}
	md := map[string]string{
		StartupScriptKey:       string(launcher),
		NodeConfigKey:          string(nodeJSON),
		GuestAttributesKey:     "TRUE",
		OSLoginKey:             strings.ToUpper(strconv.FormatBool(osLogin)),
		BlockProjectSSHKeysKey: "TRUE",
	}
	if role == RoleController {
		cj, err := EncodeCluster(c)
		if err != nil {
			return nil, err
		}
		md[ClusterKey] = string(cj)
	}
	return md, CheckMetadataSize(md)
}
