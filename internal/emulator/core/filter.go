package core

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Filter is a parsed list filter, in the syntax Compute's list calls accept:
//
//	name = my-net              name != "a b"            labels.env = prod
//	name eq 'inst-[0-9]+'      name ne .*-tmp           status = RUNNING
//	(labels.a = x) AND (labels.b = y)     (a = 1) (b = 2)   (implicit AND)   (a = 1) OR (b = 2)
//	labels.env:*   (has)       NOT (name = x)           cpus > 8
//
// "=" and "!=" compare as strings and allow "*" wildcards; eq/ne take an RE2 regex matched against the whole
// value. A field path walks objects, maps (labels.k) and lists (any element matches). A missing field never
// equals anything, so "!=" matches it.
type Filter struct{ root filterNode }

type filterNode interface {
	eval(obj any) bool
}

// ParseFilter parses a filter expression; the empty string matches everything.
func ParseFilter(s string) (*Filter, error) {
	if strings.TrimSpace(s) == "" {
		return &Filter{}, nil
	}
	p := &filterParser{toks: tokenizeFilter(s)}
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.pos].text)
	}
	return &Filter{root: n}, nil
}

// Match evaluates the filter against a resource's JSON.
func (f *Filter) Match(resource json.RawMessage) bool {
	if f == nil || f.root == nil {
		return true
	}
	var obj any
	d := json.NewDecoder(strings.NewReader(string(resource)))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return false
	}
	return f.root.eval(obj)
}

type filterToken struct {
	text   string
	quoted bool
}

func tokenizeFilter(s string) []filterToken {
	var out []filterToken
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case c == '(' || c == ')':
			out = append(out, filterToken{text: string(c)})
			i++
		case c == '"' || c == '\'':
			j := i + 1
			var b strings.Builder
			// A backslash escapes only the closing quote; every other backslash stays, because a quoted value
			// is often an RE2 regex (gcloud sends name eq ".*\bdefault\b.*") whose escapes must reach the regex.
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && j+1 < len(s) && s[j+1] == c {
					j++
				}
				b.WriteByte(s[j])
				j++
			}
			out = append(out, filterToken{text: b.String(), quoted: true})
			i = j + 1
		case c == '!' && i+1 < len(s) && s[i+1] == '=':
			out = append(out, filterToken{text: "!="})
			i += 2
		case c == '<' || c == '>':
			if i+1 < len(s) && s[i+1] == '=' {
				out = append(out, filterToken{text: s[i : i+2]})
				i += 2
			} else {
				out = append(out, filterToken{text: string(c)})
				i++
			}
		case c == '=' || c == ':':
			out = append(out, filterToken{text: string(c)})
			i++
		default:
			j := i
			for j < len(s) && !unicode.IsSpace(rune(s[j])) && !strings.ContainsRune("()=!<>:\"'", rune(s[j])) {
				j++
			}
			// A bare value may contain ':' or '=' (URLs, regexes) only when it follows an operator; handled
			// in parseComparison by re-joining, so here a word stops at them.
			out = append(out, filterToken{text: s[i:j]})
			i = j
		}
	}
	return out
}

type filterParser struct {
	toks []filterToken
	pos  int
}

func (p *filterParser) peek() (filterToken, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return filterToken{}, false
}

func (p *filterParser) isKeyword(t filterToken, kw string) bool {
	return !t.quoted && strings.EqualFold(t.text, kw)
}

func (p *filterParser) parseOr() (filterNode, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for {
		t, ok := p.peek()
		if !ok || !p.isKeyword(t, "OR") {
			return left, nil
		}
		p.pos++
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = orNode{left, right}
	}
}

func (p *filterParser) parseAnd() (filterNode, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		t, ok := p.peek()
		if !ok || t.text == ")" && !t.quoted || p.isKeyword(t, "OR") {
			return left, nil
		}
		if p.isKeyword(t, "AND") {
			p.pos++
		}
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		left = andNode{left, right}
	}
}

func (p *filterParser) parseUnary() (filterNode, error) {
	t, ok := p.peek()
	if !ok {
		return nil, fmt.Errorf("unexpected end of filter")
	}
	if p.isKeyword(t, "NOT") || t.text == "-" && !t.quoted {
		p.pos++
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return notNode{n}, nil
	}
	if t.text == "(" && !t.quoted {
		p.pos++
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if t, ok := p.peek(); !ok || t.text != ")" {
			return nil, fmt.Errorf("missing ')'")
		}
		p.pos++
		return n, nil
	}
	return p.parseComparison()
}

