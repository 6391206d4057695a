output "bucket" {
  description = "The state bucket's URL."
  value       = hypercompute_bucket.state.url
}

output "versioning" {
  description = "Whether the bucket keeps earlier generations of each state object."
  value       = hypercompute_bucket.state.versioning
}
