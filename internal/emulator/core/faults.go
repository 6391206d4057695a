package core

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"
)

// FaultSpec is the fault configuration, as POSTed to /emulator/v1/faults. Method names are discovery method
// ids and may be globs ("compute.*", "compute.*.insert"); the most specific matching entry wins (an exact name
// beats a glob, a longer glob beats a shorter one).
type FaultSpec struct {
	// Seed reseeds the random source that decides which calls an error rate hits.
	Seed *uint64 `json:"seed,omitempty"`
	// Latency is how long operations started by the method stay RUNNING before they are DONE.
	Latency map[string]Duration `json:"latency,omitempty"`
	// ErrorRates make a share of calls fail synchronously, before the handler runs.
	ErrorRates []ErrorRate `json:"errorRates,omitempty"`
	// FailOperations make the next Count operations (of Method, or of any method when empty) end in error.
	FailOperations []FailOperations `json:"failOperations,omitempty"`
	// Stockouts make instance creation in a zone (for a machine type, or every type when empty) end in
	// ZONE_RESOURCE_POOL_EXHAUSTED; the instances handlers consult Faults.Stockout.
	Stockouts []Stockout `json:"stockouts,omitempty"`
}

// ErrorRate makes Rate (0..1) of the calls to Method answer Code synchronously.
type ErrorRate struct {
	Method  string  `json:"method"`
	Rate    float64 `json:"rate"`
	Code    int     `json:"code"`              // HTTP status, default 503
	Reason  string  `json:"reason,omitempty"`  // Compute reason, default per status
	Message string  `json:"message,omitempty"` // default per status
	// AfterHandler lets the call do its work and then loses the answer, as when a front end times out
	// after the back end committed: the client sees the error, retries, and only requestId keeps it from
	// doing the work twice.
	AfterHandler bool `json:"afterHandler,omitempty"`
	// SkipFirst answers the first SkipFirst matching calls normally and applies the rate from then on,
	// so a test can let a resource be found and fail the reads that come after it.
	SkipFirst int `json:"skipFirst,omitempty"`

	skipped int // calls answered normally so far under SkipFirst
}

// FailOperations makes the next Count operations fail.
type FailOperations struct {
	Method     string `json:"method,omitempty"`
	Count      int    `json:"count"`
	HTTPStatus int    `json:"httpStatus,omitempty"` // default per Code, else 500
	Code       string `json:"code,omitempty"`       // Compute op error code, default INTERNAL_ERROR
	Message    string `json:"message,omitempty"`
}

// Stockout marks a zone (and optionally one machine type; globs allowed) out of capacity.
type Stockout struct {
	Zone        string `json:"zone"`
	MachineType string `json:"machineType,omitempty"`
}

// Duration reads "250ms"/"2s" strings or numbers of milliseconds and writes strings.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("duration must be a string like \"250ms\" or a number of milliseconds")
	}
	*d = Duration(time.Duration(ms * float64(time.Millisecond)))
	return nil
}

// Faults is the live fault configuration.
type Faults struct {
	mu   sync.Mutex
	spec FaultSpec
	rand *Rand
}

// NewFaults returns an empty configuration whose random source starts at seed.
func NewFaults(seed uint64) *Faults { return &Faults{rand: NewRand(seed)} }

// Validate checks a spec before it is applied.
func (s FaultSpec) Validate() error {
	for _, e := range s.ErrorRates {
		if e.Method == "" {
			return fmt.Errorf("errorRates: method is required")
		}
		if e.Rate < 0 || e.Rate > 1 {
			return fmt.Errorf("errorRates[%s]: rate must be between 0 and 1", e.Method)
		}
		if e.Code != 0 && (e.Code < 400 || e.Code > 599) {
			return fmt.Errorf("errorRates[%s]: code must be an HTTP error status", e.Method)
		}
		if e.SkipFirst < 0 {
			return fmt.Errorf("errorRates[%s]: skipFirst must not be negative", e.Method)
		}
		if _, err := path.Match(e.Method, ""); err != nil {
			return fmt.Errorf("errorRates: bad method pattern %q", e.Method)
		}
	}
	for _, f := range s.FailOperations {
		if f.Count < 0 {
			return fmt.Errorf("failOperations: count must not be negative")
		}
		if f.HTTPStatus != 0 && (f.HTTPStatus < 400 || f.HTTPStatus > 599) {
			return fmt.Errorf("failOperations: httpStatus must be an HTTP error status")
		}
	}
	for m, d := range s.Latency {
		if d < 0 {
			return fmt.Errorf("latency[%s]: must not be negative", m)
		}
	}
	for _, so := range s.Stockouts {
		if so.Zone == "" {
			return fmt.Errorf("stockouts: zone is required")
		}
	}
	return nil
}

