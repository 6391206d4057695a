# The CPU recipe: a small decoder-only language model trained with PyTorch DistributedDataParallel
# over gloo on two nodes of a CPU partition. Checkpoints go to the cluster's Lustre (or /home)
# every five minutes, the last three are kept, and the apply ends when Slurm reports the job
# COMPLETED. A requeued job, or one whose node failed, resumes from its newest checkpoint.
resource "hypercompute_recipe_job" "pretrain" {
  cluster   = hypercompute_training_cluster.prod.id
  partition = hypercompute_node_partition.cpu.name
  name      = "tiny-gpt-pretrain"
  nodes     = 2

  recipe = {
    model = "tiny-gpt"
    size  = "8m"
    mode  = "pretrain"
  }

  overrides = {
    max_steps = 2000
    hyperparameters = {
      learning_rate = "0.002"
    }
  }

  checkpoint = {
    interval  = "5m"
    keep_last = 3
  }

  wait_for = "completed"
  timeouts = { create = "2h" }
}

# Fine-tuning starts from the weights of the pretraining run's checkpoints.
resource "hypercompute_recipe_job" "sft" {
  cluster   = hypercompute_training_cluster.prod.id
  partition = hypercompute_node_partition.cpu.name
  name      = "tiny-gpt-sft"

  recipe = {
    model = "tiny-gpt"
    size  = "8m"
    mode  = "sft"
  }

  overrides = {
    max_steps = 500
  }

  checkpoint = {
    interval    = "2m"
    resume_from = hypercompute_recipe_job.pretrain.checkpoint.directory
  }
}

# Llama 3.1 8B pretraining with the public recipe's defaults for the partition's family (node
# count, parallelism, FP8 on A3 Mega, the NeMo container, the TCPXO NCCL environment), and the
# Young/Daly checkpoint interval from the family's failure figures ("auto", the default).
resource "hypercompute_recipe_job" "llama" {
  cluster   = hypercompute_training_cluster.prod.id
  partition = hypercompute_node_partition.a3mega.name
  name      = "llama31-8b-pretrain"

  recipe = {
    model = "llama3.1"
    size  = "8b"
    mode  = "pretrain"
  }

  overrides = {
    max_steps = 50000
    env = {
      NCCL_DEBUG = "WARN"
    }
  }

  tensorboard_dir = "/lustre/tensorboard/llama31-8b"
  export_path     = "/lustre/models/llama31-8b"
}

# The team's own program instead of a catalog recipe: train_regression.py (next to this file) is a
# PyTorch linear regression over both nodes. It runs in the recipes' batch script, so it gets their
# guarantees: HYPERCOMPUTE_CHECKPOINT_DIR and the interval in its environment, SIGUSR1 two
# minutes before the time limit (it saves a checkpoint and exits; the job requeues itself), a
# requeue or a node failure resumes from its newest checkpoint, a crash is restarted by the
# restart policy. It reports step, loss and checkpoints through the `hypercompute` module the job
# ships, so `step`, `last_loss`, `time_lost` and `mfu` (from flops_per_step) work as for recipes.
resource "hypercompute_recipe_job" "regression" {
  cluster   = hypercompute_training_cluster.prod.id
  partition = hypercompute_node_partition.cpu.name
  name      = "team-regression"
  nodes     = 2

  recipe = {
    custom = {
      script = file("${path.module}/train_regression.py")
      # 6 FLOPs per weight and sample (forward and backward): 6 × 64 features × 256 samples × 2 nodes.
      flops_per_step = 196608
    }
  }

  overrides  = { max_steps = 5000 }
  checkpoint = { interval = "2m", keep_last = 2 }
  time_limit = "2h"
  wait_for   = "completed"
}

# A program that lives on the cluster's storage, run in a container on every GPU of two A3 Mega
# nodes (one task per GPU), with the catalog's NCCL environment for the family's NIC stack and the
# Young/Daly checkpoint interval from its failure figures.
resource "hypercompute_recipe_job" "finetune" {
  cluster   = hypercompute_training_cluster.prod.id
  partition = hypercompute_node_partition.a3mega.name
  name      = "team-finetune"
  nodes     = 2

  recipe = {
    custom = {
      command         = "python3 /home/team/finetune.py --config /home/team/finetune.yaml"
      container_image = "nvcr.io/nvidia/pytorch:24.12-py3"
      environment     = { HF_HOME = "/lustre/hf" }
      # 6 × 8.03e9 parameters × 1,048,576 tokens per step.
      flops_per_step = 5.05e16
    }
  }

  time_limit = "24h"
}
