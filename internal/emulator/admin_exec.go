package emulator

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"time"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/metadata"
)

// ExecRequest is the body of POST /emulator/v1/projects/P/zones/Z/instances/NAME:exec.
type ExecRequest struct {
	Argv []string `json:"argv"`
	// TimeoutSeconds bounds the command (default 60).
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
}

// ExecResult is its answer.
type ExecResult struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exitCode"`
}

// registerExec lets a person (make demo) or a test run a command as root inside a booted VM of the
// local runtime — what `gcloud compute ssh VM -- CMD` is on Google Cloud. It exists only on the
// admin API of a local emulator.
func registerExec(e *Emulator) {
	md, ok := e.srv.Component("metadata").(*metadata.Server)
	if !ok {
		return
	}
	md.HandleAction("exec", func(w http.ResponseWriter, r *http.Request, key string) {
		rt := e.Runtime()
		if rt == nil {
			core.WriteError(w, r, core.GoogleError(http.StatusFailedDependency, "VMs do not boot in this emulator: start it with --runtime=local to run commands in them"))
			return
		}
		var req ExecRequest
		if err := core.ReadJSON(r, &req); err != nil {
			core.WriteError(w, r, err)
			return
		}
		if len(req.Argv) == 0 {
			core.WriteError(w, r, core.GoogleError(http.StatusBadRequest, "argv: a command is required"))
			return
		}
		timeout := time.Duration(req.TimeoutSeconds) * time.Second
		if timeout <= 0 {
			timeout = time.Minute
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		stdout, stderr, err := rt.Exec(ctx, key, req.Argv...)
		res := ExecResult{Stdout: string(stdout), Stderr: string(stderr)}
		var exitErr *exec.ExitError
		switch {
		case errors.As(err, &exitErr):
			res.ExitCode = exitErr.ExitCode()
		case err != nil:
			core.WriteError(w, r, core.GoogleError(http.StatusConflict, "%s: %v", key, err))
			return
		}
		core.WriteJSON(w, http.StatusOK, res)
	})
}
