package clusterconfig

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Mounts are the shared file systems every cluster VM mounts.
type Mounts struct {
	// Home is the NFS share mounted at /home (a Filestore instance or an
	// existing NFS server).
	Home NFSMount `json:"home"`
	// Lustre is an optional Managed Lustre file system.
	Lustre *LustreMount `json:"lustre,omitempty"`
	// Buckets are optional Cloud Storage buckets mounted with gcsfuse.
	Buckets []BucketMount `json:"buckets,omitempty"`
	// Extra are further NFS and Lustre mounts at their own paths (mounts_extra.go).
	Extra []ExtraMount `json:"extra,omitempty"`
}

// NFSMount is an NFS share.
type NFSMount struct {
	// Server is the NFS server's IP address.
	Server string `json:"server"`
	// Share is the exported path, e.g. "/share" (Filestore's file share).
	Share string `json:"share"`
	// MountPoint defaults to /home.
	MountPoint string `json:"mount_point,omitempty"`
	// Version is "3" (default, Filestore's default protocol) or "4.1".
	Version string `json:"version,omitempty"`
	// NConnect is the number of TCP connections per client; 0 means
	// DefaultNFSNConnect.
	NConnect int `json:"nconnect,omitempty"`
	// Tier and CapacityGiB are the Filestore instance's, recorded when the
	// cluster names one (empty for another NFS server): a recipe job's
	// checkpoint cost on /home is derived from them. Nodes do not use them,
	// so NodeConfigHash leaves them out and a resize rolls no node.
	Tier        string `json:"tier,omitempty"`
	CapacityGiB int64  `json:"capacity_gib,omitempty"`
}

// LustreMount is a Managed Lustre file system.
type LustreMount struct {
	// Address is the IP of the file system's MGS (the instance's mount
	// point IP).
	Address string `json:"address"`
	// FSName is the Lustre file system name (at most 8 characters).
	FSName string `json:"fs_name"`
	// MountPoint defaults to /lustre.
	MountPoint string `json:"mount_point,omitempty"`
	// CapacityGiB and Throughput (perUnitStorageThroughput, MBps per TiB)
	// are the instance's, recorded when the cluster names a Managed Lustre
	// instance (0 when it gives an address, or for the Dynamic tier): a
	// recipe job's checkpoint cost on Lustre is derived from them.
	CapacityGiB int64 `json:"capacity_gib,omitempty"`
	Throughput  int64 `json:"per_unit_storage_throughput,omitempty"`
}

// Cloud Storage FUSE profiles the cluster offers.
const (
	BucketProfileTraining      = "training"
	BucketProfileCheckpointing = "checkpointing"
)

// BucketMount is a Cloud Storage bucket mounted with gcsfuse.
type BucketMount struct {
	Bucket     string `json:"bucket"`
	MountPoint string `json:"mount_point"`
	// Profile is BucketProfileTraining or BucketProfileCheckpointing.
	Profile string `json:"profile"`
	// CacheDir, when set, enables gcsfuse's file cache there (a local SSD
	// path); profiles alone cannot enable the file cache.
	CacheDir string `json:"cache_dir,omitempty"`
}

// Mount defaults.
const (
	DefaultHomeMountPoint   = "/home"
	DefaultLustreMountPoint = "/lustre"
	// DefaultNFSNConnect: several TCP connections per client lift a
	// client's throughput well above one connection's, while keeping the
	// connections a Filestore instance serves bounded when a thousand nodes
	// mount the same /home.
	DefaultNFSNConnect = 4
)

// MountEntry is one line of the mount table: what the agent passes to
// mount(8) as `mount -t FSType -o Options Source Target`.
type MountEntry struct {
	Source  string `json:"source"`
	Target  string `json:"target"`
	FSType  string `json:"fstype"`
	Options string `json:"options"`
}

// Source returns the NFS source "IP:/share".
func (n NFSMount) Source() string { return n.Server + ":" + n.Share }

// Source returns the Lustre source "IP@tcp:/fsname".
func (l LustreMount) Source() string { return l.Address + "@tcp:/" + l.FSName }

// nfsOptions are the options for a shared /home: hard mounts so a Filestore
// failover stalls I/O instead of failing it, a 60 s timeout with three
// retransmissions, 1 MiB transfers, explicit TCP and version (which skips the
// transport and version probes that add seconds to every mount), several
// connections per client, and _netdev so boot orders it after the network.
func (n NFSMount) options() string {
	vers := n.Version
	if vers == "" {
		vers = "3"
	}
	nconnect := n.NConnect
	if nconnect == 0 {
		nconnect = DefaultNFSNConnect
	}
	return strings.Join([]string{
		"rw", "hard", "timeo=600", "retrans=3", "rsize=1048576", "wsize=1048576",
		"proto=tcp", "vers=" + vers, "nconnect=" + strconv.Itoa(nconnect), "_netdev",
	}, ",")
}

// gcsfuse profile names for the cluster's profiles.
var gcsfuseProfiles = map[string]string{
	BucketProfileTraining:      "aiml-training",
	BucketProfileCheckpointing: "aiml-checkpointing",
}

