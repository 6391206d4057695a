package tfutil

import (
	"errors"
	"sync"
)

// Group runs the independent parts of an apply at once and keeps every error, not only the
// first: a user fixing a failed apply wants to see all that failed. The zero value is ready; Wait
// may be followed by another round of Go.
type Group struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

// Go runs f in its own goroutine.
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.mu.Lock()
			g.errs = append(g.errs, err)
			g.mu.Unlock()
		}
	}()
}

// Wait waits for every f started so far and returns their errors joined.
func (g *Group) Wait() error {
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return errors.Join(g.errs...)
}

// Parallel runs f for every item at once and returns their errors joined.
func Parallel[T any](items []T, f func(T) error) error {
	var g Group
	for _, it := range items {
		g.Go(func() error { return f(it) })
	}
	return g.Wait()
}
