// Package clusterconfig is a cluster's desired configuration and its
// deterministic rendering into the files a Slurm cluster runs on.
//
// The provider builds the model (Cluster, one Partition per
// hypercompute_node_partition, a Node per VM role), writes it to instance
// metadata and renders the launcher startup-script and the hypercompute-node
// value; the agent on the controller reads the same model back and renders
// slurm.conf, gres.conf, cgroup.conf and the mount table with this package.
// Because both sides render with one package, the config hash the agent
// reports as applied is the hash the provider expects.
//
// Rendering is pure and byte-for-byte deterministic: maps are emitted in
// sorted order, partitions by name, and nothing depends on time or
// environment. Machine facts (CPUs, memory, GPUs, features) come only from
// internal/catalog.
//
// The slurm.conf is written for Slurm 22.05 (Debian 12, the local cloud) and
// stays valid on 23.x/24.x: keys only newer releases know (PowerDownOnIdle,
// SuspendExcStates) and options later releases removed (cloud_reg_addrs) are
// never emitted and are refused in user settings.
package clusterconfig
