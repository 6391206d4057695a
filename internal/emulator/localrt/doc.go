// Package localrt holds the end-to-end tests of the local runtime as a user meets it: an emulator with the
// runtime attached (emulator.AttachLocalRuntime, hypercompute-emulator --runtime=local), driven only through
// the official Google Cloud Go clients. VMs created through the Compute API boot as hosts of this machine,
// mount Filestore and Lustre instances created through their APIs, report through guest attributes and run a
// real Slurm cluster; closing or killing the emulator leaves nothing behind.
//
// The tests need Linux, root and the Debian packages scripts/install-deps.sh installs; elsewhere they skip
// with the reason.
package localrt