func (b BucketMount) options() string {
	opts := []string{"rw", "_netdev", "allow_other", "implicit_dirs", "profile=" + gcsfuseProfiles[b.Profile]}
	if b.CacheDir != "" {
		// An unlimited file cache on local SSD; parallel downloads speed
		// up reading large checkpoints and shards. In mount options
		// gcsfuse takes config keys with "_" for ":" and "-"; the ":" form
		// reaches the kernel as a FUSE option and the mount fails.
		opts = append(opts, "cache_dir="+b.CacheDir, "file_cache_max_size_mb=-1",
			"file_cache_enable_parallel_downloads=true")
	}
	return strings.Join(opts, ",")
}

// MountEntries returns the mounts in mount order: /home, Lustre, the extra
// mounts by mount point, then the buckets by mount point. Mount points are unique and none lies under
// another (ValidateMounts), so the order is only for readability.
func MountEntries(m Mounts) []MountEntry {
	home := m.Home.MountPoint
	if home == "" {
		home = DefaultHomeMountPoint
	}
	out := []MountEntry{{Source: m.Home.Source(), Target: home, FSType: "nfs", Options: m.Home.options()}}
	if l := m.Lustre; l != nil {
		target := l.MountPoint
		if target == "" {
			target = DefaultLustreMountPoint
		}
		out = append(out, MountEntry{Source: l.Source(), Target: target, FSType: "lustre", Options: "defaults,_netdev"})
	}
	out = append(out, extraEntries(m)...)
	buckets := append([]BucketMount(nil), m.Buckets...)
	sort.Slice(buckets, func(i, j int) bool { return buckets[i].MountPoint < buckets[j].MountPoint })
	for _, b := range buckets {
		out = append(out, MountEntry{Source: b.Bucket, Target: b.MountPoint, FSType: "gcsfuse", Options: b.options()})
	}
	return out
}

// RenderMountTable renders the mounts as fstab lines.
func RenderMountTable(m Mounts) ([]byte, error) {
	if err := ValidateMounts(m); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# Shared file systems of this cluster - generated by hypercompute; do not edit.\n")
	b.WriteString("# <source> <mount point> <type> <options> <dump> <pass>\n")
	for _, e := range MountEntries(m) {
		fmt.Fprintf(&b, "%s %s %s %s 0 0\n", e.Source, e.Target, e.FSType, e.Options)
	}
	return b.Bytes(), nil
}

var (
	nfsShareRE   = regexp.MustCompile(`^/[A-Za-z0-9_./-]*$`)
	lustreFSRE   = regexp.MustCompile(`^[a-z][a-z0-9]{0,7}$`)
	bucketNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$`)
	mountPointRE = regexp.MustCompile(`^/[A-Za-z0-9_./-]*$`)
)

// ValidateMounts checks the shared file systems.
func ValidateMounts(m Mounts) error {
	if net.ParseIP(m.Home.Server) == nil {
		return fmt.Errorf("home NFS server %q is not an IP address", m.Home.Server)
	}
	if !nfsShareRE.MatchString(m.Home.Share) {
		return fmt.Errorf("home NFS share %q must be an absolute export path such as /share", m.Home.Share)
	}
	switch m.Home.Version {
	case "", "3", "4.1":
	default:
		return fmt.Errorf("home NFS version %q is not supported; use 3 or 4.1", m.Home.Version)
	}
	if m.Home.NConnect < 0 || m.Home.NConnect > 16 {
		return fmt.Errorf("home NFS nconnect %d is out of range (1-16, 0 for the default)", m.Home.NConnect)
	}
	if l := m.Lustre; l != nil {
		if net.ParseIP(l.Address) == nil {
			return fmt.Errorf("lustre address %q is not an IP address", l.Address)
		}
		if !lustreFSRE.MatchString(l.FSName) {
			return fmt.Errorf("lustre file system name %q is invalid: 1-8 lowercase letters and digits, starting with a letter", l.FSName)
		}
	}
	for _, e := range m.Extra {
		if err := validateExtraMount(e); err != nil {
			return err
		}
	}
	for _, b := range m.Buckets {
		if !bucketNameRE.MatchString(b.Bucket) || strings.Contains(b.Bucket, "..") {
			return fmt.Errorf("bucket name %q is not a valid Cloud Storage bucket name", b.Bucket)
		}
		if _, ok := gcsfuseProfiles[b.Profile]; !ok {
			return fmt.Errorf("bucket %q: profile %q is not supported; use %q or %q", b.Bucket, b.Profile, BucketProfileTraining, BucketProfileCheckpointing)
		}
		if b.CacheDir != "" && !mountPointRE.MatchString(b.CacheDir) {
			return fmt.Errorf("bucket %q: cache directory %q must be an absolute path", b.Bucket, b.CacheDir)
		}
	}
	var points []string
	for _, e := range MountEntries(m) {
		if !mountPointRE.MatchString(e.Target) || e.Target == "/" || path.Clean(e.Target) != e.Target {
			return fmt.Errorf("mount point %q of %s must be a clean absolute path other than /", e.Target, e.Source)
		}
		points = append(points, e.Target)
	}
	sort.Strings(points)
	for i := 1; i < len(points); i++ {
		if points[i] == points[i-1] {
			return fmt.Errorf("mount point %s is used twice", points[i])
		}
	}
	for _, a := range points {
		for _, b := range points {
			if strings.HasPrefix(b, a+"/") {
				return errors.New("mount point " + b + " lies inside " + a + "; mount shared file systems at separate paths")
			}
		}
	}
	return nil
}
