package monitoring

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// clause is one `path = "value"` (or `path = starts_with("value")`) term of a Monitoring filter.
type clause struct {
	path   string
	value  string
	prefix bool // starts_with
}

func (c clause) match(v string, ok bool) bool {
	if !ok {
		return false
	}
	if c.prefix {
		return strings.HasPrefix(v, c.value)
	}
	return v == c.value
}

// parseFilter reads the subset of the Monitoring filter language the emulator serves: terms joined by AND,
// each a path, `=` and a double-quoted string or starts_with("..."). OR, NOT, `!=`, `:`, `>` and the other
// functions are refused as not served.
func parseFilter(s string) ([]clause, error) {
	var out []clause
	rest := strings.TrimSpace(s)
	for rest != "" {
		i := strings.IndexAny(rest, "=!<>:")
		if i <= 0 {
			return nil, fmt.Errorf("expected a term `path = \"value\"` at %q", rest)
		}
		if rest[i] != '=' {
			return nil, fmt.Errorf("the emulator serves only `=` comparisons, not %q", rest[i:i+1])
		}
		path := strings.TrimSpace(rest[:i])
		path = strings.ReplaceAll(path, `"`, "") // quoted label keys: metric.labels."my-key"
		if path == "" || strings.ContainsAny(path, " ()") {
			return nil, fmt.Errorf("bad field path %q", strings.TrimSpace(rest[:i]))
		}
		rest = strings.TrimSpace(rest[i+1:])
		c := clause{path: path}
		if after, ok := strings.CutPrefix(rest, "starts_with("); ok {
			c.prefix = true
			rest = strings.TrimSpace(after)
		}
		v, n, err := quoted(rest)
		if err != nil {
			return nil, err
		}
		c.value, rest = v, strings.TrimSpace(rest[n:])
		if c.prefix {
			if !strings.HasPrefix(rest, ")") {
				return nil, fmt.Errorf("starts_with( without its closing parenthesis")
			}
			rest = strings.TrimSpace(rest[1:])
		}
		out = append(out, c)
		if rest == "" {
			break
		}
		word, tail, _ := strings.Cut(rest, " ")
		if word != "AND" {
			return nil, fmt.Errorf("the emulator serves terms joined by AND only, not %q", word)
		}
		rest = strings.TrimSpace(tail)
		if rest == "" {
			return nil, fmt.Errorf("AND at the end of the filter")
		}
	}
	return out, nil
}

// quoted reads a double-quoted string (backslash escapes) at the start of s; n is the bytes it took.
func quoted(s string) (string, int, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0, fmt.Errorf("expected a double-quoted string at %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated string at %q", s)
}

// labelPath splits "metric.labels.k" / "metric.label.k" into ("metric", "k"); ok is false for other paths.
func labelPath(path, object string) (string, bool) {
	for _, p := range []string{object + ".labels.", object + ".label."} {
		if k, ok := strings.CutPrefix(path, p); ok && k != "" {
			return k, true
		}
	}
	return "", false
}

// listFilter reads a list call's optional ?filter=, whose clauses may only name the fields served says it
// serves (what: the emulator's words for them); it answers the 400 itself and reports false then.
func listFilter(w http.ResponseWriter, r *http.Request, served func(path string) bool, what string) ([]clause, bool) {
	f := r.URL.Query().Get("filter")
	if strings.TrimSpace(f) == "" {
		return nil, true
	}
	clauses, err := parseFilter(f)
	if err != nil {
		core.WriteError(w, r, badRequest("Field filter had an invalid value of \"%s\": %v", f, err))
		return nil, false
	}
	for _, c := range clauses {
		if !served(c.path) {
			core.WriteError(w, r, badRequest("Field filter had an invalid value of \"%s\": the emulator filters %s only.", f, what))
			return nil, false
		}
	}
	return clauses, true
}
