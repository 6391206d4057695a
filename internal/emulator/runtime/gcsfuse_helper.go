//go:build linux

package vmruntime

import _ "embed"

// gcsfuseMountHelper is /usr/sbin/mount.gcsfuse in every host: it runs the machine's real gcsfuse against the
// emulator's Cloud Storage API, so `mount -t gcsfuse BUCKET DIR` in a guest mounts an emulated bucket.
//
//go:embed mount_gcsfuse.sh
var gcsfuseMountHelper []byte
