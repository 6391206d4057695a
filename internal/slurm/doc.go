// Package slurm is how the node agent drives Slurm on the controller: a
// client for slurmrestd, the Slurm REST daemon (Client), and CLI, which runs
// Slurm's own commands (sinfo, squeue, scontrol, sbatch, scancel) with typed
// answers. The agent's registration reports, scale-down and stop-notice
// drains, slurmctld reconfiguration and recipe jobs' state, cancel, requeue
// and sbatch fallback go through CLI, which every Slurm version has and which
// works before slurmrestd runs; recipe jobs are submitted with the REST
// client where the plugin can express them.
//
// slurmrestd serves one URL tree per API plugin (/slurm/v0.0.NN/...) and the
// JSON shapes change between plugins. The client asks the server which
// plugins it offers (GET /openapi/v3, then /openapi, then probing
// /slurm/v0.0.NN/ping) and talks to the newest one it has an adapter for.
// Each adapter lives in one file (v0038.go, v0039.go, v0040.go, ...), so
// supporting a new plugin is one new file that registers itself.
//
// Supported plugins: v0.0.38 (Debian 12's Slurm 22.05, used by the local
// cloud and the integration tests), v0.0.39 (Slurm 23.02), and v0.0.40 to
// v0.0.42 (Slurm 23.11 to 24.11, production images).
//
// What v0.0.38 cannot do, and what the caller does instead:
//   - Node updates (drain, resume, down, power down): the plugin has no
//     POST /node/{name}. UpdateNode returns an error matching ErrUnsupported;
//     the agent then runs scontrol (UpdateNodeScontrol).
//   - A warning signal for the batch shell only ("B:USR1@120"): the plugin
//     rejects the B: prefix and ignores #SBATCH lines in the script. SubmitJob
//     returns an error matching ErrUnsupported; "USR1@120" (signal all job
//     steps) works.
//   - A bad or expired JWT is reported as HTTP 500 with Slurm error -1
//     ("Unspecified error"), which cannot be told apart from other failures,
//     so IsUnauthorized only recognises a missing token (HTTP 401) there.
//     TokenFromScontrol renews tokens before they expire.
package slurm
