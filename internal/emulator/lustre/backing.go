package lustre

import (
	"encoding/json"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
	wire "github.com/hypercompute/terraform-provider-hypercompute/internal/gcp/lustre"
)

// backingPath is the path of an instance's directory under the backing root: {project}/{location}/{instance}.
func backingPath(name string) []string {
	parts := strings.Split(name, "/") // projects/p/locations/l/instances/i
	return []string{parts[1], parts[3], parts[5]}
}

// dirs is the current backing root (a zero Backing keeps no directories).
func (s *Service) dirs() sn.Backing {
	if b := s.backing.Load(); b != nil {
		return *b
	}
	return sn.Backing{}
}

// SetDataDir makes instances backed by directories under dataDir/lustre/{project}/{location}/{instance} from
// now on and creates those of the instances already ACTIVE (e.g. loaded from a state file). The local
// runtime's attach calls it when Options.DataDir was not known at registration.
func (s *Service) SetDataDir(dataDir string) error {
	if dataDir == "" {
		s.backing.Store(nil)
		return nil
	}
	b := sn.Backing{Root: strings.TrimSuffix(dataDir, "/") + "/lustre"}
	s.backing.Store(&b)
	for _, rec := range s.Store.List(KindInstances, "") {
		var inst wire.Instance
		if rec.Decode(&inst) == nil && inst.State == wire.StateActive {
			if err := b.Ensure(backingPath(rec.Key)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// BackingDir returns the directory backing instance name (the root of its file system), if the emulator
// keeps one.
func (s *Service) BackingDir(name string) (string, bool) {
	if strings.Count(name, "/") != 5 {
		return "", false
	}
	return s.dirs().Dir(backingPath(name)...)
}

// watchBacking keeps backing directories in step with committed state: an ACTIVE instance has its directory
// (instances loaded from a snapshot included), a deleted one loses it with its data. Only committed changes
// are seen, so a rolled-back operation never removes anything.
func (s *Service) watchBacking() {
	cancel := s.Store.Watch(func(c core.Change) {
		b := s.dirs()
		if b.Root == "" || c.Kind != KindInstances || strings.Count(c.Key, "/") != 5 {
			return
		}
		if c.New == nil {
			if err := b.Remove(backingPath(c.Key)...); err != nil {
				s.Log.Error("removing a Lustre backing directory", "instance", c.Key, "err", err)
			}
			return
		}
		var probe struct {
			State string `json:"state"`
		}
		if json.Unmarshal(c.New, &probe) == nil && probe.State == wire.StateActive {
			if err := b.Ensure(backingPath(c.Key)...); err != nil {
				s.Log.Error("creating a Lustre backing directory", "instance", c.Key, "err", err)
			}
		}
	})
	s.OnClose(cancel)
}

// ResolveMount maps a Lustre mount source "IP@tcp:/FILESYSTEM[/sub/dir]" (also "@tcp0") to the directory
// backing it: that of the ACTIVE instance whose mountPoint it names. IPs are unique per network, not across
// them; with overlapping ranges in several networks the first instance by name wins.
func (s *Service) ResolveMount(source string) (string, bool) {
	nid, path, ok := strings.Cut(source, ":/")
	if !ok {
		return "", false
	}
	nid = strings.Replace(nid, "@tcp0", "@tcp", 1)
	fs, sub, _ := strings.Cut(path, "/")
	want := nid + ":/" + fs
	for _, rec := range s.Store.List(KindInstances, "") {
		var inst wire.Instance
		if rec.Decode(&inst) != nil || inst.State != wire.StateActive || inst.MountPoint != want {
			continue
		}
		dir, ok := s.BackingDir(inst.Name)
		if !ok {
			return "", false
		}
		return sn.JoinSubpath(dir, sub)
	}
	return "", false
}
