package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Store holds every emulated resource as canonical JSON, by kind ("compute.networks") and key (the resource's
// relative path, "projects/p/global/networks/n"). Holding JSON rather than live objects means callers never share
// memory with the store, a snapshot is a plain dump, and list answers need no re-encoding.
//
// Values given to Put are encoded with protojson when they are proto messages (so Compute resources carry the
// client's wire names, int64 as strings) and with encoding/json otherwise; Get decodes the same way.
//
// All changes go through Update (or the Put/Delete shortcuts), which run under one lock and roll back when the
// callback fails. Watchers see every committed change.
type Store struct {
	mu       sync.RWMutex
	data     map[string]map[string]json.RawMessage
	version  uint64
	watchMu  sync.RWMutex
	watchers map[int]func(Change)
	nextW    int
}

// Change is one committed modification. Old is nil for a creation, New is nil for a deletion.
type Change struct {
	Kind, Key string
	Old, New  json.RawMessage
}

// Record is one stored resource.
type Record struct {
	Kind, Key string
	JSON      json.RawMessage
}

// Decode decodes the record into v (a proto message or any encoding/json target).
func (r Record) Decode(v any) error { return Decode(r.JSON, v) }

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{data: map[string]map[string]json.RawMessage{}, watchers: map[int]func(Change){}}
}