func (p *filterParser) parseComparison() (filterNode, error) {
	field := p.toks[p.pos]
	if field.quoted || field.text == ")" || field.text == "(" {
		return nil, fmt.Errorf("expected a field name, got %q", field.text)
	}
	p.pos++
	opTok, ok := p.peek()
	if !ok {
		return nil, fmt.Errorf("missing operator after %q", field.text)
	}
	op := strings.ToLower(opTok.text)
	switch op {
	case "=", "!=", ":", "<", ">", "<=", ">=", "eq", "ne":
	default:
		return nil, fmt.Errorf("unknown operator %q", opTok.text)
	}
	p.pos++
	// The value runs to the next whitespace-separated boundary: re-join tokens the tokenizer split at ':' or '='
	// (URLs such as https://..., regexes), stopping at ')' or a keyword.
	var val strings.Builder
	quoted := false
	for {
		t, ok := p.peek()
		if !ok || (!t.quoted && (t.text == ")" || t.text == "(")) {
			break
		}
		if val.Len() > 0 && !p.adjacent() {
			break
		}
		if val.Len() == 0 && t.quoted {
			quoted = true
		}
		val.WriteString(t.text)
		p.pos++
		if quoted {
			break
		}
	}
	if val.Len() == 0 && !quoted {
		return nil, fmt.Errorf("missing value after %q %s", field.text, opTok.text)
	}
	c := &cmpNode{path: strings.Split(field.text, "."), op: op, value: val.String()}
	if op == "eq" || op == "ne" {
		re, err := regexp.Compile(`^(?:` + c.value + `)$`)
		if err != nil {
			return nil, fmt.Errorf("bad regular expression %q: %v", c.value, err)
		}
		c.re = re
	}
	if (op == "=" || op == "!=" || op == ":") && strings.Contains(c.value, "*") {
		c.re = regexp.MustCompile(`^` + strings.ReplaceAll(regexp.QuoteMeta(c.value), `\*`, `.*`) + `$`)
	}
	return c, nil
}

// adjacent reports whether the current token touches the previous one in the source (no space between), which
// the tokenizer does not record; approximate it with token kinds: operators split from a bare word.
func (p *filterParser) adjacent() bool {
	prev, cur := p.toks[p.pos-1], p.toks[p.pos]
	isOp := func(t filterToken) bool {
		return !t.quoted && (t.text == ":" || t.text == "=" || t.text == "!=" || t.text == "<" || t.text == ">")
	}
	return isOp(prev) || isOp(cur)
}

type andNode struct{ a, b filterNode }
type orNode struct{ a, b filterNode }
type notNode struct{ a filterNode }

func (n andNode) eval(o any) bool { return n.a.eval(o) && n.b.eval(o) }
func (n orNode) eval(o any) bool  { return n.a.eval(o) || n.b.eval(o) }
func (n notNode) eval(o any) bool { return !n.a.eval(o) }

type cmpNode struct {
	path  []string
	op    string
	value string
	re    *regexp.Regexp
}

func (c *cmpNode) eval(obj any) bool {
	vals := lookupPath(obj, c.path)
	switch c.op {
	case "!=", "ne":
		for _, v := range vals {
			if c.matches(v) {
				return false
			}
		}
		return true
	case ":":
		if c.value == "*" {
			return len(vals) > 0
		}
	}
	for _, v := range vals {
		if c.matches(v) {
			return true
		}
	}
	return false
}

func (c *cmpNode) matches(v any) bool {
	s, ok := scalarString(v)
	if !ok {
		return false
	}
	switch c.op {
	case "=", "!=", ":":
		if c.re != nil {
			return c.re.MatchString(s)
		}
		return s == c.value
	case "eq", "ne":
		return c.re.MatchString(s)
	}
	cmp := compareValues(s, c.value)
	switch c.op {
	case "<":
		return cmp < 0
	case ">":
		return cmp > 0
	case "<=":
		return cmp <= 0
	case ">=":
		return cmp >= 0
	}
	return false
}

func compareValues(a, b string) int {
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(a, b)
}

// lookupPath returns every value the path reaches (lists fan out).
func lookupPath(obj any, path []string) []any {
	if len(path) == 0 {
		if l, ok := obj.([]any); ok {
			return l
		}
		return []any{obj}
	}
	switch o := obj.(type) {
	case map[string]any:
		v, ok := o[path[0]]
		if !ok {
			return nil
		}
		return lookupPath(v, path[1:])
	case []any:
		var out []any
		for _, e := range o {
			out = append(out, lookupPath(e, path)...)
		}
		return out
	}
	return nil
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "", false
	}
	return "", false
}
