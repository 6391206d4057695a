package core

import (
	"fmt"
	"time"
)

// The emulator's clock can be moved forward (never back) through the admin API, so a test can reach a
// time-driven event — a calendar reservation's start or end — without waiting for it. What a service
// schedules by the clock registers an OnAdvance hook that re-evaluates at once when the clock jumps;
// timestamps the emulator writes come from Now and so follow the moved clock.

// Advance moves the clock forward by d and runs the advance hooks.
func (s *Server) Advance(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("the clock only moves forward (asked to move by %s)", d)
	}
	s.offset.Add(int64(d))
	s.hooksMu.Lock()
	hooks := append([]func(){}, s.advanceHooks...)
	s.hooksMu.Unlock()
	for _, h := range hooks {
		h()
	}
	return nil
}

// OnAdvance registers fn to run after every Advance.
func (s *Server) OnAdvance(fn func()) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.advanceHooks = append(s.advanceHooks, fn)
}
