// Package formal proves the receive path's properties with Yosys and yosys-smtbmc.
package formal

// formal proves the receive path's properties with Yosys and yosys-smtbmc: every
// proof is one yosys-smtbmc run on lhs_top at a small configuration (formal/lhs_formal.v: 4 LH
// entries, 64-byte windows), keeping only the assertions that proof is about. The properties
// themselves are Verilog, in the `ifdef FORMAL` sections of rtl/*.v and in lhs_formal.v;
// this package says which to prove how, runs the tools, and reports a table. A counterexample
// becomes a VCD that GTKWave opens with the project's save file (waves.ForRun). docs/formal.md
// says what is proven, how, and under which assumptions.

import "time"

// Method is how a proof runs.
type Method string

const (
	// Induction is k-induction: a bounded check of the first Depth steps from reset (the base
	// case) and yosys-smtbmc -i (the inductive step): the properties hold for all time.
	Induction Method = "k-induction"
	// BMC is a bounded model check: the properties hold for the first Depth steps from reset.
	BMC Method = "BMC"
	// Cover finds a trace from reset to each cover statement within Depth steps.
	Cover Method = "cover"
)

// Outcome is what a proof found.
type Outcome string

const (
	Proven         Outcome = "proven"          // k-induction closed: for all time
	Bounded        Outcome = "holds to depth"  // BMC found no counterexample within the depth
	Reached        Outcome = "reached"         // every cover statement has a trace
	Counterexample Outcome = "counterexample"  // an assertion fails from reset
	InductionFails Outcome = "induction fails" // the base case holds, the inductive step does not
	Unreached      Outcome = "unreached"       // a cover statement has no trace within the depth
	Timeout        Outcome = "timeout"         // the tools did not finish in time
	Error          Outcome = "error"           // a tool failed
)

// Mutation is an edit of one RTL file for a proof that must fail: the control that shows a
// property can fail. Old must occur exactly once in the file.
type Mutation struct {
	File     string // relative to the repository root
	Old, New string
	Why      string
}

// Proof is one row of the table.
type Proof struct {
	Name     string
	Module   string   // where the property is written
	Method   Method   // how it is proven
	Depth    int      // k for induction, steps for BMC and cover
	Asserts  []string // labels of the assertions it proves (induction adds Invariants)
	Covers   []string // labels of the cover statements it reaches (Method Cover)
	Fast     bool     // run by make test too (make formal runs every proof)
	Mutation *Mutation
	// Expect is the outcome that passes: Proven, Bounded or Reached for a property, or
	// Counterexample for a control or a documented exception.
	Expect Outcome
	Note   string // what a counterexample means, when one is expected
	// Harness is the design's formal model (nil: ReceivePath).
	Harness *Harness
}

// Invariants are the assertions that make the properties inductive: relations between the
// blocks' registers and the shadows of the properties (rtl/*.v, `*_inv_*`). Every induction
// run proves them with its own properties; a run of them alone is a row of the table.
var Invariants = []string{"top_inv_cfg", "rx_inv_state", "rx_inv_body", "rx_lh_occupancy", "rx_tail_used", "vec_inv_reads"}

// RingFix is the ring-resize fix reverted: a TAIL_BASE or TAIL_SIZE write that is taken no
// longer sets TAIL_WPTR to 0, as before commit 6f48ebf.
var RingFix = Mutation{
	File: "rtl/lhs_rx.v",
	Old:  "    if (cfg_ring_reset) begin\n        wptr_next = 24'd0;\n    end\n",
	New:  "",
	Why:  "TAIL_WPTR kept when TAIL_BASE or TAIL_SIZE is taken (the ring-resize fix reverted)",
}

// FreshFix is hash_match_bank's insert into a never-used entry without counting it used: the
// entry is linked and still counted free.
var FreshFix = Mutation{
	File: "rtl/hash_match_bank.v",
	Old:  "                    fresh_next = fresh_reg + 1'b1;\n",
	New:  "",
	Why:  "an insert into a never-used entry that leaves it counted free",
}

