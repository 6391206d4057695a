package filestore

import (
	"encoding/json"
	"slices"
	"strings"

	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	sn "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/servicenetworking"
)

// backingPath is the path of a share's directory under the backing root: {project}/{location}/{instance}/{share}.
func backingPath(name, share string) []string {
	parts := strings.Split(name, "/") // projects/p/locations/l/instances/i
	return []string{parts[1], parts[3], parts[5], share}
}

// dirs is the current backing root (a zero Backing keeps no directories).
func (s *Service) dirs() sn.Backing {
	if b := s.backing.Load(); b != nil {
		return *b
	}
	return sn.Backing{}
}

// SetDataDir makes instances backed by directories under dataDir/filestore/{project}/{location}/{instance}/{share}
// from now on and creates those of the instances already READY (e.g. loaded from a state file). The local
// runtime's attach calls it when Options.DataDir was not known at registration.
func (s *Service) SetDataDir(dataDir string) error {
	if dataDir == "" {
		s.backing.Store(nil)
		return nil
	}
	b := sn.Backing{Root: strings.TrimSuffix(dataDir, "/") + "/filestore"}
	s.backing.Store(&b)
	for _, rec := range s.Store.List(KindInstances, "") {
		var inst filestorepb.Instance
		if rec.Decode(&inst) == nil && inst.GetState() == filestorepb.Instance_READY && len(inst.GetFileShares()) == 1 {
			if err := b.Ensure(backingPath(rec.Key, inst.GetFileShares()[0].GetName())...); err != nil {
				return err
			}
		}
	}
	return nil
}

// BackingDir returns the directory backing the file share of instance name, if the emulator keeps one.
func (s *Service) BackingDir(name, share string) (string, bool) {
	if strings.Count(name, "/") != 5 {
		return "", false
	}
	return s.dirs().Dir(backingPath(name, share)...)
}

// watchBacking keeps backing directories in step with committed state: a READY instance has its share
// directory (this also covers instances loaded from a snapshot), a deleted one loses it with its data. Only
// committed changes are seen, so a rolled-back operation never removes anything.
func (s *Service) watchBacking() {
	cancel := s.Store.Watch(func(c core.Change) {
		b := s.dirs()
		if b.Root == "" || c.Kind != KindInstances || strings.Count(c.Key, "/") != 5 {
			return
		}
		parts := strings.Split(c.Key, "/")
		if c.New == nil {
			if err := b.Remove(parts[1], parts[3], parts[5]); err != nil {
				s.Log.Error("removing a Filestore backing directory", "instance", c.Key, "err", err)
			}
			return
		}
		var probe struct {
			State      string `json:"state"`
			FileShares []struct {
				Name string `json:"name"`
			} `json:"fileShares"`
		}
		if json.Unmarshal(c.New, &probe) == nil && probe.State == "READY" && len(probe.FileShares) == 1 {
			if err := b.Ensure(backingPath(c.Key, probe.FileShares[0].Name)...); err != nil {
				s.Log.Error("creating a Filestore backing directory", "instance", c.Key, "err", err)
			}
		}
	})
	s.OnClose(cancel)
}

// ResolveMount maps an NFS mount source "IP:/share[/sub/dir]" to the directory backing it: the share of the
// READY instance serving that IP. IPs are unique per network, not across them; with overlapping ranges in
// several networks the first instance by name wins.
func (s *Service) ResolveMount(source string) (string, bool) {
	ip, path, ok := strings.Cut(source, ":")
	if !ok || !strings.HasPrefix(path, "/") {
		return "", false
	}
	share, sub, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	for _, rec := range s.Store.List(KindInstances, "") {
		var inst filestorepb.Instance
		if rec.Decode(&inst) != nil || inst.GetState() != filestorepb.Instance_READY || len(inst.GetFileShares()) != 1 || len(inst.GetNetworks()) != 1 {
			continue
		}
		if inst.GetFileShares()[0].GetName() != share || !slices.Contains(inst.GetNetworks()[0].GetIpAddresses(), ip) {
			continue
		}
		dir, ok := s.BackingDir(inst.GetName(), share)
		if !ok {
			return "", false
		}
		return sn.JoinSubpath(dir, sub)
	}
	return "", false
}
