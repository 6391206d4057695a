package trainingcluster_test

import (
	"testing"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/acctest"
)

// Bad input is refused at plan time, names the attribute, and never reaches the API.
func TestAccTrainingCluster_invalidInput(t *testing.T) {
	env := acctest.New(t)
	const (
		home  = "  home = { nfs_source = \"10.0.0.2:/home\" }\n"
		agent = "  agent = { url = \"file:///opt/hypercompute-agent\", sha256 = \"" +
			"abababababababababababababababababababababababababababababababab\" }\n"
		otherZoneFS = "projects/hc-acc-test/locations/us-central1-b/instances/home"
	)
	cases := []struct {
		name, body, want string
	}{
		{"name too long for derived VM names", `  name = "a-cluster-name-that-is-far-too-long"` + "\n" + home + agent,
			`name: cluster name "a-cluster-name-that-is-far-too-long" is 35 characters long; at most 32`},
		{"uppercase name", `  name = "ML"` + "\n" + home + agent, `name: cluster name "ML" is invalid`},
		{"too many login VMs", `  name = "hc"` + "\n" + home + agent + "  login = { count = 17 }\n", `login\.count value must be between 0 and 16, got: 17`},
		{"machine type not offered in the zone", `  name = "hc"` + "\n" + home + agent + "  controller = { machine_type = \"g2-standard-4\" }\n  zone = \"us-central1-f\"\n",
			`controller\.machine_type: machine type g2-standard-4 is not offered in zone us-central1-f`},
		{"unknown login machine type", `  name = "hc"` + "\n" + home + agent + "  login = { machine_type = \"n9-standard-4\" }\n",
			`login\.machine_type: .*n9-standard-4`},
		{"GPU controller", `  name = "hc"` + "\n" + home + agent + "  controller = { machine_type = \"a3-highgpu-8g\" }\n",
			`controller\.machine_type: a3-highgpu-8g is a GPU or Arm machine type`},
		{"extra setting the product manages", `  name = "hc"` + "\n" + home + agent + "  slurm = { extra = { SlurmctldPort = \"7000\" } }\n",
			`slurm\.extra: .*SlurmctldPort`},
		{"extra setting Slurm does not know", `  name = "hc"` + "\n" + home + agent + "  slurm = { extra = { MaxJobCnt = \"20000\" } }\n",
			`slurm\.extra: .*MaxJobCnt`},
		{"prolog without interpreter", `  name = "hc"` + "\n" + home + agent + "  slurm = { prolog = \"echo hi\" }\n",
			`slurm\.prolog: the script must start with an interpreter line`},
		{"both home sources", `  name = "hc"` + "\n" + agent + "  home = {\n    nfs_source = \"10.0.0.2:/home\"\n    filestore = \"" + otherZoneFS + "\"\n  }\n",
			`home: set exactly one of home\.filestore`},
		{"Filestore in another zone", `  name = "hc"` + "\n" + agent + "  home = { filestore = \"" + otherZoneFS + "\" }\n",
			`home\.filestore: Filestore instance .*home is in us-central1-b, but the cluster's VMs are in zone us-central1-a`},
		{"Lustre in another zone", `  name = "hc"` + "\n" + home + agent + "  lustre = { instance = \"projects/hc-acc-test/locations/us-east1-b/instances/scratch\" }\n",
			`lustre\.instance: Managed Lustre instance .*scratch is in us-east1-b, but the cluster's VMs are in zone us-central1-a`},
		{"malformed NFS source", `  name = "hc"` + "\n" + agent + "  home = { nfs_source = \"nfs.example.com:/home\" }\n",
			`home\.nfs_source: "nfs\.example\.com:/home" is not an NFS source`},
		{"bucket mounted inside Lustre", `  name = "hc"` + "\n" + home + agent + "  lustre = { mount_source = \"10.0.0.3@tcp:/lfs\" }\n" +
			"  buckets = [{ bucket = \"ml-data\", mount_path = \"/lustre/data\", profile = \"training\" }]\n",
			`buckets: mount point /lustre/data lies inside /lustre`},
		{"two buckets at one path", `  name = "hc"` + "\n" + agent + "  home = { filestore = \"projects/hc-acc-test/locations/us-central1-a/instances/home\" }\n" +
			"  buckets = [\n    { bucket = \"ml-data\", mount_path = \"/gcs/data\", profile = \"training\" },\n" +
			"    { bucket = \"ml-ckpt\", mount_path = \"/gcs/data\", profile = \"checkpointing\" },\n  ]\n",
			`buckets: mount point /gcs/data is used twice`},
		{"storage entry with two sources", `  name = "hc"` + "\n" + home + agent +
			"  storage = [{ mount_path = \"/data\", nfs_source = \"10.0.0.5:/data\", lustre_source = \"10.0.0.6@tcp:/lfs\" }]\n",
			`(?s)storage\[0\]: set exactly one of filestore.*nfs_source.*lustre_source`},
		{"storage entry with no source", `  name = "hc"` + "\n" + home + agent + "  storage = [{ mount_path = \"/data\" }]\n",
			`storage\[0\]: set exactly one of filestore`},
		{"storage Lustre in another zone", `  name = "hc"` + "\n" + home + agent +
			"  storage = [{ mount_path = \"/scratch\", lustre = \"projects/hc-acc-test/locations/us-east1-b/instances/scratch\" }]\n",
			`storage\[0\]\.lustre: Managed Lustre instance .*scratch is in us-east1-b, but the cluster's VMs are in zone us-central1-a`},
		{"malformed storage NFS source", `  name = "hc"` + "\n" + home + agent + "  storage = [{ mount_path = \"/data\", nfs_source = \"filer:/data\" }]\n",
			`storage\[0\]\.nfs_source: "filer:/data" is not an NFS source`},
		{"storage at /home", `  name = "hc"` + "\n" + home + agent + "  storage = [{ mount_path = \"/home\", nfs_source = \"10.0.0.5:/data\" }]\n",
			`storage\[0\]\.mount_path: mount point /home is used twice`},
		{"storage inside another", `  name = "hc"` + "\n" + home + agent + "  storage = [\n" +
			"    { mount_path = \"/data\", nfs_source = \"10.0.0.5:/data\" },\n" +
			"    { mount_path = \"/data/more\", lustre_source = \"10.0.0.6@tcp:/lfs\" },\n  ]\n",
			`storage\[1\]\.mount_path: mount point /data/more lies inside /data`},
		{"bucket at a storage path", `  name = "hc"` + "\n" + home + agent + "  storage = [{ mount_path = \"/data\", nfs_source = \"10.0.0.5:/data\" }]\n" +
			"  buckets = [{ bucket = \"ml-data\", mount_path = \"/data\", profile = \"training\" }]\n",
			`buckets: mount point /data is used twice`},
		{"subnet in another region", `  name = "hc"` + "\n" + home + agent + "  subnet = \"projects/hc-acc-test/regions/us-east1/subnetworks/hc-net-subnet\"\n",
			`subnet: .* is in region us-east1, but zone us-central1-a is in region us-central1`},
		{"reserved label", `  name = "hc"` + "\n" + home + agent + "  labels = { hypercompute-role = \"x\" }\n",
			`labels: "hypercompute-role" is set by the provider`},
		{"the provider's creation marker", `  name = "hc"` + "\n" + home + agent + "  labels = { hypercompute-create = \"pending\" }\n",
			`labels: label key "hypercompute-create" is reserved`},
		{"bare scope name", `  name = "hc"` + "\n" + home + agent + "  service_accounts = { login = { scopes = [\"logging.write\"] } }\n",
			`service_accounts\.login\.scopes\[0\]: "logging\.write" is not an OAuth scope URL .*did you mean "https://www\.googleapis\.com/auth/logging\.write"`},
		{"scope listed twice", `  name = "hc"` + "\n" + home + agent + "  service_account = { scopes = [\"https://www.googleapis.com/auth/compute\", \"https://www.googleapis.com/auth/compute\"] }\n",
			`service_account\.scopes\[1\]: "https://www\.googleapis\.com/auth/compute" is listed twice`},
		{"not an email", `  name = "hc"` + "\n" + home + agent + "  service_accounts = { compute = { email = \"nodes\" } }\n",
			`service_accounts\.compute\.email: "nodes" is not a service account email`},
		{"login zone in another region", `  name = "hc"` + "\n" + home + agent + "  login = { zone = \"us-east1-b\" }\n",
			`login\.zone: us-east1-b is in region us-east1, not in the cluster's region us-central1`},
		{"unknown login zone", `  name = "hc"` + "\n" + home + agent + "  login = { zone = \"us-central1-q\" }\n", `login\.zone: .*us-central1-q`},
		{"login machine type not offered in the login zone", `  name = "hc"` + "\n" + home + agent + "  login = { zone = \"us-central1-f\", machine_type = \"g2-standard-4\" }\n",
			`login\.machine_type: machine type g2-standard-4 is not offered in zone us-central1-f`},
		{"product label on login VMs", `  name = "hc"` + "\n" + home + agent + "  login = { labels = { hypercompute-role = \"x\" } }\n",
			`login\.labels: label "hypercompute-role": keys starting with "hypercompute-" are the provider's own`},
		{"invalid login label", `  name = "hc"` + "\n" + home + agent + "  login = { labels = { Team = \"ml\" } }\n", `login\.labels: .*Team`},
		{"login pool name twice", `  name = "hc"` + "\n" + home + agent + "  login_pools = [{ name = \"dev\" }, { name = \"dev\" }]\n",
			`login_pools\[1\]\.name: login pool "dev" is already login_pools\[0\]`},
		{"bad login pool name", `  name = "hc"` + "\n" + home + agent + "  login_pools = [{ name = \"Dev_1\" }]\n", `login_pools\[0\]\.name: login pool name "Dev_1" is invalid`},
		{"login pool zone in another region", `  name = "hc"` + "\n" + home + agent + "  login_pools = [{ name = \"dev\", zone = \"europe-west4-a\" }]\n",
			`login_pools\[0\]\.zone: europe-west4-a is in region europe-west4, not in the cluster's region us-central1`},
		{"product label on a login pool", `  name = "hc"` + "\n" + home + agent + "  login_pools = [{ name = \"dev\", labels = { hypercompute-cluster = \"x\" } }]\n",
			`login_pools\[0\]\.labels: label "hypercompute-cluster"`},
		{"no agent on a development build", `  name = "hc"` + "\n" + home, `agent: this is a development build of the provider`},
		{"bad agent digest", `  name = "hc"` + "\n" + home + "  agent = { url = \"file:///opt/agent\", sha256 = \"abc\" }\n",
			`agent sha256 "abc" is invalid`},
	}
	for _, tc := range cases {
		acctest.PlanFails(t, factories, tc.name, env.Config(`
resource "hypercompute_training_cluster" "test" {
  network = "hc-net"
`+tc.body+`}
`), tc.want)
	}
	env.RequireNoCalls(t, "invalid configurations")
}
