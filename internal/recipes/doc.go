// Package recipes is the one table of training recipes (model, size, mode,
// machine profile → parallelism, precision, batch, container, NCCL
// environment) and the rendering of a resolved Job into the Slurm batch
// script the controller's agent submits. The provider (recipe_job, the
// hypercompute_recipes data source) and the agent read the same table.
package recipes
