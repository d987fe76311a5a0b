// Package apptrace holds an MPI program's calls as traced, rank by rank, and turns them into a
// GOAL schedule (Convert).
package apptrace

// apptrace is the in-memory model every trace reader fills: lhsim's own tracer (tracer/, read
// by ReadDir) and LogGOPSim's liballprof text traces. A reader gives each rank's calls in
// program order with peers as world ranks, tags, a communicator id, sizes in bytes, the
// requests each call makes or completes, and the computation before each call. Convert
// (convert.go) writes the schedule; docs/apps.md says per call what it keeps and what it
// approximates.

// Kind is what a call does, as the conversion sees it. Func keeps which MPI function it was.
type Kind uint8

// The kinds. A field not named for a kind is zero.
const (
	// KOther is a call the conversion does not know (Func names it). Convert lists them with
	// their counts and refuses the trace unless Options.Approximate.
	KOther Kind = iota
	// KSend is a blocking send (MPI_Send, Ssend, Bsend, Rsend): Comm, Peer, Tag, Size.
	KSend
	// KRecv is a blocking receive (MPI_Recv): Comm, Peer (or AnySource), Tag (or AnyTag), Size.
	KRecv
	// KIsend is a nonblocking send (MPI_Isend, Issend, Ibsend, Irsend): as KSend, and Req.
	KIsend
	// KIrecv is a nonblocking receive (MPI_Irecv): as KRecv, and Req.
	KIrecv
	// KSendInit makes a persistent send request (MPI_Send_init and its modes): as KIsend. Each
	// KStart of Req then sends.
	KSendInit
	// KRecvInit makes a persistent receive request (MPI_Recv_init): as KIrecv.
	KRecvInit
	// KStart starts persistent requests (MPI_Start, MPI_Startall): Reqs.
	KStart
	// KSendrecv is MPI_Sendrecv and MPI_Sendrecv_replace: the send is Peer, Tag, Size; the
	// receive RecvPeer, RecvTag, RecvSize; both on Comm.
	KSendrecv
	// KProbe is MPI_Probe, or MPI_Iprobe that found a message (Flag); Comm, Peer, Tag. It
	// receives nothing: the receive that follows does.
	KProbe
	// KMprobe is MPI_Mprobe, or MPI_Improbe that found a message (Flag): it takes the message
	// (Comm, Peer, Tag) out of matching and names it Req (the MPI_Message).
	KMprobe
	// KMrecv is MPI_Mrecv (Req: the message, Size) or MPI_Imrecv (Req: the message, Size,
	// and Reqs[0]: the request it makes).
	KMrecv
	// KComplete is a call that completes requests: MPI_Wait, Test (Flag), their any, some and
	// all forms. Reqs are the requests it completed (none for a Test that found none).
	KComplete
	// KCancel is MPI_Cancel of Req.
	KCancel
	// KRequestFree is MPI_Request_free of Req.
	KRequestFree
	// KColl is a collective: Coll says which; Comm, Root (a world rank, rooted ones only) and
	// Size, Counts as Coll describes.
	KColl
	// KCommCreate makes a communicator (MPI_Comm_dup, split, create, Cart_create,
	// Graph_create, ...): Comm is the parent, NewComm the new one, whose members are in
	// Trace.Comms.
	KCommCreate
	// KCommFree is MPI_Comm_free of Comm.
	KCommFree
	// KInit and KFinalize are MPI_Init (or Init_thread) and MPI_Finalize.
	KInit
	KFinalize
	// KNop is a call that changes nothing the schedule holds (MPI_Iprobe or Improbe that
	// found nothing, MPI_Comm_rank, ...): its computation before it still counts.
	KNop
)

// Coll is a collective operation.
type Coll uint8

