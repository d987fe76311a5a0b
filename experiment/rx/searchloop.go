package rx

import "github.com/lhsim/lhsim/drivers/mpi"

// The paper's search loop lives with the engine that charges it (drivers/mpi: the MPI engine
// and netsim/match's software lists charge it alike); the rig and its tests name it here.
type SearchLoop = mpi.SearchLoop

var (
	SearchLoopO0 = mpi.SearchLoopO0
	SearchLoopO2 = mpi.SearchLoopO2
	SearchLoops  = mpi.SearchLoops
)

// SearchFields is mpi.SearchFields: the fields the paper's loop compares for an entry in
// front of the target.
const SearchFields = mpi.SearchFields
