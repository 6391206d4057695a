package slurm

// v0.0.41: Slurm 24.05. Every shape this client reads or writes is as in
// v0.0.40; ping entries gain "responding" and "primary", which decodePingV39
// already prefers.

func init() { register(v0041{}) }

type v0041 struct{ v0040 }

func (v0041) version() string { return "v0.0.41" }
