package localrt

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The admin API's :exec runs a command as root inside a booted VM — what make demo uses to show
// `sinfo` on the login VM, and what `gcloud compute ssh VM -- CMD` is on Google Cloud.
func TestAdminExecRunsInsideTheVM(t *testing.T) {
	c := startCloud(t)
	c.network()
	c.createVM("shell", "echo booted\n")
	c.waitSerial("shell", "Finished running startup scripts.", 1, 15*time.Second)

	post := func(name string, argv ...string) (int, map[string]any) {
		body, _ := json.Marshal(map[string]any{"argv": argv})
		resp, err := http.Post(c.url+"/emulator/v1/projects/"+project+"/zones/"+zone+"/instances/"+name+":exec", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post("shell", "hostname")
	if code != http.StatusOK || strings.TrimSpace(out["stdout"].(string)) != "shell" {
		t.Fatalf("exec hostname: HTTP %d %v; want the VM's own name", code, out)
	}
	code, out = post("shell", "sh", "-c", "echo oops >&2; exit 3")
	if code != http.StatusOK || out["exitCode"].(float64) != 3 || !strings.Contains(out["stderr"].(string), "oops") {
		t.Fatalf("exec failing command: HTTP %d %v; want exit code 3 and its stderr", code, out)
	}
	if code, _ = post("nosuchvm", "true"); code != http.StatusNotFound {
		t.Fatalf("exec on a missing VM: HTTP %d, want 404", code)
	}
}
