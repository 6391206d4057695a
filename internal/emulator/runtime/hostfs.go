//go:build linux

package vmruntime

import (
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

//go:embed mount_helper.sh
var mountHelper []byte

// mountHelperNames are the helpers mount(8) looks up as /sbin/mount.<type>.
var mountHelperNames = []string{"mount.nfs", "mount.nfs4", "mount.lustre"}

// privateDir is one directory a host gets its own copy of, bind-mounted over
// the machine's. image says what the first boot copies from the machine's
// directory, like a VM image would hold: "all" (small config dirs, so package
// defaults are there), "dirs" (the tree with owners but no files: logs and
// spools start empty yet /var/log/munge exists with munge's mode), or "" (empty).
type privateDir struct {
	target string
	image  string
	wipe   bool // emptied at every boot, as a tmpfs would be
}

var privateDirs = []privateDir{
	{target: "/etc/slurm", image: "all"},
	{target: "/etc/munge", image: "all"},
	{target: "/var/spool", image: "dirs"},
	{target: "/var/log", image: "dirs"},
	{target: "/var/lib/slurm", image: "dirs"},
	{target: "/var/lib/munge", image: "dirs"},
	{target: "/var/lib/hypercompute", image: "dirs"}, // the agent's binary and state
	{target: "/var/lib/mysql"},                       // MariaDB's datadir (Slurm accounting), empty as on a new VM
	{target: "/home"},
	// The payload's default mount points for Lustre and Cloud Storage FUSE: private so that a
	// VM's mount never shows on the machine or in another VM.
	{target: "/lustre"},
	{target: "/gcs"},
	{target: "/tmp", wipe: true},
	{target: "/run", wipe: true}, // last: the others' sources may live under /run
}

// privateFiles are bind-mounted per host; the runtime writes their content.
var privateFiles = []string{"/etc/hosts", "/etc/hostname", "/etc/environment", "/etc/resolv.conf"}

// In-host paths the runtime and the mount helpers agree on.
const (
	inHostRuntimeDir = "/run/hypercompute"
	inHostRootView   = "/run/hypercompute/rootfs" // the machine's root tree, for bind sources
	inHostScript     = "/run/hypercompute/startup-script"
)

// hostDirs is the layout of one host under StateDir/hosts/<idx>.
type hostDirs struct{ root string }

func (d hostDirs) private(target string) string {
	return filepath.Join(d.root, "fs", strings.ReplaceAll(strings.TrimPrefix(target, "/"), "/", "-"))
}
func (d hostDirs) file(target string) string { return d.private(target) }
func (d hostDirs) sbinLayer() string         { return filepath.Join(d.root, "sbin-layer") }
func (d hostDirs) devLayer() string          { return filepath.Join(d.root, "dev-layer") }
func (d hostDirs) serial() string            { return filepath.Join(d.root, "serial.log") }
func (d hostDirs) initConfig() string        { return filepath.Join(d.root, "init.json") }
func (d hostDirs) initLog() string           { return filepath.Join(d.root, "init.log") }

// inRun maps an in-host path under /run to its place in the host's private dir.
func (d hostDirs) inRun(p string) string {
	return filepath.Join(d.private("/run"), strings.TrimPrefix(p, "/run/"))
}

// create lays out a new host's "disk" from the machine's directories.
func (d hostDirs) create() error {
	for _, pd := range privateDirs {
		if err := os.MkdirAll(pd.target, 0o755); err != nil {
			return fmt.Errorf("mount point %s: %w", pd.target, err)
		}
		dst := d.private(pd.target)
		switch pd.image {
		case "all", "dirs":
			if err := copyTree(pd.target, dst, pd.image == "all"); err != nil {
				return fmt.Errorf("copying %s for the host: %w", pd.target, err)
			}
		default:
			if err := mkdirLike(pd.target, dst); err != nil {
				return err
			}
		}
	}
	for _, f := range privateFiles {
		if _, err := os.Stat(f); err != nil {
			// A bind mount needs an existing target; an empty file is harmless.
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				return fmt.Errorf("mount point %s: %w", f, err)
			}
		}
		if err := os.WriteFile(d.file(f), nil, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(d.devLayer(), 0o700); err != nil {
		return err
	}
	return os.MkdirAll(d.sbinLayer(), 0o700)
}

// prepareBoot empties what a reboot empties and stages the startup script.
func (d hostDirs) prepareBoot(script string) error {
	for _, pd := range privateDirs {
		if !pd.wipe {
			continue
		}
		dst := d.private(pd.target)
		entries, err := os.ReadDir(dst)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(d.inRun(inHostRootView), 0o755); err != nil {
		return err
	}
	return os.WriteFile(d.inRun(inHostScript), []byte(script), 0o700)
}

func mkdirLike(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return copyMeta(fi, dst)
}

func copyMeta(fi fs.FileInfo, dst string) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if err := os.Lchown(dst, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	return os.Chmod(dst, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
}

// copyTree copies directories (and with files, regular files and symlinks)
// keeping owners and modes.
func copyTree(src, dst string, files bool) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			if err := os.MkdirAll(out, 0o700); err != nil {
				return err
			}
			return copyMeta(fi, out)
		case !files:
			return nil
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, out); err != nil {
				return err
			}
			return copyMeta(fi, out)
		case fi.Mode().IsRegular():
			if err := copyFile(p, out); err != nil {
				return err
			}
			return copyMeta(fi, out)
		}
		return nil // sockets, fifos: not part of an image
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// renderHosts builds a host's /etc/hosts: itself, its VPC peers, the extra
// entries and the link-local service names.
func renderHosts(self *HostSpec, peers []*HostSpec) []byte {
	var b strings.Builder
	b.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	line := func(s *HostSpec) {
		if f := s.fqdn(); f != "" {
			fmt.Fprintf(&b, "%s\t%s %s\n", s.IP, f, s.Name)
		} else {
			fmt.Fprintf(&b, "%s\t%s\n", s.IP, s.Name)
		}
	}
	line(self)
	sort.Slice(peers, func(i, j int) bool { return peers[i].Name < peers[j].Name })
	for _, p := range peers {
		line(p)
	}
	names := make([]string, 0, len(self.Hosts))
	for n := range self.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s\t%s\n", self.Hosts[n], n)
	}
	fmt.Fprintf(&b, "%s\tmetadata.google.internal metadata\n", MetadataIP)
	fmt.Fprintf(&b, "%s\temulator.hypercompute.internal\n", EmulatorIP)
	fmt.Fprintf(&b, "%s\truntime.hypercompute.internal\n", ServiceIP)
	return []byte(b.String())
}

// renderResolvConf points DNS at the metadata address, as on Compute Engine.
// Nothing answers DNS there, so lookups /etc/hosts cannot answer fail at once
// (port unreachable) instead of waiting on the machine's nameserver, which
// hosts cannot reach.
func renderResolvConf(s *HostSpec) []byte {
	var b strings.Builder
	if s.Zone != "" && s.Project != "" {
		fmt.Fprintf(&b, "search %s.c.%s.internal c.%s.internal google.internal\n", s.Zone, s.Project, s.Project)
	}
	fmt.Fprintf(&b, "nameserver %s\n", MetadataIP)
	return []byte(b.String())
}

// writeInPlace rewrites a bind-mounted file without replacing its inode (a
// rename would leave the host's mount on the old file).
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
