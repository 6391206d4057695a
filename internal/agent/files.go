package agent

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is a Unix user and its primary group.
type account struct {
	Name     string
	UID, GID int
}

var rootAccount = account{Name: "root"}

// lookupAccount finds a user in the VM's passwd database. A missing user
// usually means a package is missing from the image, which the error says.
func lookupAccount(name, pkg string) (account, error) {
	if name == "" || name == "root" {
		return rootAccount, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return account{}, fmt.Errorf("user %q does not exist on this VM (is the %s package installed in the image?)", name, pkg)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return account{Name: name, UID: uid, GID: gid}, nil
}

// ensureDir creates dir (and its parents) and gives dir itself the owner
// and mode, fixing them when they differ.
func ensureDir(dir string, mode fs.FileMode, owner account) error {
	// Parents get 0755: a private leaf must not make its parents private
	// (slurmctld, running as SlurmUser, must traverse /var/spool/slurm).
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, mode); err != nil && !os.IsExist(err) {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.Chown(dir, owner.UID, owner.GID); err != nil {
		return fmt.Errorf("setting the owner of %s: %w", dir, err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", dir, err)
	}
	return nil
}

// writeFile makes path hold data with mode and owner, writing only when
// something differs. The content is replaced atomically (temporary file and
// rename in the same directory), so a reader never sees half a file and a
// secret is never briefly readable with a wider mode. It reports whether
// the content changed.
func writeFile(path string, data []byte, mode fs.FileMode, owner account) (changed bool, err error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, fixMeta(path, mode, owner)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	// The temporary file is created 0600; owner and mode are set before any
	// content is written.
	if err := f.Chown(owner.UID, owner.GID); err != nil {
		f.Close()
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

func fixMeta(path string, mode fs.FileMode, owner account) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != owner.UID || int(st.Gid) != owner.GID) {
		if err := os.Chown(path, owner.UID, owner.GID); err != nil {
			return fmt.Errorf("setting the owner of %s: %w", path, err)
		}
	}
	if fi.Mode().Perm() != mode.Perm() {
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("setting the mode of %s: %w", path, err)
		}
	}
	return nil
}
