package mpi

// SearchLoop is the LHS paper's search loop (section 5.1.2) as compiled code: the
// instructions gcc makes of experiment/rx/searchloop/search_loop.c, which walks 64-byte
// entries comparing rank, tag, communicator and the searched datum until all four match. The
// host model charges these counts (at its CPI) for every entry a search examines;
// experiment/rx's TestSearchLoopCounts compiles the C and counts them again from the
// disassembly, so they cannot drift from it. It lives with the engine that charges it (and
// the matchers of netsim/match that charge it too), not with one experiment.
type SearchLoop struct {
	Name     string   // how it was compiled, for tables
	GCCFlags []string // the flags besides -c
	// PerMessage[k-1] is the instructions per entry in front of the target when entries
	// differ from it in the k-th field compared (rank, tag, comm, datum): the loop leaves
	// an entry at its first field that differs.
	PerMessage [4]int
	// PerCall is the instructions of a search whose target is the first entry: set-up,
	// the target's four compares, return.
	PerCall int
}

// The loop as the paper built it (gcc 3.3.5 with -Wall only, so -O0, section 5.1.1) and
// optimized, both for 32-bit x86 (the Pentium 4), as Debian's gcc 12 compiles them.
var (
	SearchLoopO0 = SearchLoop{Name: "gcc -O0 -m32", GCCFlags: []string{"-m32", "-O0", "-fno-pie"},
		PerMessage: [4]int{12, 20, 28, 36}, PerCall: 44}
	SearchLoopO2 = SearchLoop{Name: "gcc -O2 -m32", GCCFlags: []string{"-m32", "-O2", "-fno-pie"},
		PerMessage: [4]int{6, 8, 10, 13}, PerCall: 28}
	SearchLoops = []SearchLoop{SearchLoopO0, SearchLoopO2}
)

// SearchFields is how many fields the paper's loop compares for an entry in front of the
// target: its entries held zeros but for the target's datum (5.1.2), so every other entry
// matched rank, tag and communicator and differed in the datum, the fourth field compared.
const SearchFields = 4

// Costs are the loop's counts as the MPI engine charges them. The engine matches on three
// fields (communicator, source, tag) and charges LoopInstr + FieldInstr per field compared;
// an entry of the experiment differs from the target in its tag, the third. The paper's loop
// compares a fourth, the datum: FieldInstr is that last field's share, LoopInstr the rest of
// an entry's instructions, so that an entry in front of the target costs PerMessage[3], as in
// the compiled loop, and a search finding the target first costs PerCall.
func (l SearchLoop) Costs() Costs {
	per := l.PerMessage[SearchFields-1]
	field := per - l.PerMessage[SearchFields-2]
	loop := per - 3*field
	return Costs{LoopInstr: loop, FieldInstr: field, CallInstr: l.PerCall - per}
}
