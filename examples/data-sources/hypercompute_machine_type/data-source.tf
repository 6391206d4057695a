data "hypercompute_machine_type" "a3_mega" {
  name = "a3-megagpu-8g"
  zone = "us-central1-a"
}

# Whole-node jobs on GPU machines, decided by the provider's machine table.
output "exclusive" {
  value = data.hypercompute_machine_type.a3_mega.gpu_count > 0
}
