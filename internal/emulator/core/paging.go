package core

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
)

// DefaultMaxResults is the page size when a list call sets none (Compute's default and maximum).
const DefaultMaxResults = 500

// Page applies the request's filter, pageToken and maxResults (Compute's names; pageSize, the AIP name, is
// accepted too) to records sorted by key. It returns the page's items and the token of the next page ("" on the
// last one). Errors are ready-to-write 400s.
func Page(r *http.Request, recs []Record) ([]json.RawMessage, string, *APIError) {
	q := r.URL.Query()
	filter, err := ParseFilter(q.Get("filter"))
	if err != nil {
		return nil, "", InvalidField("filter", q.Get("filter"), "Invalid list filter expression: "+err.Error()+".")
	}
	max := DefaultMaxResults
	for _, name := range []string{"maxResults", "pageSize"} {
		if s := q.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, "", InvalidField(name, s, "Must be a non-negative integer.")
			}
			if n > 0 && n < max {
				max = n
			}
		}
	}
	after := ""
	if tok := q.Get("pageToken"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return nil, "", InvalidField("pageToken", tok, "Invalid page token.")
		}
		after = string(b)
	}
	var items []json.RawMessage
	lastKey, next := "", ""
	for _, rec := range recs {
		if after != "" && rec.Key <= after {
			continue
		}
		if !filter.Match(rec.JSON) {
			continue
		}
		if len(items) == max {
			next = base64.RawURLEncoding.EncodeToString([]byte(lastKey))
			break
		}
		items = append(items, rec.JSON)
		lastKey = rec.Key
	}
	return items, next, nil
}
