package filestore

import (
	"encoding/json"
	"slices"
	"strings"

	"cloud.google.com/go/filestore/apiv1/filestorepb"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/producer"
)

// shareDir is the backing path of a READY instance's one share: {project}/{location}/{instance}/{share}.
func shareDir(key string, raw json.RawMessage) ([]string, bool) {
	var probe struct {
		State      string `json:"state"`
		FileShares []struct {
			Name string `json:"name"`
		} `json:"fileShares"`
	}
	if json.Unmarshal(raw, &probe) != nil || probe.State != "READY" || len(probe.FileShares) != 1 {
		return nil, false
	}
	return append(producer.InstanceDir(key), probe.FileShares[0].Name), true
}

// SetDataDir makes instances backed by directories under dataDir/filestore/{project}/{location}/{instance}/{share}
// from now on and creates those of the instances already READY (e.g. loaded from a state file). The local
// runtime's attach calls it when Options.DataDir was not known at registration.
func (s *Service) SetDataDir(dataDir string) error { return s.backings.SetDataDir(dataDir) }

// BackingDir returns the directory backing the file share of instance name, if the emulator keeps one.
func (s *Service) BackingDir(name, share string) (string, bool) { return s.backings.Dir(name, share) }

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
		return producer.JoinSubpath(dir, sub)
	}
	return "", false
}
