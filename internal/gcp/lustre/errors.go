package lustre

import (
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// OperationError is the error of an operation that ended with an error Status.
// It carries a gRPC status, so code-based classifiers understand it.
type OperationError struct {
	Operation string
	Status    Status
}

func (e *OperationError) Error() string {
	name := code.Code_name[int32(e.Status.Code)]
	if name == "" {
		name = fmt.Sprintf("code %d", e.Status.Code)
	}
	return fmt.Sprintf("operation %s failed: %s: %s", e.Operation, name, e.Status.Message)
}

// GRPCStatus lets status.FromError (and errors classifiers built on it) read the code.
func (e *OperationError) GRPCStatus() *status.Status {
	return status.New(codes.Code(uint32(e.Status.Code)), e.Status.Message)
}
