package clusterconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strconv"
)

// RenderFiles renders everything the controller's agent applies, keyed by
// absolute path: slurm.conf, gres.conf and cgroup.conf in Layout.ConfDir,
// and the cluster's prolog/epilog scripts.
func RenderFiles(c Cluster, parts []Partition) (map[string][]byte, error) {
	slurmConf, err := RenderSlurmConf(c, parts)
	if err != nil {
		return nil, err
	}
	gresConf, err := RenderGresConf(c, parts)
	if err != nil {
		return nil, err
	}
	conf := c.withDefaults().Layout.ConfDir
	files := map[string][]byte{
		path.Join(conf, SlurmConfFile):  slurmConf,
		path.Join(conf, GresConfFile):   gresConf,
		path.Join(conf, CgroupConfFile): RenderCgroupConf(),
	}
	for p, body := range Scripts(c) {
		files[p] = body
	}
	return files, nil
}

// Hash is the SHA-256 of the files of a cluster and its partitions alone (HashFiles of
// RenderFiles). What the controller reports once it applied a configuration also covers its
// health policies: that is Render's hash (AppliedHash).
func Hash(c Cluster, parts []Partition) (string, error) {
	files, err := RenderFiles(c, parts)
	if err != nil {
		return "", err
	}
	return HashFiles(files), nil
}

// HashFiles hashes files in path order, each framed by its path and length
// so no two different file sets hash alike. It returns lowercase hex.
func HashFiles(files map[string][]byte) string {
	h := sha256.New()
	for _, p := range sortedKeys(files) {
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(files[p]))))
		h.Write([]byte{0})
		h.Write(files[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}
