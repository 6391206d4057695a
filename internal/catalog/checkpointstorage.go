package catalog

// Checkpoint storage targets and the write throughput a checkpoint gets on
// each. Lustre's throughput follows from its tier table (lustre.go):
// MBps per TiB × capacity.
const (
	CheckpointLustre   = "lustre"
	CheckpointLocalSSD = "local-ssd"
	CheckpointBucket   = "bucket"
	// CheckpointFilestore is a directory on the cluster's Filestore /home;
	// its throughput is the tier's (filestore_throughput.go). The goodput
	// plan data source does not offer it (its inputs have no tier).
	CheckpointFilestore = "filestore"
)

// CheckpointTargets lists the storage targets a checkpoint cost can be derived for.
func CheckpointTargets() []string {
	return []string{CheckpointLustre, CheckpointLocalSSD, CheckpointBucket}
}

// BucketWriteMBpsPerVM is Cloud Storage FUSE's sequential write bandwidth from
// one VM: 4,624.59 MB/s writing 1 GiB files (gcsfuse docs/benchmarks.md,
// v3.4.3 on c4-standard-192 with 200 Gbps Tier_1 networking). Every VM
// writes its shard in parallel; a bucket's ingress does not cap the sum.
const BucketWriteMBpsPerVM = 4624.59

// LocalSSDDeviceGB is the size of one local SSD device (375 GB, public
// Compute Engine documentation).
const LocalSSDDeviceGB = 375

// LocalSSDWriteMBpsPerDevice is the write throughput of one NVMe local SSD
// device. Public Compute Engine documentation, local SSD performance table
// (350 MiB/s ≈ 367 MB/s per device); not in the facts files and not verified
// in this workspace — override the checkpoint cost when it matters.
const LocalSSDWriteMBpsPerDevice = 367

// LocalSSDWriteMBps is a machine type's local SSD write throughput (its
// bundled devices in parallel); 0 when it bundles none.
func (m MachineType) LocalSSDWriteMBps() float64 {
	return float64(m.LocalSSDGB/LocalSSDDeviceGB) * LocalSSDWriteMBpsPerDevice
}

// HostCopyGBpsPerGPU is the device-to-host copy rate an asynchronous
// checkpoint pauses training for: PCIe Gen5 x16, 64 GB/s per direction (NVIDIA
// H100/H200/B200 datasheets: 128 GB/s bidirectional). A peak figure; GB200's
// NVLink-C2C is faster, so for A4X it is a lower bound.
const HostCopyGBpsPerGPU = 64
