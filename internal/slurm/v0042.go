package slurm

// v0.0.42: Slurm 24.11. Every shape this client reads or writes is as in
// v0.0.40 and v0.0.41.

func init() { register(v0042{}) }

type v0042 struct{ v0040 }

func (v0042) version() string { return "v0.0.42" }
