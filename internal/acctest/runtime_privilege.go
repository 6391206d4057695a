package acctest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	vmruntime "github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/runtime"
)

// DeleteWithVMToken is what any user who can log in to a VM can try: as user (runuser; "nobody" is
// unprivileged), take the VM's access token from its metadata server with curl and call instances.delete on
// target through the local cloud's Compute API. It returns the HTTP status and the answer's body.
func (e *Env) DeleteWithVMToken(vm, user, target string) (int, string, error) {
	script := fmt.Sprintf(`tok=$(curl -sf -H 'Metadata-Flavor: Google' http://%s/computeMetadata/v1/instance/service-accounts/default/token |
  sed -n 's/.*"access_token" *: *"\([^"]*\)".*/\1/p')
[ -n "$tok" ] || { echo "no token" >&2; exit 3; }
curl -s -w '\n%%{http_code}' -X DELETE -H "Authorization: Bearer $tok" http://%s:80/compute/v1/projects/%s/zones/%s/instances/%s`,
		vmruntime.MetadataIP, vmruntime.EmulatorIP, Project, Zone, target)
	out, err := e.RunOn(30*time.Second, vm, "runuser", "-u", user, "--", "sh", "-c", script)
	if err != nil {
		return 0, "", err
	}
	i := strings.LastIndexByte(out, '\n')
	code, err := strconv.Atoi(strings.TrimSpace(out[i+1:]))
	if i < 0 || err != nil {
		return 0, out, fmt.Errorf("no HTTP status in curl's output %q", out)
	}
	return code, out[:i], nil
}
