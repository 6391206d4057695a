package agent

import "testing"

// Which sinfo long states count as a registered slurmd: a static node powered down, powering up,
// unresponsive or never heard from must keep the provider waiting.
func TestRegisteredState(t *testing.T) {
	for state, want := range map[string]bool{
		"idle": true, "allocated": true, "mixed": true, "completing": true, "drained": true,
		"draining": true, "down": true, "idle$": true, "mixed+": true, "idle@": true,
		"idle~": false, "idle#": false, "down*": false, "idle*": false, "drained~": false,
		"idle%": false, "idle!": false, "unknown": false, "unknown*": false, "future": false, "": false,
	} {
		if got := registeredState(state); got != want {
			t.Errorf("registeredState(%q) = %v, want %v", state, got, want)
		}
	}
}
