// Package slurmcheck validates a rendered slurm.conf with the real slurmctld.
//
// Slurm has no check mode, and a configuration slurmctld dislikes kills it
// (a reconfigure whose partition names an unknown node stops the running
// controller). Validate therefore starts a throw-away slurmctld on the
// configuration: ports, state, logs and pid files are moved into a private
// temporary directory with a private munged, slurmctld must reach "Running as
// primary controller" without a fatal error, and what it loaded is read back
// with scontrol and sinfo. It also catches the mistakes slurmctld accepts
// silently (a node whose Gres comes up empty because GresTypes is missing, a
// partition whose NodeSet matches no node, a power-saving program that is
// not executable).
//
// Tests use it to prove rendered configurations load; the agent can use it
// to refuse a configuration before `scontrol reconfigure`. A rejected
// configuration comes back as a *RejectedError carrying slurmctld's own
// error lines, which is the text the agent reports.
//
// It needs root (slurmctld runs as SlurmUser=root here) and the Debian
// packages slurmctld, slurm-client and munge; Available says what is
// missing and Require skips a test cleanly without them.
package slurmcheck
