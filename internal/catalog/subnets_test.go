package catalog

import "testing"

func TestSubnetUsableAddresses(t *testing.T) {
	for bits, want := range map[int]int{24: 252, 21: 2044, 20: 4092, 29: 4, 8: 16777212, 7: 0, 30: 0} {
		if got := SubnetUsableAddresses(bits); got != want {
			t.Errorf("SubnetUsableAddresses(%d) = %d, want %d", bits, got, want)
		}
	}
}
