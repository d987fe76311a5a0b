package apptrace

import (
	"errors"
	"io"
)

// Options are what Convert may choose.
type Options struct {
	// Approximate accepts what cannot be converted faithfully, as docs/apps.md says for each
	// case: unknown calls are dropped (their computation kept), an any-tag receive that could
	// take another communicator's (or a collective's) message stays an any-tag receive.
	Approximate bool
	// Collectives names an algorithm per collective ("allreduce": "ring"); the others are
	// chosen as Open MPI 4.1's tuned component chooses (docs/apps.md).
	Collectives map[Coll]string
	// ComputeScale multiplies each computation before it becomes a calc (0 means 1).
	ComputeScale float64
}

// Stats are what a conversion found, per program.
type Stats struct {
	Ranks         int            `json:"ranks"`
	Calls         int            `json:"calls"`
	Ops           int            `json:"operations"`
	WildcardRecvs int            `json:"wildcard_receives"` // receives from AnySource or with AnyTag
	Comms         int            `json:"communicators"`     // MPI_COMM_WORLD included
	CrossSpace    int            `json:"cross_space"`       // any-tag receives that could take a message of another tag space
	Cancelled     int            `json:"cancelled"`         // cancelled requests dropped
	CancelUnknown int            `json:"cancel_unknown"`    // of those, the ones whose outcome the trace does not say
	CancelFailed  int            `json:"cancel_failed"`     // requests kept: their cancel failed (a receive matched a message)
	Collectives   map[string]int `json:"collectives"`       // "allreduce/recursive_doubling": calls (once per communicator)
	Unknown       map[string]int `json:"unknown_calls"`     // MPI functions the conversion does not know: calls
	CPUNanos      uint64         `json:"cpu_ns"`            // the computation the trace holds
	CalcNanos     uint64         `json:"calc_ns"`           // the calc the schedule holds (x ComputeScale)
}

// ErrRefused is wrapped by Convert's error when the trace holds what it converts only with
// Options.Approximate (unknown calls, any-tag receives across tag spaces).
var ErrRefused = errors.New("refused without --approximate")

// Convert writes t as a GOAL schedule (LogGOPSim's txt2bin accepts it too) to w: per rank,
// program order and request completion as requires (a nonblocking operation starts at its
// call, what follows its completion requires it), wildcards as -1, each communicator's
// point-to-point messages and each communicator's collectives in tag spaces of their own,
// cancelled requests dropped, probes as the receive they announce, collectives as
// point-to-point messages of a named algorithm, the computation before each call as calc.
// It writes nothing when it refuses the trace.
func Convert(w io.Writer, t *Trace, opt Options) (Stats, error) {
	return convert(w, t, opt)
}