// Apply merges spec into the configuration: latencies and error rates replace entries for the same method,
// failOperations and stockouts are added, a seed reseeds.
func (f *Faults) Apply(spec FaultSpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if spec.Seed != nil {
		f.rand.Seed(*spec.Seed)
		seed := *spec.Seed
		f.spec.Seed = &seed
	}
	if len(spec.Latency) > 0 && f.spec.Latency == nil {
		f.spec.Latency = map[string]Duration{}
	}
	for m, d := range spec.Latency {
		f.spec.Latency[m] = d
	}
	for _, e := range spec.ErrorRates {
		replaced := false
		for i := range f.spec.ErrorRates {
			if f.spec.ErrorRates[i].Method == e.Method {
				f.spec.ErrorRates[i], replaced = e, true
			}
		}
		if !replaced {
			f.spec.ErrorRates = append(f.spec.ErrorRates, e)
		}
	}
	for _, fo := range spec.FailOperations {
		if fo.Count > 0 {
			f.spec.FailOperations = append(f.spec.FailOperations, fo)
		}
	}
	f.spec.Stockouts = append(f.spec.Stockouts, spec.Stockouts...)
	return nil
}

// Clear removes every fault (the random sequence continues).
func (f *Faults) Clear() {
	f.mu.Lock()
	f.spec = FaultSpec{}
	f.mu.Unlock()
}

// Spec returns the current configuration (remaining counts of failOperations included).
func (f *Faults) Spec() FaultSpec {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := json.Marshal(f.spec)
	var out FaultSpec
	_ = json.Unmarshal(b, &out)
	return out
}

// Latency is the configured operation duration for method, if any.
func (f *Faults) Latency(method string) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	best, bestScore := time.Duration(0), -1
	for pat, d := range f.spec.Latency {
		if s := matchScore(pat, method); s > bestScore {
			best, bestScore = time.Duration(d), s
		}
	}
	return best, bestScore >= 0
}

// SyncError decides, for one call of method, whether an error rate hits it, and returns the error to answer.
func (f *Faults) SyncError(method string) *APIError {
	e, _ := f.SyncErrorMode(method)
	return e
}

// SyncErrorMode is SyncError plus whether the call's work must still be done before answering the error.
func (f *Faults) SyncErrorMode(method string) (*APIError, bool) {
	f.mu.Lock()
	var hit *ErrorRate
	bestScore := -1
	for i := range f.spec.ErrorRates {
		if s := matchScore(f.spec.ErrorRates[i].Method, method); s > bestScore {
			hit, bestScore = &f.spec.ErrorRates[i], s
		}
	}
	var e ErrorRate
	if hit != nil {
		if hit.skipped < hit.SkipFirst {
			hit.skipped++
			f.mu.Unlock()
			return nil, false
		}
		e = *hit
	}
	f.mu.Unlock()
	if hit == nil || e.Rate <= 0 || f.rand.Float64() >= e.Rate {
		return nil, false
	}
	code := e.Code
	if code == 0 {
		code = 503
	}
	return ErrorForStatus(code, e.Reason, e.Message), e.AfterHandler
}

// TakeOperationFailure consumes one pending failOperations entry matching method and returns the error the
// operation must end with, or nil.
func (f *Faults) TakeOperationFailure(method string) *OpError {
	f.mu.Lock()
	defer f.mu.Unlock()
	best, bestScore := -1, -1
	for i, fo := range f.spec.FailOperations {
		pat := fo.Method
		if pat == "" {
			pat = "*"
		}
		if s := matchScore(pat, method); s > bestScore && fo.Count > 0 {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return nil
	}
	fo := f.spec.FailOperations[best]
	f.spec.FailOperations[best].Count--
	if f.spec.FailOperations[best].Count == 0 {
		f.spec.FailOperations = append(f.spec.FailOperations[:best], f.spec.FailOperations[best+1:]...)
	}
	code := firstNonEmpty(fo.Code, "INTERNAL_ERROR")
	status := fo.HTTPStatus
	if status == 0 {
		status = defaultStatusForOpCode(code)
	}
	msg := firstNonEmpty(fo.Message, fmt.Sprintf("Operation failed: %s injected by the emulator's failOperations fault.", code))
	return &OpError{HTTPStatus: status, Errors: NewOpError(status, code, msg).Errors}
}

// Stockout reports whether zone has no capacity for machineType.
func (f *Faults) Stockout(zone, machineType string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.spec.Stockouts {
		if matchScore(s.Zone, zone) < 0 {
			continue
		}
		if s.MachineType == "" || matchScore(s.MachineType, machineType) >= 0 {
			return true
		}
	}
	return false
}

// Rand is the seeded source fault decisions use; other packages may draw from it for their own seeded choices.
func (f *Faults) Rand() *Rand { return f.rand }

// matchScore is -1 when pattern does not match name, else larger for more specific patterns.
func matchScore(pattern, name string) int {
	if pattern == name {
		return 1 << 20
	}
	if !strings.ContainsAny(pattern, "*?[") {
		return -1
	}
	if ok, _ := path.Match(pattern, name); !ok {
		return -1
	}
	return len(strings.ReplaceAll(pattern, "*", ""))
}
