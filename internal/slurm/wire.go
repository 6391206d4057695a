package slurm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Wire pieces every API version shares: the reply envelope, error entries,
// and Slurm's optional numbers.

// noVal decodes any of the ways slurmrestd writes an optional number: a plain
// number (v0.0.38), null, or {"set":bool,"infinite":bool,"number":N} (v0.0.39+).
type noVal struct {
	Set      bool
	Infinite bool
	Number   int64
}

func (n *noVal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*n = noVal{}
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '{':
		var o struct {
			Set      bool    `json:"set"`
			Infinite bool    `json:"infinite"`
			Number   float64 `json:"number"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		*n = noVal{Infinite: o.Infinite}
		if o.Set && !o.Infinite {
			n.Set, n.Number = true, int64(o.Number)
		}
		return nil
	default:
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("slurm: number: %w", err)
		}
		*n = noVal{Set: true, Number: int64(f)}
		return nil
	}
}

// value is the number, or def when unset or infinite.
func (n noVal) value(def int64) int64 {
	if !n.Set {
		return def
	}
	return n.Number
}

// setNumber is how v0.0.39+ takes an optional number in a request.
type setNumber struct {
	Set    bool  `json:"set"`
	Number int64 `json:"number"`
}

func numberSet(n int64) *setNumber { return &setNumber{Set: true, Number: n} }

// unixTime turns Slurm's epoch seconds into a time; 0 and unset are zero.
func unixTime(n noVal) time.Time {
	if v := n.value(0); v > 0 {
		return time.Unix(v, 0).UTC()
	}
	return time.Time{}
}

// minutes turns a time limit in minutes into a duration; unset, infinite,
// negative (v0.0.38 prints INFINITE as -1) and 0xffffffff are 0.
func minutes(n noVal) time.Duration {
	v := n.value(0)
	if v <= 0 || v >= 0xfffffffe {
		return 0
	}
	return time.Duration(v) * time.Minute
}

type wireError struct {
	Error       string `json:"error"`
	Description string `json:"description"`
	Source      string `json:"source"`
	// The number's key changed between plugins and even between endpoints
	// of one plugin: v0.0.38 uses all three.
	ErrorNumber *int `json:"error_number"`
	ErrorCode   *int `json:"error_code"`
	Errno       *int `json:"errno"`
}

func (w wireError) entry() ErrorEntry {
	e := ErrorEntry{Error: w.Error, Description: w.Description, Source: w.Source}
	for _, n := range []*int{w.ErrorNumber, w.ErrorCode, w.Errno} {
		if n != nil {
			e.Number = *n
			break
		}
	}
	return e
}

// envelope is the part of every reply the client reads first.
type envelope struct {
	Meta struct {
		Plugin struct {
			Type       string `json:"type"`        // "openapi/v0.0.38"; "openapi/slurmctld" from v0.0.40
			DataParser string `json:"data_parser"` // "data_parser/v0.0.41" from v0.0.40
		} `json:"plugin"`
		Slurm struct { // "Slurm" in v0.0.38, "slurm" later; encoding/json matches both
			Release string `json:"release"`
		} `json:"slurm"`
	} `json:"meta"`
	Errors []wireError `json:"errors"`
}

func (e envelope) entries() []ErrorEntry {
	var out []ErrorEntry
	for _, w := range e.Errors {
		en := w.entry()
		if en.Number == 0 && en.Error == "" && en.Description == "" {
			continue
		}
		out = append(out, en)
	}
	return out
}

// pluginVersion is the API version the reply says it was written in, or "".
func (e envelope) pluginVersion() string {
	for _, s := range []string{e.Meta.Plugin.DataParser, e.Meta.Plugin.Type} {
		v := s[strings.LastIndex(s, "/")+1:]
		if _, ok := parseVersion(v); ok && strings.HasPrefix(v, "v") {
			return v
		}
	}
	return ""
}

// submitReply is the job id every plugin returns at the top level.
type submitReply struct {
	JobID *int `json:"job_id"`
}

// sortedEnv returns the environment as sorted "K=V" strings (v0.0.39+).
func sortedEnv(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
