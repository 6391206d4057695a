// Package catalog is the project's single source of truth for hardware and
// storage facts: machine types (CPUs, memory, GPUs, GPU NIC stacks, MTU,
// images, pinned driver/plugin versions, placement rules, quota metrics),
// zones and the hardware each offers, Filestore tier rules (capacity, share
// names, protocols) and Managed Lustre capacity rules, Google Cloud's label
// rules, and the naming rules of Compute Engine and Slurm.
//
// The provider (plan-time validation), the node agent (slurm.conf rendering)
// and the emulator (machineTypes/zones APIs and server-side storage rules) all
// read these tables, so a fact changes in exactly one place. Figures come from
// the project's facts files (shared/facts/hardware-and-field.md and
// gcp-apis.md); where those are silent, the public Google Cloud documented
// value is used and the comment next to it says so.
//
// Every accessor returns copies: callers may modify what they get without
// changing the catalog.
package catalog
