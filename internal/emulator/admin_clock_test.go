package emulator_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/emulatortest"
)

// The admin clock moves forward by a duration, answers the new time, and refuses going back or a bad duration.
func TestAdminClockAdvance(t *testing.T) {
	env := emulatortest.Start(t)
	post := func(body string) (*http.Response, emulator.Clock) {
		t.Helper()
		resp, err := http.Post("http://"+env.Host+"/emulator/v1/clock:advance", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c emulator.Clock
		_ = json.NewDecoder(resp.Body).Decode(&c)
		return resp, c
	}
	before := env.Server.Now()
	resp, c := post(`{"by": "72h"}`)
	if resp.StatusCode != 200 {
		t.Fatalf("advance: %s", resp.Status)
	}
	now, err := time.Parse("2006-01-02T15:04:05.000-07:00", c.Now)
	if err != nil {
		t.Fatal(err)
	}
	if d := now.Sub(before); d < 72*time.Hour || d > 73*time.Hour {
		t.Errorf("the clock moved by %s, want 72h", d)
	}
	if resp, _ := post(`{"by": "-1h"}`); resp.StatusCode != 400 {
		t.Errorf("moving back: %s, want 400", resp.Status)
	}
	if resp, _ := post(`{"by": "soon"}`); resp.StatusCode != 400 {
		t.Errorf("a bad duration: %s, want 400", resp.Status)
	}
	env.Reset()
	if d := env.Server.Now().Sub(time.Now()); d > time.Minute {
		t.Errorf("after a reset the clock is %s ahead, want the real time", d)
	}
}
