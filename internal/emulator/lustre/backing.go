package lustre

import (
	"encoding/json"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
)

// instanceDir is the backing path of an ACTIVE instance: {project}/{location}/{instance}.
func instanceDir(key string, raw json.RawMessage) ([]string, bool) {
	var probe struct {
		State string `json:"state"`
	}
	if json.Unmarshal(raw, &probe) != nil || probe.State != stateActive {
		return nil, false
	}
	return producer.InstanceDir(key), true
}

// SetDataDir makes instances backed by directories under dataDir/lustre/{project}/{location}/{instance} from
// now on and creates those of the instances already ACTIVE (e.g. loaded from a state file). The local
// runtime's attach calls it when Options.DataDir was not known at registration.
func (s *Service) SetDataDir(dataDir string) error { return s.backings.SetDataDir(dataDir) }

// BackingDir returns the directory backing instance name (the root of its file system), if the emulator
// keeps one.
func (s *Service) BackingDir(name string) (string, bool) { return s.backings.Dir(name) }

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
		var inst Instance
		if rec.Decode(&inst) != nil || inst.State != stateActive || inst.MountPoint != want {
			continue
		}
		dir, ok := s.BackingDir(inst.Name)
		if !ok {
			return "", false
		}
		return producer.JoinSubpath(dir, sub)
	}
	return "", false
}
