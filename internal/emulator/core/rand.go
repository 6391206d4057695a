package core

import (
	"math/rand/v2"
	"sync"
)

// Rand is a seedable, goroutine-safe random source, so fault injection and generated ids repeat run to run.
type Rand struct {
	mu sync.Mutex
	r  *rand.Rand
}

// NewRand returns a source seeded with seed.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Seed restarts the sequence.
func (r *Rand) Seed(seed uint64) {
	r.mu.Lock()
	r.r = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.mu.Unlock()
}

// Float64 returns a number in [0,1).
func (r *Rand) Float64() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.r.Float64()
}

// Uint64 returns a random uint64.
func (r *Rand) Uint64() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.r.Uint64()
}

// ID returns a resource id shaped like Compute's (19 digits).
func (r *Rand) ID() uint64 { return 1_000_000_000_000_000_000 + r.Uint64()%8_000_000_000_000_000_000 }

// Hex returns n random hex digits.
func (r *Rand) Hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	r.mu.Lock()
	for i := range b {
		b[i] = digits[r.r.IntN(16)]
	}
	r.mu.Unlock()
	return string(b)
}
