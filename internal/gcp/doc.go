// Package gcp is the provider's (and the agent's) layer over the Google Cloud APIs:
// one authenticated, retrying *http.Client shared by every API client, operation
// waiting that does not depend on the client libraries' slow polling, and typed errors.
//
// # Clients
//
// NewClients builds the Compute Engine REST clients (cloud.google.com/go/compute/apiv1),
// the Filestore REST client, the Service Networking client and the hand-written Managed
// Lustre client (package lustre), all on Clients.HTTPClient. With Config.EmulatorHost set,
// every API is served unauthenticated over plain HTTP by the local cloud on that host:
// Compute at /compute/v1, Filestore at /filestore/v1, Lustre at /lustre/v1 and
// Service Networking at /servicenetworking/v1.
//
// # Retries and requestId
//
// The shared transport (RetryTransport) resends a request on 429, 500, 502, 503 and on
// rate-limit 403s, replaying the same body and URL. A resend must never create a
// resource twice, so every mutating Compute call carries a requestId:
//
//	op, err := c.Networks.Insert(ctx, gcp.WithRequestID(&computepb.InsertNetworkRequest{...}))
//
// The rule: one fresh requestId per logical call, set once when the request value is
// built, never inside a loop that builds a different request (a setMetadata retried after
// a 412 with a new fingerprint is a new logical call and needs a new id). Transport
// resends carry the same id, and Compute answers a repeated id with the operation of the
// first request instead of doing the work again.
//
// # Errors
//
// The client libraries return their own error types (*googleapi.Error wrapped in
// *apierror.APIError, gRPC statuses, failed operations). Classify turns any of them into
// an *APIError that matches the sentinels (ErrNotFound, ErrQuotaExceeded, ErrStockout ...)
// with errors.Is; the IsNotFound-style helpers classify on the fly. The Wait functions
// already return classified errors.
package gcp
