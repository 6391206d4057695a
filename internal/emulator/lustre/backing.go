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

// BackingDir returns the directory backing instance name (the root of its file system), if the emulator
// keeps one.
func (s *Service) BackingDir(name string) (string, bool) {
	if strings.Count(name, "/") != 5 {
		return "", false
	}
	return s.backing.Dir(backingPath(name)...)
}

// watchBacking keeps backing directories in step with committed state: an ACTIVE instance has its directory
// (instances loaded from a snapshot included), a deleted one loses it with its data. Only committed changes
// are seen, so a rolled-back operation never removes anything.
func (s *Service) watchBacking() {
	if s.backing.Root == "" {
		return
	}
	cancel := s.Store.Watch(func(c core.Change) {
		if c.Kind != KindInstances || strings.Count(c.Key, "/") != 5 {
			return
		}
		if c.New == nil {
			if err := s.backing.Remove(backingPath(c.Key)...); err != nil {
				s.Log.Error("removing a Lustre backing directory", "instance", c.Key, "err", err)
			}
			return
		}
		var probe struct {
			State string `json:"state"`
		}
		if json.Unmarshal(c.New, &probe) == nil && probe.State == wire.StateActive {
			if err := s.backing.Ensure(backingPath(c.Key)...); err != nil {
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