// Encode turns v into the compact JSON the store holds.
func Encode(v any) (json.RawMessage, error) {
	var b []byte
	var err error
	switch m := v.(type) {
	case json.RawMessage:
		b = m
	case []byte:
		b = m
	case proto.Message:
		b, err = protojson.Marshal(m)
	default:
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, fmt.Errorf("store: invalid JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// Decode decodes stored JSON into v; proto messages use protojson and ignore unknown fields (other packages may
// have stored fields a message type does not know).
func Decode(b json.RawMessage, v any) error {
	if m, ok := v.(proto.Message); ok {
		return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, m)
	}
	return json.Unmarshal(b, v)
}

// Version counts committed changes; it only grows.
func (s *Store) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Watch registers fn for every committed change and returns a function that removes it. fn runs on the
// committing goroutine after the lock is released; it must not block.
func (s *Store) Watch(fn func(Change)) (cancel func()) {
	s.watchMu.Lock()
	id := s.nextW
	s.nextW++
	s.watchers[id] = fn
	s.watchMu.Unlock()
	return func() {
		s.watchMu.Lock()
		delete(s.watchers, id)
		s.watchMu.Unlock()
	}
}

// Get decodes the resource into v (which may be nil to test existence) and reports whether it exists.
func (s *Store) Get(kind, key string, v any) (bool, error) {
	s.mu.RLock()
	b, ok := s.data[kind][key]
	s.mu.RUnlock()
	if !ok || v == nil {
		return ok, nil
	}
	return true, Decode(b, v)
}

// GetRaw returns the stored JSON of a resource.
func (s *Store) GetRaw(kind, key string) (json.RawMessage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	b, ok := s.data[kind][key]
	return b, ok
}

// Exists reports whether a resource exists.
func (s *Store) Exists(kind, key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.data[kind][key]
	return ok
}

// List returns the resources of kind whose key starts with prefix, sorted by key.
func (s *Store) List(kind, prefix string) []Record {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return listLocked(s.data, kind, prefix)
}

// Kinds returns the kinds that hold at least one resource, sorted.
func (s *Store) Kinds() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for k, m := range s.data {
		if len(m) > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Put stores v under kind/key.
func (s *Store) Put(kind, key string, v any) error {
	return s.Update(func(tx *Tx) error { return tx.Put(kind, key, v) })
}

// Delete removes kind/key and reports whether it existed.
func (s *Store) Delete(kind, key string) bool {
	var existed bool
	_ = s.Update(func(tx *Tx) error { existed = tx.Delete(kind, key); return nil })
	return existed
}

// Update runs fn with exclusive access. If fn returns an error every change it made is undone and the error
// is returned; otherwise the changes are committed and watchers notified.
func (s *Store) Update(fn func(tx *Tx) error) error {
	s.mu.Lock()
	tx := &Tx{s: s}
	err := fn(tx)
	if err != nil {
		tx.RollbackTo(0)
	}
	changes := tx.changes()
	if len(changes) > 0 {
		s.version++
	}
	tx.s = nil
	s.mu.Unlock()
	s.notify(changes)
	return err
}

func (s *Store) notify(changes []Change) {
	if len(changes) == 0 {
		return
	}
	s.watchMu.RLock()
	fns := make([]func(Change), 0, len(s.watchers))
	for _, fn := range s.watchers {
		fns = append(fns, fn)
	}
	s.watchMu.RUnlock()
	for _, c := range changes {
		for _, fn := range fns {
			fn(c)
		}
	}
}

// Export returns a copy of every resource, by kind and key.
func (s *Store) Export() map[string]map[string]json.RawMessage {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(map[string]map[string]json.RawMessage, len(s.data))
	for k, m := range s.data {
		if len(m) == 0 {
			continue
		}
		c := make(map[string]json.RawMessage, len(m))
		for key, v := range m {
			c[key] = v
		}
		out[k] = c
	}
	return out
}

// Replace swaps the whole content (snapshot load, reset). Watchers are told of every deletion and creation.
func (s *Store) Replace(data map[string]map[string]json.RawMessage) {
	s.mu.Lock()
	var changes []Change
	for kind, m := range s.data {
		for key, old := range m {
			if nv, ok := data[kind][key]; !ok || !bytes.Equal(nv, old) {
				changes = append(changes, Change{Kind: kind, Key: key, Old: old})
			}
		}
	}
	next := map[string]map[string]json.RawMessage{}
	for kind, m := range data {
		c := make(map[string]json.RawMessage, len(m))
		for key, v := range m {
			c[key] = v
			if old, ok := s.data[kind][key]; !ok || !bytes.Equal(old, v) {
				changes = append(changes, Change{Kind: kind, Key: key, New: v})
			}
		}
		next[kind] = c
	}
	s.data = next
	s.version++
	s.mu.Unlock()
	s.notify(changes)
}

func listLocked(data map[string]map[string]json.RawMessage, kind, prefix string) []Record {
	m := data[kind]
	out := make([]Record, 0, len(m))
	for key, v := range m {
		if strings.HasPrefix(key, prefix) {
			out = append(out, Record{Kind: kind, Key: key, JSON: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Tx is exclusive access to the store inside Update. It must not be used after Update returns.
type Tx struct {
	s    *Store
	undo []undoEntry
}

type undoEntry struct {
	kind, key string
	old       json.RawMessage
	existed   bool
}

// Get decodes kind/key into v (nil to test existence).
func (tx *Tx) Get(kind, key string, v any) (bool, error) {
	b, ok := tx.s.data[kind][key]
	if !ok || v == nil {
		return ok, nil
	}
	return true, Decode(b, v)
}

// GetRaw returns the JSON of kind/key.
func (tx *Tx) GetRaw(kind, key string) (json.RawMessage, bool) {
	b, ok := tx.s.data[kind][key]
	return b, ok
}

// Exists reports whether kind/key exists.
func (tx *Tx) Exists(kind, key string) bool {
	_, ok := tx.s.data[kind][key]
	return ok
}

// List returns the resources of kind under prefix, sorted by key.
func (tx *Tx) List(kind, prefix string) []Record { return listLocked(tx.s.data, kind, prefix) }

// Put stores v under kind/key.
func (tx *Tx) Put(kind, key string, v any) error {
	b, err := Encode(v)
	if err != nil {
		return err
	}
	m := tx.s.data[kind]
	if m == nil {
		m = map[string]json.RawMessage{}
		tx.s.data[kind] = m
	}
	old, existed := m[key]
	tx.undo = append(tx.undo, undoEntry{kind, key, old, existed})
	m[key] = b
	return nil
}

// Delete removes kind/key and reports whether it existed.
func (tx *Tx) Delete(kind, key string) bool {
	m := tx.s.data[kind]
	old, existed := m[key]
	if !existed {
		return false
	}
	tx.undo = append(tx.undo, undoEntry{kind, key, old, true})
	delete(m, key)
	return true
}

// Savepoint marks the current state; RollbackTo(sp) undoes everything after it.
func (tx *Tx) Savepoint() int { return len(tx.undo) }

// RollbackTo undoes the changes made after savepoint sp.
func (tx *Tx) RollbackTo(sp int) {
	for i := len(tx.undo) - 1; i >= sp; i-- {
		u := tx.undo[i]
		if u.existed {
			tx.s.data[u.kind][u.key] = u.old
		} else {
			delete(tx.s.data[u.kind], u.key)
		}
	}
	tx.undo = tx.undo[:sp]
}

// changes coalesces the undo log into one Change per touched key (first old value, current value).
func (tx *Tx) changes() []Change {
	if len(tx.undo) == 0 {
		return nil
	}
	type ck struct{ kind, key string }
	seen := map[ck]bool{}
	var out []Change
	for _, u := range tx.undo {
		k := ck{u.kind, u.key}
		if seen[k] {
			continue
		}
		seen[k] = true
		cur, ok := tx.s.data[u.kind][u.key]
		var old json.RawMessage
		if u.existed {
			old = u.old
		}
		if !ok {
			cur = nil
		}
		if old == nil && cur == nil || bytes.Equal(old, cur) && old != nil && cur != nil {
			continue
		}
		out = append(out, Change{Kind: u.kind, Key: u.key, Old: old, New: cur})
	}
	return out
}
