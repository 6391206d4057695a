# The Llama 3.1 recipes an A3 Mega partition runs, with their published defaults.
data "hypercompute_recipes" "a3_mega_llama" {
  model   = "llama3.1"
  profile = "a3-mega"
}

output "a3_mega_llama_recipes" {
  value = {
    for r in data.hypercompute_recipes.a3_mega_llama.recipes :
    r.key => "${r.nodes} nodes, TP${r.tensor_parallel} PP${r.pipeline_parallel} CP${r.context_parallel}, ${r.precision}, GBS ${r.global_batch}"
  }
}

# The CPU recipe that trains on any partition without GPUs.
data "hypercompute_recipes" "cpu" {
  profile = "cpu"
  mode    = "pretrain"
}
