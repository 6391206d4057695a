package gcp

import (
	"context"
	"fmt"

	"google.golang.org/api/option"
	storage "google.golang.org/api/storage/v1"
)

// Storage returns a Cloud Storage JSON API client on the shared HTTP client (retries, auth, User-Agent). It is
// built per call, which costs no request: the generated service is a thin wrapper around HTTPClient.
func (c *Clients) Storage(ctx context.Context) (*storage.Service, error) {
	svc, err := storage.NewService(ctx, option.WithHTTPClient(c.HTTPClient), option.WithEndpoint(c.Config.storageEndpoint()))
	if err != nil {
		return nil, fmt.Errorf("cloud storage client: %w", err)
	}
	return svc, nil
}

// storageEndpoint is the JSON API's base path; uploads go to /upload/storage/v1/ on the same host.
func (c Config) storageEndpoint() string {
	if c.emulated() {
		return c.emulatorBase() + "/storage/v1/"
	}
	return "https://storage.googleapis.com/storage/v1/"
}
