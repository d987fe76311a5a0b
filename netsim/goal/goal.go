// Package goal reads and runs schedules in GOAL, LogGOPSim's schedule language.
package goal

// goal reads and runs schedules in GOAL, the schedule language of LogGOPSim (Hoefler,
// Schneider and Lumsdaine, "LogGOPSim", HPDC 2010; github.com/spcl/LogGOPSim), as its txt2bin
// reads them (src/LogGOPSim/txt2bin.re at commit 76451de16546c7ea39651c183cbc532f4a3457c0):
//
//	num_ranks 2
//	rank 0 {
//	  l1: send 1024b to 1 tag 5
//	  l2: calc 500
//	  l2 requires l1
//	}
//	rank 1 {
//	  l1: recv 1024b from 0 tag 5
//	}
//
// A schedule is a dependency graph per rank: an operation starts once the operations it
// requires have completed and those it irequires have started; operations without
// dependencies start at once, side by side. Parse reads the language (docs/goal.md);
// RunLogGP runs it in LogGOPSim's LogGOPS model (loggp.go).

// Kind is an operation's type, numbered as LogGOPSim numbers them (OP_SEND, OP_RECV,
// OP_LOCOP in LogGOPSim.hpp): the order matters, LogGOPSim sorts newly free operations by it.
type Kind uint8

// The operations.
const (
	Send Kind = 1
	Recv Kind = 2
	Calc Kind = 3
)

func (k Kind) String() string {
	switch k {
	case Send:
		return "send"
	case Recv:
		return "recv"
	case Calc:
		return "calc"
	}
	return "?"
}

// Any is the wildcard source of a recv and the wildcard tag (-1 in the text), as LogGOPSim
// stores them (ANY_SOURCE, ANY_TAG = ~0).
const Any = ^uint32(0)

// Op is one operation. Size is bytes for send and recv, nanoseconds for calc.
type Op struct {
	Size uint64
	Peer uint32 // send: destination; recv: source or Any
	Tag  uint32 // or Any
	Line uint32 // where it is written
	Deps uint32 // how many operations it waits for (requires and irequires)
	Kind Kind
	CPU  uint8
	NIC  uint8
}

// Rank is one rank's operations in the order written and its dependency edges, each list in
// the order the dependency lines were written (LogGOPSim keeps that order: DependOnMe).
type Rank struct {
	Ops []Op
	// After[Done[i]:Done[i+1]] are the operations that require op i (start once it is done);
	// After[Start[i]:Start[i+1]] those that irequire it (start once it has started).
	Done, Start []uint32
	After       []uint32
}

// Requirers are the operations that wait for op i to complete.
func (r *Rank) Requirers(i int) []uint32 {
	if r.Done == nil {
		return nil
	}
	return r.After[r.Done[i]:r.Done[i+1]]
}

// Irequirers are the operations that wait for op i to start.
func (r *Rank) Irequirers(i int) []uint32 {
	if r.Start == nil {
		return nil
	}
	return r.After[r.Start[i]:r.Start[i+1]]
}

// Schedule is a parsed file.
type Schedule struct {
	Ranks   []Rank
	MaxCPU  uint8 // the highest cpu and nic index used (LogGOPSim gives every rank max+1)
	MaxNIC  uint8
	NumOps  int
	NumDeps int
}
