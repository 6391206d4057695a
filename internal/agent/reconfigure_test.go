package agent

import "testing"

func TestSameNodeDefinitionsDecidesRestartOverReconfigure(t *testing.T) {
	base := "ClusterName=c\nNodeName=c-a-[0-3] CPUs=8 State=CLOUD\nNodeSet=a_nodes Nodes=c-a-[0-3]\nPartitionName=a Nodes=a_nodes\n"
	cases := []struct {
		name, next string
		same       bool
	}{
		{"setting change only", "ClusterName=c\nMaxJobCount=5\nNodeName=c-a-[0-3] CPUs=8 State=CLOUD\nNodeSet=a_nodes Nodes=c-a-[0-3]\nPartitionName=a Nodes=a_nodes MaxTime=60\n", true},
		{"partition added", base + "NodeName=c-b-[0-1] CPUs=4 State=CLOUD\nNodeSet=b_nodes Nodes=c-b-[0-1]\nPartitionName=b Nodes=b_nodes\n", false},
		{"nodes scaled", "ClusterName=c\nNodeName=c-a-[0-7] CPUs=8 State=CLOUD\nNodeSet=a_nodes Nodes=c-a-[0-7]\nPartitionName=a Nodes=a_nodes\n", false},
		{"first start", "", false},
	}
	for _, tc := range cases {
		if got := sameNodeDefinitions([]byte(base), []byte(tc.next)); got != tc.same {
			t.Errorf("%s: sameNodeDefinitions = %v, want %v", tc.name, got, tc.same)
		}
	}
}
