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
