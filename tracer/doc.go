// Package tracer holds lhsim's MPI tracer: a PMPI library in C (c/lht.c, and the wrappers
// lht_wrappers.c that gen writes from c/calls.txt), built by make tracer and preloaded into
// every rank by lhsim goal record (docs/apps.md). The Go side of the trace is apptrace.
package tracer

//go:generate go run ./gen -dir c
