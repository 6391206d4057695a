package recipes

// gpuRecipes is the GPU half of the catalog (filled in gpu_table.go).
func gpuRecipes() []Recipe { return nil }
