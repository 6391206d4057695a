package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// snapshotVersion is bumped when the file layout changes incompatibly.
const snapshotVersion = 1

type snapshotFile struct {
	Version   int                                   `json:"version"`
	SavedAt   string                                `json:"savedAt"`
	Resources map[string]map[string]json.RawMessage `json:"resources"`
}

// LoadSnapshot replaces the store's content with the file at path. A missing file is not an error (first start).
// Operations a previous process left RUNNING are marked failed.
func (s *Server) LoadSnapshot(path string) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var f snapshotFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("state file %s: %w", path, err)
	}
	if f.Version != snapshotVersion {
		return fmt.Errorf("state file %s: version %d, this emulator reads %d", path, f.Version, snapshotVersion)
	}
	s.Store.Replace(f.Resources)
	s.Ops.reindex()
	return nil
}

// SaveSnapshot writes the store atomically (temporary file, fsync, rename) to path.
func (s *Server) SaveSnapshot(path string) error {
	f := snapshotFile{Version: snapshotVersion, SavedAt: RFC3339(s.Now()), Resources: s.Store.Export()}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Persister saves the store to a file shortly after changes (debounced) and on Stop.
type Persister struct {
	srv    *Server
	path   string
	delay  time.Duration
	mu     sync.Mutex
	timer  *time.Timer
	saved  uint64
	cancel func()
	errs   chan error
}

// StartPersister begins saving to path delay after each burst of changes.
func (s *Server) StartPersister(path string, delay time.Duration) *Persister {
	p := &Persister{srv: s, path: path, delay: delay}
	p.cancel = s.Store.Watch(func(Change) { p.schedule() })
	return p
}

func (p *Persister) schedule() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer == nil {
		p.timer = time.AfterFunc(p.delay, func() {
			p.mu.Lock()
			p.timer = nil
			p.mu.Unlock()
			if err := p.Save(); err != nil {
				p.srv.Log.Error("saving state", "path", p.path, "err", err)
			}
		})
	}
}

// Save writes the state now if it changed since the last save.
func (p *Persister) Save() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.srv.Store.Version()
	if v == p.saved {
		return nil
	}
	if err := p.srv.SaveSnapshot(p.path); err != nil {
		return err
	}
	p.saved = v
	return nil
}

// Stop stops watching and saves a last time.
func (p *Persister) Stop() error {
	p.cancel()
	p.mu.Lock()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.saved = ^uint64(0) // force the final save
	p.mu.Unlock()
	return p.Save()
}
