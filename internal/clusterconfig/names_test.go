package clusterconfig

import "testing"

func TestParseLoginName(t *testing.T) {
	for _, tc := range []struct {
		vm, pool string
		i        int
		ok       bool
	}{
		{"ml-login-0", "", 0, true},
		{"ml-login-15", "", 15, true},
		{"ml-login-gpu-dev-3", "gpu-dev", 3, true},
		{"ml-login-a-1-0", "a-1", 0, true},
		{"ml-login-16", "", 0, false},
		{"ml-login-01", "", 0, false},
		{"ml-login-gpu-", "", 0, false},
		{"ml-login--1", "", 0, false},
		{"ml-controller", "", 0, false},
		{"ml-gpu-0", "", 0, false},
	} {
		pool, i, ok := ParseLoginName("ml", tc.vm)
		if ok != tc.ok || ok && (pool != tc.pool || i != tc.i) {
			t.Errorf("ParseLoginName(ml, %s) = %q, %d, %v; want %q, %d, %v", tc.vm, pool, i, ok, tc.pool, tc.i, tc.ok)
		}
		if ok && LoginPoolName("ml", pool, i) != tc.vm {
			t.Errorf("LoginPoolName(ml, %q, %d) = %s, want %s", pool, i, LoginPoolName("ml", pool, i), tc.vm)
		}
	}
}
