package recipes

import "strings"

// shq quotes s for a POSIX shell: single quotes, with embedded ones closed,
// escaped and reopened.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
