package clusterconfig_test

import (
	"strings"

	cc "github.com/hypercompute/terraform-provider-hypercompute/internal/clusterconfig"
)

// shape is one cluster layout the golden and slurmctld tests cover.
type shape struct {
	name    string
	cluster cc.Cluster
	parts   []cc.Partition
}

var (
	agentX86 = cc.AgentRef{Version: "0.1.0", URL: "https://storage.googleapis.com/hypercompute-releases/0.1.0/hypercompute-agent-linux-amd64", SHA256: strings.Repeat("ab", 32)}
	agentARM = cc.AgentRef{Version: "0.1.0", Arch: "arm64", URL: "https://storage.googleapis.com/hypercompute-releases/0.1.0/hypercompute-agent-linux-arm64", SHA256: strings.Repeat("cd", 32)}
)

func baseCluster(name string) cc.Cluster {
	return cc.Cluster{
		Name:       name,
		Controller: cc.Controller{Hostname: cc.ControllerName(name), Address: "10.0.0.2"},
		LoginCount: 1,
		Mounts:     cc.Mounts{Home: cc.NFSMount{Server: "10.0.1.2", Share: "/share"}},
		Agents:     []cc.AgentRef{agentX86},
	}
}

func shapes() []shape {
	full := baseCluster("prod")
	full.Mounts.Lustre = &cc.LustreMount{Address: "10.0.2.5", FSName: "lfs"}
	full.Mounts.Buckets = []cc.BucketMount{
		{Bucket: "prod-datasets", MountPoint: "/gcs/data", Profile: cc.BucketProfileTraining},
		{Bucket: "prod-checkpoints", MountPoint: "/gcs/checkpoints", Profile: cc.BucketProfileCheckpointing, CacheDir: "/mnt/localssd/gcsfuse"},
	}

	extra := baseCluster("site")
	extra.Slurm = cc.SlurmSettings{
		SchedulerParameters: []string{"bf_interval=60", "bf_max_job_test=500"},
		Prolog:              "#!/bin/bash\nexit 0\n",
		Epilog:              "#!/bin/bash\nexit 0\n",
		SlurmctldPort:       7817,
		SlurmdPort:          7818,
		SuspendTime:         900,
		Extra: map[string]string{
			"MaxJobCount":            "50000",
			"MessageTimeout":         "100",
			"SlurmctldParameters":    "max_dbd_msg_action=discard",
			"PrivateData":            "usage",
			"InteractiveStepOptions": "--interactive --preserve-env --pty $SHELL",
			"KillWait":               "60",
		},
	}
	extra.Health = &cc.HealthCheck{Program: "/usr/local/sbin/hypercompute-healthcheck", Interval: 60, NodeState: "ANY,CYCLE"}

	a4x := baseCluster("arm")
	a4x.Agents = []cc.AgentRef{agentX86, agentARM}

	return []shape{
		{name: "cpu-only", cluster: baseCluster("cpu"), parts: []cc.Partition{
			{Name: "compute", MachineType: "n2-standard-32", StaticNodes: 2, MaxDynamicNodes: 8, Default: true},
		}},
		{name: "a3-high-mega", cluster: baseCluster("a3"), parts: []cc.Partition{
			{Name: "a3high", MachineType: "a3-highgpu-8g", StaticNodes: 4, MaxDynamicNodes: 12, Exclusive: true, MaxTime: "2-00:00:00"},
			{Name: "a3mega", MachineType: "a3-megagpu-8g", MaxDynamicNodes: 32, Exclusive: true, Default: true, ResumeTimeout: 900},
		}},
		{name: "a3-ultra-a4", cluster: baseCluster("rdma"), parts: []cc.Partition{
			{Name: "a3ultra", MachineType: "a3-ultragpu-8g", StaticNodes: 8, Exclusive: true, Default: true},
			{Name: "a4", MachineType: "a4-highgpu-8g", StaticNodes: 2, MaxDynamicNodes: 6, Exclusive: true},
		}},
		{name: "a4x-arm64", cluster: a4x, parts: []cc.Partition{
			{Name: "gb200", MachineType: "a4x-highgpu-4g", StaticNodes: 18, Exclusive: true, Default: true},
		}},
		{name: "g2-two-gpus", cluster: baseCluster("g2"), parts: []cc.Partition{
			{Name: "l4", MachineType: "g2-standard-24", MaxDynamicNodes: 4, Default: true, SuspendTime: 300},
			{Name: "debug", MachineType: "e2-standard-4", StaticNodes: 1, MaxTime: "60"},
		}},
		{name: "dynamic-1000", cluster: baseCluster("big"), parts: []cc.Partition{
			{Name: "a3mega", MachineType: "a3-megagpu-8g", MaxDynamicNodes: 1000, Exclusive: true, Default: true},
		}},
		{name: "multi-partition", cluster: full, parts: []cc.Partition{
			{Name: "a3mega", MachineType: "a3-megagpu-8g", StaticNodes: 2, MaxDynamicNodes: 14, Exclusive: true},
			{Name: "cpu", MachineType: "c3-standard-88", MaxDynamicNodes: 20, Default: true},
			{Name: "g2_inference", MachineType: "g2-standard-48", MaxDynamicNodes: 4, Features: []string{"inference"}},
		}},
		{name: "extra-settings", cluster: extra, parts: []cc.Partition{
			{Name: "gpu", MachineType: "a3-megagpu-8g", StaticNodes: 1, MaxDynamicNodes: 3, Default: true, Exclusive: true,
				Features: []string{"tcpxo", "prod"},
				Extra:    map[string]string{"DefaultTime": "01:00:00", "MaxNodes": "64", "DefMemPerGPU": "200000", "PriorityTier": "10"}},
		}},
	}
}
