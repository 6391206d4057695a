package compute

import (
	"sync"

	"github.com/hypercompute/terraform-provider-hypercompute/internal/emulator/core"
)

// DeleteGuard says whether the resource at key may be deleted: it returns the key (or name) of a resource that
// still uses it, or "" when nothing does.
type DeleteGuard func(tx *core.Tx, key string) (user string)

var (
	guardsMu sync.RWMutex
	guards   = map[string][]DeleteGuard{}
)

// AddDeleteGuard makes deletions of resources of kind (KindNetworks, KindSubnetworks, KindGlobalAddresses, ...)
// fail with RESOURCE_IN_USE_BY_ANOTHER_RESOURCE while guard reports a user. Other API packages use it for
// references Compute cannot see, e.g. Service Networking connections holding an allocated range.
func AddDeleteGuard(kind string, guard DeleteGuard) {
	guardsMu.Lock()
	guards[kind] = append(guards[kind], guard)
	guardsMu.Unlock()
}

func guardDelete(tx *core.Tx, kind, key string) string {
	guardsMu.RLock()
	gs := guards[kind]
	guardsMu.RUnlock()
	for _, g := range gs {
		if user := g(tx, key); user != "" {
			return user
		}
	}
	return ""
}
