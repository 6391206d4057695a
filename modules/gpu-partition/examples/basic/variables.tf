variable "project_id" {
  description = "Project of the cluster."
  type        = string
}

variable "cluster_id" {
  description = "ID of the training cluster the partition joins (projects/{project}/zones/{zone}/clusters/{name})."
  type        = string
}
