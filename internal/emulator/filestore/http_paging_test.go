package filestore_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest/psatest"
)

// A page token the API did not issue is a 400 in Google's error body (code, status INVALID_ARGUMENT, message).
func TestHTTPMalformedPageToken(t *testing.T) {
	e := psatest.Start(t)
	for _, tok := range []string{"!!!", "YWJj"} {
		res, err := http.Get(e.URL + "/filestore/v1/" + parent + "/instances?pageToken=" + tok)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct {
				Code    int    `json:"code"`
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != 400 || body.Error.Code != 400 || body.Error.Status != "INVALID_ARGUMENT" || body.Error.Message == "" {
			t.Errorf("pageToken %q: %d %+v %v", tok, res.StatusCode, body, err)
		}
	}
}