// The collectives and the meaning of Size and Counts for each (bytes).
const (
	CollNone Coll = iota
	Barrier
	Bcast          // Size: the message
	Reduce         // Size: the vector reduced
	Allreduce      // Size: the vector reduced
	Gather         // Size: each rank's block
	Gatherv        // Size: this rank's block; at the root Counts: each member's block
	Scatter        // Size: each rank's block
	Scatterv       // Size: this rank's block; at the root Counts: each member's block
	Allgather      // Size: each rank's block
	Allgatherv     // Counts: each member's block
	Alltoall       // Size: the block to each member
	Alltoallv      // Counts: the block to each member, then the block from each member (2 x members)
	ReduceScatter  // Counts: each member's share of the result (MPI_Reduce_scatter)
	ReduceScatterB // Size: each member's share (MPI_Reduce_scatter_block)
	Scan           // Size: the vector
	Exscan         // Size: the vector
	numColl
)

var collNames = [...]string{"none", "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv",
	"scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter",
	"reduce_scatter_block", "scan", "exscan"}

func (c Coll) String() string {
	if int(c) < len(collNames) {
		return collNames[c]
	}
	return "?"
}

// Wildcards and the null peer, by meaning (each MPI library has its own values: MPICH's
// MPI_ANY_SOURCE is -2, Open MPI's -1).
const (
	AnySource int32 = -1
	ProcNull  int32 = -2
	AnyTag    int32 = -1
)

// CommWorld is MPI_COMM_WORLD's id; its members are the ranks in order.
const CommWorld uint64 = 0

// CancelOutcome is whether an MPI_Cancel took effect, as the tracer saw it when the request
// completed (MPI_Test_cancelled).
type CancelOutcome uint8

const (
	// CancelUnknown: the trace does not say (liballprof's, or lhsim's tracer before it
	// recorded it, or a request that did not complete soon after the cancel). The request is
	// taken as cancelled.
	CancelUnknown CancelOutcome = iota
	// CancelTookEffect: the request was cancelled; a receive matched no message.
	CancelTookEffect
	// CancelFailed: the request completed as it would have; a receive matched a message.
	CancelFailed
)

// Call is one MPI call of one rank.
type Call struct {
	Func    string // the MPI function, "MPI_Isend"
	Kind    Kind
	Coll    Coll
	Flag    bool          // Iprobe, Improbe: found a message
	Cancel  CancelOutcome // KCancel: whether the cancel took effect
	Comm    uint64        // the communicator's id (Trace.Comms)
	NewComm uint64        // KCommCreate: the communicator made
	Peer    int32         // a world rank, AnySource or ProcNull
	Tag     int32         // or AnyTag
	Root    int32         // KColl: the root's world rank
	Size    uint64        // bytes

	RecvPeer int32 // KSendrecv's receive
	RecvTag  int32
	RecvSize uint64

	Req    uint64   // the request (or MPI_Message) the call makes or names: its value, not its address
	Reqs   []uint64 // KComplete: the requests completed; KStart: the requests started; KMrecv: the request made
	Counts []uint64 // v collectives (Coll)

	// CPU is the computation in ns before the call: the rank's CPU time since the previous
	// call returned (lhsim's tracer), or the wall time (liballprof, whose traces have no
	// other).
	CPU uint64
}

// Comm is a communicator: its members as world ranks, in its rank order.
type Comm struct {
	ID      uint64
	Members []int32
}

// Trace is a whole program's calls.
type Trace struct {
	// Ranks[r] are world rank r's calls in program order.
	Ranks [][]Call
	// Comms are the communicators but MPI_COMM_WORLD (CommWorld), by id.
	Comms map[uint64]Comm
	// Source says where the trace came from ("lhsim tracer, Open MPI 4.1.4", "liballprof"),
	// and CPUIsWall whether Call.CPU is wall time.
	Source    string
	CPUIsWall bool
	// Folded counts the calls a reader left out because they changed nothing the schedule
	// holds (a Test or probe that found nothing), their computation passed on to the next call.
	Folded int
}
