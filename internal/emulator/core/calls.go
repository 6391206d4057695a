package core

import (
	"sort"
	"sync"
)

// Class says how a call is counted: reads and mutating calls are totalled separately; Admin calls (the admin
// API) are neither counted nor subject to faults.
type Class int

const (
	Read Class = iota
	Mutating
	Admin
)

func (c Class) String() string {
	switch c {
	case Read:
		return "read"
	case Mutating:
		return "mutating"
	}
	return "internal"
}

// Calls counts API calls per method id (the discovery ids: "compute.networks.insert").
type Calls struct {
	mu      sync.Mutex
	methods map[string]*MethodCalls
}

// MethodCalls is the count for one method.
type MethodCalls struct {
	Count    int64 `json:"count"`
	Errors   int64 `json:"errors"` // answers with HTTP status >= 400
	Mutating bool  `json:"mutating"`
}

// CallsSnapshot is what GET /emulator/v1/calls answers.
type CallsSnapshot struct {
	Total    int64                  `json:"total"`
	Read     int64                  `json:"read"`
	Mutating int64                  `json:"mutating"`
	Errors   int64                  `json:"errors"`
	Methods  map[string]MethodCalls `json:"methods"`
}

// NewCalls returns zeroed counters.
func NewCalls() *Calls { return &Calls{methods: map[string]*MethodCalls{}} }

// Record counts one call of method; failed marks an error answer.
func (c *Calls) Record(method string, class Class, failed bool) {
	if class == Admin {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.methods[method]
	if m == nil {
		m = &MethodCalls{Mutating: class == Mutating}
		c.methods[method] = m
	}
	m.Count++
	if failed {
		m.Errors++
	}
}

// Count returns how many times method was called.
func (c *Calls) Count(method string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.methods[method]; m != nil {
		return m.Count
	}
	return 0
}

// Snapshot returns the current counters.
func (c *Calls) Snapshot() CallsSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := CallsSnapshot{Methods: make(map[string]MethodCalls, len(c.methods))}
	for name, m := range c.methods {
		s.Methods[name] = *m
		s.Total += m.Count
		s.Errors += m.Errors
		if m.Mutating {
			s.Mutating += m.Count
		} else {
			s.Read += m.Count
		}
	}
	return s
}

// MethodNames returns the counted method ids, sorted.
func (s CallsSnapshot) MethodNames() []string {
	out := make([]string, 0, len(s.Methods))
	for n := range s.Methods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Reset zeroes every counter.
func (c *Calls) Reset() {
	c.mu.Lock()
	c.methods = map[string]*MethodCalls{}
	c.mu.Unlock()
}
