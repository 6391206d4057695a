package core

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
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
		key, ok := parsePageToken(tok)
		if !ok {
			return nil, "", InvalidField("pageToken", tok, "Invalid page token.")
		}
		after = key
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
			next = pageToken(lastKey)
			break
		}
		items = append(items, rec.JSON)
		lastKey = rec.Key
	}
	return items, next, nil
}

// A page token is the last key served plus a checksum, so a token that is not one of ours (truncated, edited,
// from another list) is refused with a 400 like Google refuses it, instead of silently starting anywhere.
func pageToken(lastKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(lastKey + "\x00" + tokenSum(lastKey)))
}

func parsePageToken(tok string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", false
	}
	key, sum, found := strings.Cut(string(b), "\x00")
	if !found || sum != tokenSum(key) {
		return "", false
	}
	return key, true
}

func tokenSum(key string) string {
	h := fnv.New32a()
	h.Write([]byte("page:" + key))
	return strconv.FormatUint(uint64(h.Sum32()), 16)
}
