// Package pipelines holds the tests of the environments' pipelines (pipelines/run.sh and the state
// it keeps): the blueprints' gcs backend and its lock on the local cloud's Cloud Storage, and the
// stages of ml-dev run end to end, ml-staging through policy, against an in-process local cloud
// with the provider under test served in-process and fake agents reporting for the cluster. The
// package has no code of its own; everything is in its _test.go files.
package pipelines