// FreeListFix is hash_match_bank's unlink without its free-list count: a matched entry leaves
// its lists but is not counted free again (an entry lost).
var FreeListFix = Mutation{
	File: "rtl/hash_match_bank.v",
	Old:  "            free_cnt_next = free_cnt_reg + 1'b1;\n",
	New:  "",
	Why:  "a matched entry not returned to the free list's count",
}

// OldestFix is hash_match_bank's walk taking a wildcard entry that matches even when it is
// newer than the match its bin gave: the search answers with the newer entry.
var OldestFix = Mutation{
	File: "rtl/hash_match_bank.v",
	Old:  "take_this = e_match && !(phase_reg == P_WILD && best_reg && e_seq > best_seq_reg);",
	New:  "take_this = e_match;",
	Why:  "a wildcard entry newer than the bin's match taken",
}

// Depths. Induction closes at k = 2 for the receive path's properties (the host read pipeline
// needs 3). CoverDepth is enough for a tail that wraps to the ring's base and an LH entry used
// a second time.
const (
	InductionK = 2
	CoverDepth = 14
)

// Proofs is every proof of `lhsim formal`, in the table's order.
var Proofs = []Proof{
	{
		Name: "tail writes inside [TAIL_BASE, TAIL_BASE+TAIL_SIZE)", Module: "lhs_top", Method: Induction, Depth: InductionK,
		Asserts: []string{"top_tail_in_ring"}, Fast: true, Expect: Proven,
	},
	{
		Name: "control: the same with the ring-resize fix reverted", Module: "lhs_top", Method: BMC, Depth: 8,
		Asserts: []string{"top_tail_in_ring"}, Fast: true, Mutation: &RingFix, Expect: Counterexample,
		Note: "the ring shrunk below TAIL_WPTR: the next tail goes past its end",
	},
	{
		Name: "LH entry never overwritten before release; one entry per message, in order", Module: "lhs_rx", Method: Induction, Depth: InductionK,
		Asserts: []string{"rx_lh_no_overwrite", "rx_lh_write_in_order", "rx_commit_once"}, Expect: Proven,
	},
	{
		Name: "occupancy <= ENTRIES, TAIL_USED <= ring: no underflow", Module: "lhs_rx", Method: Induction, Depth: InductionK,
		Asserts: []string{"rx_lh_occupancy", "rx_tail_used"}, Expect: Proven,
	},
	{
		Name: "tail beat written exactly once, as it moves, at its unit", Module: "lhs_rx", Method: Induction, Depth: InductionK,
		Asserts: []string{"rx_tail_write_is_beat", "rx_tail_write_moves_beat"}, Expect: Proven,
	},
	{
		Name: "s_msg_tready low only for the documented reasons", Module: "lhs_rx", Method: Induction, Depth: InductionK,
		Asserts: []string{"rx_tready_low_reason"}, Expect: Proven,
	},
	{
		Name: "memory request held until taken (each side)", Module: "lhs_top", Method: Induction, Depth: InductionK,
		Asserts: []string{"top_mem_vec_holds", "top_mem_rx_holds"}, Expect: Proven,
	},
	{
		Name: "exception: m_mem request changes before it is taken", Module: "lhs_formal", Method: BMC, Depth: 6,
		Asserts: []string{"port_mem_request_holds"}, Expect: Counterexample,
		Note: "a tail write takes the port from a waiting vector request, or a host write to CTRL or the configuration withdraws or moves a waiting first beat's write",
	},
	{
		Name: "configuration changes only while quiet", Module: "lhs_top", Method: Induction, Depth: InductionK,
		Asserts: []string{"top_cfg_stable"}, Expect: Proven,
	},
	{
		Name: "refused VL/VS touches no memory, says why", Module: "lhs_vector_engine", Method: Induction, Depth: InductionK,
		Asserts: []string{"vec_refused_touches_nothing", "vec_refused_status"}, Fast: true, Expect: Proven,
	},
	{
		Name: "host_rvalid exactly two cycles after a read", Module: "lhs_formal", Method: Induction, Depth: 3,
		Asserts: []string{"port_host_rvalid_two_cycles"}, Fast: true, Expect: Proven,
	},
	{
		Name: "induction invariants", Module: "all", Method: Induction, Depth: InductionK,
		Expect: Proven,
	},
	{
		Name: "reachable: tail wraps, LH entry reused, ring shrunk, request preempted or withdrawn", Module: "all", Method: Cover, Depth: CoverDepth,
		Covers: []string{"rx_cover_tail_wraps", "rx_cover_lh_wraps", "top_cover_ring_shrunk", "top_cover_mem_preempted", "top_cover_mem_withdrawn"},
		Expect: Reached,
	},
	{
		Name: "hash_match: free + linked = N, in each bank and in all", Module: "hash_match", Method: Induction, Depth: HashInductionK,
		Asserts: []string{"hm_free_linked", "hm_bank_free_linked"}, Fast: true, Expect: Proven, Harness: &HashMatch,
	},
	{
		Name: "hash_match: a full matcher refuses and changes nothing", Module: "hash_match", Method: Induction, Depth: HashInductionK,
		Asserts: []string{"hm_full_refuses", "hm_full_no_insert", "hm_bank_idle_writes_nothing", "hm_bank_idle_holds"}, Fast: true, Expect: Proven, Harness: &HashMatch,
	},
	{
		Name: "hash_match at 2 entries: every response the oldest matching entry, a miss only when none matches", Module: "hash_match_formal", Method: Induction, Depth: HashInductionK,
		Asserts: []string{"hm_rsp_oldest", "hm_rsp_is_entry", "hm_miss_is_right"}, Expect: Proven, Harness: &HashMatchLists2,
	},
	{
		Name: "control: hash_match with an insert that leaves its entry free", Module: "hash_match", Method: BMC, Depth: 3,
		Asserts: []string{"hm_bank_free_linked"}, Fast: true, Mutation: &FreshFix, Expect: Counterexample, Harness: &HashMatch,
		Note: "the first insert links an entry that stays counted free: free + linked > N",
	},
	{
		Name: "control: hash_match with a match not returned to the free list", Module: "hash_match", Method: BMC, Depth: 8,
		Asserts: []string{"hm_bank_free_linked"}, Mutation: &FreeListFix, Expect: Counterexample, Harness: &HashMatch,
		Note: "a hit unlinks its entry and the free count stays: free + linked < N",
	},
	{
		Name: "control: hash_match answering with a newer wildcard entry", Module: "hash_match_formal", Method: BMC, Depth: HashControlDepth,
		Asserts: []string{"hm_rsp_oldest"}, Mutation: &OldestFix, Expect: Counterexample, Harness: &HashMatchLists2,
		Note: "an entry in a bin, then a matching one with a wildcard, then a search: the wildcard entry is answered",
	},
	{
		Name: "hash_match reachable: full and refusing; a hit after walking two entries", Module: "hash_match_formal", Method: Cover, Depth: HashCoverDepth,
		Covers: []string{"hm_cover_refused", "hm_cover_wild_older"}, Expect: Reached, Harness: &HashMatch,
	},
}

// The hashed matcher's depths: its counts and its answers close by induction at k = 2 (the
// answers with the hm_inv_* invariants, at 2 entries: at 4 the inductive step had not closed
// after 20 minutes of cvc5, docs/formal.md); the newest-match control's
// counterexample needs two inserts and a search from reset (an insert takes 2 cycles, the
// search 5 to its response: step 9); its cover statements are reached within HashCoverDepth.
const (
	HashInductionK   = 2
	HashControlDepth = 10
	HashCoverDepth   = 11
)

// DefaultTimeout bounds one tool run of a proof.
const DefaultTimeout = 10 * time.Minute
