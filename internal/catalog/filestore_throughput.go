package catalog

// Filestore write throughput per tier, from Filestore's published
// performance limits (docs "Filestore performance", the table of read/write
// IOPS and MiBps at each tier's minimum and maximum capacity): Basic tiers
// have a fixed figure per capacity range, Zonal, Regional and Enterprise
// scale linearly with capacity within a range. The figures are estimated
// limits, not guarantees, and assume enough clients and nconnect to reach
// them (the cluster mounts /home with nconnect=4 on every VM). Custom
// performance (purchased IOPS) is not modelled; HIGH_SCALE_SSD, a former
// tier, is absent from the table and has no figure.
type filestoreWriteBand struct {
	MinGB, MaxGB int64
	// FixedMiBps is the band's write throughput whatever the capacity;
	// PerTiBMiBps scales with it. Exactly one is set.
	FixedMiBps, PerTiBMiBps float64
}

var filestoreWriteBands = map[string][]filestoreWriteBand{
	// 100 MiBps from 1 TiB to 10 TiB, 120 MiBps from 10 TiB to 63.9 TiB.
	"BASIC_HDD": {{MinGB: 1 * tib, MaxGB: 10*tib - 1, FixedMiBps: 100}, {MinGB: 10 * tib, MaxGB: basicMaxGB, FixedMiBps: 120}},
	// 350 MiBps at any capacity.
	"BASIC_SSD": {{MinGB: 2560, MaxGB: basicMaxGB, FixedMiBps: 350}},
	// 88 MiBps at 1 TiB, 858 at 9.75 TiB, 880 at 10 TiB, 8,800 at 100 TiB.
	"ZONAL": {{MinGB: 1 * tib, MaxGB: 100 * tib, PerTiBMiBps: 88}},
	// 100 MiBps at 1 TiB and 975 at 9.75 TiB; 880 at 10 TiB and 8,800 at 100 TiB.
	"REGIONAL": {{MinGB: 1 * tib, MaxGB: 10*tib - 1, PerTiBMiBps: 100}, {MinGB: 10 * tib, MaxGB: 100 * tib, PerTiBMiBps: 88}},
	// 100 MiBps at 1 TiB, 1,000 at 10 TiB.
	"ENTERPRISE": {{MinGB: 1 * tib, MaxGB: 10 * tib, PerTiBMiBps: 100}},
}

// mibToMB converts MiB/s to the MB/s the checkpoint figures use.
const mibToMB = 1 << 20 / 1e6

// FilestoreWriteMBps is the aggregate write throughput, in MB/s, of a
// Filestore instance of tier (an API name or alias) and capacity (GB, which
// are GiB). ok is false for a tier or capacity the published table does not
// cover.
func FilestoreWriteMBps(tier string, capacityGB int64) (mbps float64, ok bool) {
	t, found := FilestoreTierByName(tier)
	if !found {
		return 0, false
	}
	for _, b := range filestoreWriteBands[t.Name] {
		if capacityGB < b.MinGB || capacityGB > b.MaxGB {
			continue
		}
		if b.FixedMiBps > 0 {
			return b.FixedMiBps * mibToMB, true
		}
		return b.PerTiBMiBps * float64(capacityGB) / tib * mibToMB, true
	}
	return 0, false
}
