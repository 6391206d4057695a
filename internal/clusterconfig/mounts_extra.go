package clusterconfig

import (
	"fmt"
	"net"
	"slices"
	"sort"
)

// ExtraMount is one of the cluster's further shared file systems (hypercompute_training_cluster's
// storage list): an NFS share (a Filestore instance or another NFS server) or a Lustre file
// system, at a mount point of its own. Exactly one of NFS and Lustre is set; their own MountPoint
// is unused (MountPoint here is the one).
type ExtraMount struct {
	MountPoint string       `json:"mount_point"`
	NFS        *NFSMount    `json:"nfs,omitempty"`
	Lustre     *LustreMount `json:"lustre,omitempty"`
	// NoLogin: the login VMs do not mount it (compute nodes and the controller still do).
	NoLogin bool `json:"no_login,omitempty"`
	// Instance is the Filestore or Managed Lustre instance it was resolved from (full resource
	// name), empty when the configuration gave a source: importing a cluster reads it back.
	Instance string `json:"instance,omitempty"`
}

func (e ExtraMount) entry() MountEntry {
	if e.Lustre != nil {
		return MountEntry{Source: e.Lustre.Source(), Target: e.MountPoint, FSType: "lustre", Options: "defaults,_netdev"}
	}
	n := NFSMount{}
	if e.NFS != nil {
		n = *e.NFS
	}
	return MountEntry{Source: n.Source(), Target: e.MountPoint, FSType: "nfs", Options: n.options()}
}

func validateExtraMount(e ExtraMount) error {
	switch {
	case (e.NFS == nil) == (e.Lustre == nil):
		return fmt.Errorf("storage at %s must be exactly one of an NFS share and a Lustre file system", e.MountPoint)
	case e.NFS != nil:
		if net.ParseIP(e.NFS.Server) == nil {
			return fmt.Errorf("storage at %s: NFS server %q is not an IP address", e.MountPoint, e.NFS.Server)
		}
		if !nfsShareRE.MatchString(e.NFS.Share) {
			return fmt.Errorf("storage at %s: NFS share %q must be an absolute export path such as /share", e.MountPoint, e.NFS.Share)
		}
		switch e.NFS.Version {
		case "", "3", "4.1":
		default:
			return fmt.Errorf("storage at %s: NFS version %q is not supported; use 3 or 4.1", e.MountPoint, e.NFS.Version)
		}
		if e.NFS.NConnect < 0 || e.NFS.NConnect > 16 {
			return fmt.Errorf("storage at %s: NFS nconnect %d is out of range (1-16, 0 for the default)", e.MountPoint, e.NFS.NConnect)
		}
	default:
		if net.ParseIP(e.Lustre.Address) == nil {
			return fmt.Errorf("storage at %s: lustre address %q is not an IP address", e.MountPoint, e.Lustre.Address)
		}
		if !lustreFSRE.MatchString(e.Lustre.FSName) {
			return fmt.Errorf("storage at %s: lustre file system name %q is invalid: 1-8 lowercase letters and digits, starting with a letter", e.MountPoint, e.Lustre.FSName)
		}
	}
	return nil
}

// extraEntries are the extra mounts' entries by mount point.
func extraEntries(m Mounts) []MountEntry {
	extra := slices.Clone(m.Extra)
	sort.Slice(extra, func(i, j int) bool { return extra[i].MountPoint < extra[j].MountPoint })
	out := make([]MountEntry, 0, len(extra))
	for _, e := range extra {
		out = append(out, e.entry())
	}
	return out
}

// SelectablePaths are the mount points a node set may choose from (Partition.Storage): the
// extra mounts' and the buckets'. /home and the cluster's lustre are on every node.
func (m Mounts) SelectablePaths() []string {
	var out []string
	for _, e := range m.Extra {
		out = append(out, e.MountPoint)
	}
	for _, b := range m.Buckets {
		out = append(out, b.MountPoint)
	}
	return out
}

// CheckStorageChoice checks a node set's choice of storage against the cluster's mounts: every
// path must be one of SelectablePaths, once. The error names the index into the choice.
func (m Mounts) CheckStorageChoice(paths []string) (int, error) {
	have := m.SelectablePaths()
	for i, p := range paths {
		if slices.Contains(paths[:i], p) {
			return i, fmt.Errorf("%s is listed twice", p)
		}
		if !slices.Contains(have, p) {
			if p == DefaultHomeMountPoint || (m.Lustre != nil && p == lustreTarget(m.Lustre)) {
				return i, fmt.Errorf("%s is mounted on every node; list only the cluster's storage and bucket mount paths", p)
			}
			if len(have) == 0 {
				return i, fmt.Errorf("%s is not one of the cluster's storage or bucket mount paths: the cluster has none", p)
			}
			return i, fmt.Errorf("%s is not one of the cluster's storage or bucket mount paths (%v)", p, have)
		}
	}
	return -1, nil
}

func lustreTarget(l *LustreMount) string {
	if l.MountPoint == "" {
		return DefaultLustreMountPoint
	}
	return l.MountPoint
}

// ForNodeSet returns the mounts of a node set that chose paths (none: all of them): /home and the
// cluster's lustre always, the extra mounts and buckets it chose.
func (m Mounts) ForNodeSet(paths []string) Mounts {
	if len(paths) == 0 {
		return m
	}
	out := m
	out.Extra, out.Buckets = nil, nil
	for _, e := range m.Extra {
		if slices.Contains(paths, e.MountPoint) {
			out.Extra = append(out.Extra, e)
		}
	}
	for _, b := range m.Buckets {
		if slices.Contains(paths, b.MountPoint) {
			out.Buckets = append(out.Buckets, b)
		}
	}
	return out
}

// ForLogin returns the mounts of a login VM: all but the extra mounts marked NoLogin.
func (m Mounts) ForLogin() Mounts {
	out := m
	out.Extra = nil
	for _, e := range m.Extra {
		if !e.NoLogin {
			out.Extra = append(out.Extra, e)
		}
	}
	return out
}
