package gcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// retryDecision says whether a try should be sent again, and why (for the log).
//
// Retried: 429, 500, 502, 503, and a 403 that is a rate limit (reason rateLimitExceeded
// or userRateLimitExceeded, ErrorInfo RATE_LIMIT_EXCEEDED, or "Quota exceeded for quota
// metric ... per minute"). Not retried: any other 4xx, notably the 403 of a resource
// quota, which waiting does not fix. A network error is retried only when resending
// cannot do the work twice: a read-only method, or a request carrying a requestId.
func retryDecision(req *http.Request, resp *http.Response, err error) (bool, string) {
	if err != nil {
		if req.Context().Err() != nil || isCertificateError(err) {
			return false, ""
		}
		if idempotent(req) {
			return true, "network error"
		}
		return false, ""
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable:
		return true, http.StatusText(resp.StatusCode)
	case http.StatusForbidden:
		if isRateLimitBody(peekBody(resp)) {
			return true, "rate limit (403)"
		}
	}
	return false, ""
}

func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return req.URL.Query().Get("requestId") != ""
}

// peekBody reads the start of the response body and puts it back, so the caller still
// reads the whole body.
func peekBody(resp *http.Response) []byte {
	if resp.Body == nil {
		return nil
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 256<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return head
}

func isRateLimitBody(body []byte) bool {
	var e struct {
		Error struct {
			Message string `json:"message"`
			Errors  []struct {
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"errors"`
			Details []struct {
				Type   string `json:"@type"`
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return false
	}
	if isPerMinuteQuotaMessage(e.Error.Message) {
		return true
	}
	for _, it := range e.Error.Errors {
		if it.Reason == "rateLimitExceeded" || it.Reason == "userRateLimitExceeded" ||
			isPerMinuteQuotaMessage(it.Message) {
			return true
		}
	}
	for _, d := range e.Error.Details {
		if strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") && d.Reason == "RATE_LIMIT_EXCEEDED" {
			return true
		}
	}
	return false
}
