package metrics

import "github.com/prometheus/client_golang/prometheus"

// Job is one recipe job's progress as its trainer reports it. The label is recipe_job (the
// hypercompute_recipe_job name), since Prometheus keeps "job" for the scrape job.
type Job struct {
	Name, Partition, State string
	SlurmJobID             string
	Step, MaxSteps         float64
	Loss                   float64
	// StepSeconds and TokensPerSecond are the last logged step's (negative: not reported).
	StepSeconds, TokensPerSecond float64
	// CheckpointAgeSeconds is since the newest checkpoint (or the run's start before the first);
	// negative: not known.
	CheckpointAgeSeconds, CheckpointCostSeconds, CheckpointIntervalSeconds float64
	LostSeconds, MFU                                                       float64
	Restarts                                                               float64
	// RunStarted is when the current run started (Unix seconds; 0: not running).
	RunStarted float64
}

type jobMetrics struct {
	step, maxSteps, loss, stepTime, tokens, ckptAge, ckptCost, ckptInterval, lost, mfu, restarts, running, started *prometheus.GaugeVec
	goodput                                                                                                        *prometheus.GaugeVec
}

func newJobMetrics(reg prometheus.Registerer) jobMetrics {
	g := func(name, help string) *prometheus.GaugeVec {
		v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"recipe_job", "partition"})
		reg.MustRegister(v)
		return v
	}
	goodput := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hypercompute_goodput_ratio",
		Help: "Measured goodput over a window: kind scheduling, runtime or program (MFU), for the cluster (partition=\"\") or a partition (runtime)."},
		[]string{"window", "kind", "partition"})
	reg.MustRegister(goodput)
	return jobMetrics{
		goodput:      goodput,
		step:         g("hypercompute_job_step", "Training steps the recipe job has done."),
		maxSteps:     g("hypercompute_job_max_steps", "Training steps the recipe job runs to."),
		loss:         g("hypercompute_job_loss", "The recipe job's last logged training loss."),
		stepTime:     g("hypercompute_job_step_seconds", "Wall time of the recipe job's last logged step."),
		tokens:       g("hypercompute_job_tokens_per_second", "Tokens per second of the recipe job's last logged step."),
		ckptAge:      g("hypercompute_job_checkpoint_age_seconds", "Seconds since the recipe job's newest checkpoint (since its run started before the first)."),
		ckptCost:     g("hypercompute_job_checkpoint_cost_seconds", "What one checkpoint of the recipe job costs, as measured."),
		ckptInterval: g("hypercompute_job_checkpoint_interval_seconds", "The recipe job's checkpoint interval."),
		lost:         g("hypercompute_job_lost_work_seconds", "Training time the recipe job redid after restarts."),
		mfu:          g("hypercompute_job_mfu", "The recipe job's model FLOPs utilisation (program goodput), 0-1."),
		restarts:     g("hypercompute_job_restarts", "Starts of the recipe job after its first."),
		running:      g("hypercompute_job_running", "1 while the recipe job's Slurm job runs."),
		started:      g("hypercompute_job_run_start_timestamp_seconds", "When the recipe job's current run started (Unix time)."),
	}
}

// SetJobs replaces the recipe job series.
func (r *Registry) SetJobs(jobs []Job) {
	m := &r.jobs
	all := []*prometheus.GaugeVec{m.step, m.maxSteps, m.loss, m.stepTime, m.tokens, m.ckptAge, m.ckptCost, m.ckptInterval, m.lost, m.mfu, m.restarts, m.running, m.started}
	for _, v := range all {
		v.Reset()
	}
	for _, j := range jobs {
		l := prometheus.Labels{"recipe_job": j.Name, "partition": j.Partition}
		running := 0.0
		if j.State == "RUNNING" {
			running = 1
		}
		vals := []float64{j.Step, j.MaxSteps, j.Loss, j.StepSeconds, j.TokensPerSecond, j.CheckpointAgeSeconds,
			j.CheckpointCostSeconds, j.CheckpointIntervalSeconds, j.LostSeconds, j.MFU, j.Restarts, running, j.RunStarted}
		for i, v := range all {
			if vals[i] >= 0 {
				v.With(l).Set(vals[i])
			}
		}
	}
}

// Goodput is the controller's measured goodput over one window (cc.GoodputWindows).
type Goodput struct {
	Window                       string
	Scheduling, Runtime, Program float64
	// Partitions' runtime goodput.
	Partitions map[string]float64
}

// SetGoodput replaces the goodput series of the windows given.
func (r *Registry) SetGoodput(gs []Goodput) {
	r.jobs.goodput.Reset()
	for _, g := range gs {
		r.jobs.goodput.WithLabelValues(g.Window, "scheduling", "").Set(g.Scheduling)
		r.jobs.goodput.WithLabelValues(g.Window, "runtime", "").Set(g.Runtime)
		r.jobs.goodput.WithLabelValues(g.Window, "program", "").Set(g.Program)
		for p, v := range g.Partitions {
			r.jobs.goodput.WithLabelValues(g.Window, "runtime", p).Set(v)
		}
	}
}
