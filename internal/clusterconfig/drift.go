package clusterconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Drift: the controller's agent checks, on every pass, that the files it wrote (slurm.conf,
// gres.conf, cgroup.conf, scripts) still hold what it applied. A file changed out of band is
// reported, not silently put back: guest attribute GuestAttrConfigDrift is "<applied hash>
// <paths,comma-separated>" while it lasts, so the cluster's next refresh shows it and the
// user's apply restores it. The apply asks for the restore by raising Cluster.Rewrite, a
// generation the agent remembers: a drift it sees while Rewrite differs from the last one it
// honoured is rewritten at once (validated, written, slurmctld reconfigured).
const GuestAttrConfigDrift = "config-drift"

// FormatDrift renders the drift report of the applied configuration hash and the changed paths.
func FormatDrift(applied string, paths []string) string {
	p := slices.Clone(paths)
	slices.Sort(p)
	return applied + " " + strings.Join(p, ",")
}

// ParseDrift reads a drift report; ok is false when there is none.
func ParseDrift(v string) (applied string, paths []string, ok bool) {
	applied, list, _ := strings.Cut(strings.TrimSpace(v), " ")
	if applied == "" {
		return "", nil, false
	}
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	return applied, paths, len(paths) > 0
}

// OwnHash is the hash of the Slurm configuration a cluster declares by itself: its files
// rendered without any partition. It changes only with the cluster's own settings, never when a
// partition or a health policy is added, changed or removed (those report their own state), so
// a refresh after an apply shows no change no one made.
func OwnHash(c Cluster) (string, error) {
	return Hash(c, nil)
}

// NodeConfigHash is the hash of everything a compute node takes from its cluster at boot: the
// node config's cluster part (controller, slurmctld port, mounts, layout), the agent builds, and
// where and as whom the VMs run (network, subnet, service account, public IPs, Shielded VM). A
// change of it means the partitions' templates change and their static nodes must be replaced
// to run it; a change of anything else (Slurm settings, which configless nodes take from
// slurmctld at reconfigure, login VMs, labels) leaves it alone.
func NodeConfigHash(c Cluster) (string, error) {
	if err := ValidateCluster(c); err != nil {
		return "", err
	}
	d := c.withDefaults()
	v := struct {
		Controller    Controller `json:"controller"`
		SlurmctldPort int        `json:"slurmctld_port"`
		Mounts        Mounts     `json:"mounts"`
		Layout        Layout     `json:"layout"`
		Agents        []AgentRef `json:"agents"`
		Network       string     `json:"network,omitempty"`
		Subnet        string     `json:"subnet,omitempty"`
		Account       string     `json:"service_account,omitempty"`
		Scopes        []string   `json:"scopes,omitempty"`
		PublicIPs     bool       `json:"public_ips,omitempty"`
		ShieldedVM    bool       `json:"shielded_vm,omitempty"`
	}{Controller: c.Controller, SlurmctldPort: d.Slurm.SlurmctldPort, Mounts: c.Mounts, Layout: c.Layout, Agents: c.Agents}
	v.Mounts.Home.Tier, v.Mounts.Home.CapacityGiB = "", 0
	if cl := c.Cloud; cl != nil {
		// Nodes boot with the compute role's identity (the shared one in clusters written before roles).
		id := cl.Identity(RoleCompute)
		v.Network, v.Subnet, v.Account, v.Scopes = cl.Network, cl.Subnet, id.Email, id.Scopes
		v.PublicIPs, v.ShieldedVM = cl.PublicIPs, cl.ShieldedVM
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("hashing the node config: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
