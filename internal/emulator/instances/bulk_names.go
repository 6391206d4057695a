package instances

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// maxPatternHashes is the longest run of '#' a namePattern may hold.
const maxPatternHashes = 18

// namePattern is a parsed bulkInsert namePattern: prefix, a run of width '#', suffix.
type namePattern struct {
	prefix, suffix string
	width          int
	re             *regexp.Regexp
}

func parseNamePattern(p string) (*namePattern, *core.APIError) {
	first := strings.IndexByte(p, '#')
	last := strings.LastIndexByte(p, '#')
	bad := func(why string) *core.APIError {
		return core.InvalidField("resource.namePattern", p, why)
	}
	if first < 0 {
		return nil, bad("The name pattern must contain one sequence of '#' characters.")
	}
	if strings.Trim(p[first:last+1], "#") != "" {
		return nil, bad("The name pattern must contain exactly one sequence of '#' characters.")
	}
	np := &namePattern{prefix: p[:first], suffix: p[last+1:], width: last - first + 1}
	if np.width > maxPatternHashes {
		return nil, bad(fmt.Sprintf("The sequence of '#' characters may be at most %d long.", maxPatternHashes))
	}
	if !core.ValidName(np.name(1)) {
		return nil, bad("Names built from the pattern must be a match of regex '" + core.NameRegex + "'.")
	}
	np.re = regexp.MustCompile(`^` + regexp.QuoteMeta(np.prefix) + `([0-9]{` + strconv.Itoa(np.width) + `,})` + regexp.QuoteMeta(np.suffix) + `$`)
	return np, nil
}

// name is the pattern's name for number n, zero-padded to the run's width.
func (np *namePattern) name(n int64) string {
	return fmt.Sprintf("%s%0*d%s", np.prefix, np.width, n, np.suffix)
}

// highest returns the largest number among existing names that match the pattern (0 when none does).
func (np *namePattern) highest(names []string) int64 {
	var hi int64
	for _, n := range names {
		m := np.re.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil && v > hi {
			hi = v
		}
	}
	return hi
}
