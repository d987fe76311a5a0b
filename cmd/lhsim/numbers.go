package main

import "github.com/lhsim/lhsim/internal/flagval"

// Every numeric flag is one of package flagval's, which reads the text as typed before any
// work (runner.parse reports its refusal through flagval.Explain; docs/bad-input.md).
var (
	numVar     = flagval.Var
	parseFloat = flagval.ParseFloat
	intVar     = flagval.Int
	int64Var   = flagval.Int64
	uint64Var  = flagval.Uint64
	seedVar    = flagval.Seed
	intsVar    = flagval.Ints
	floatVar   = flagval.Float
	floatsVar  = flagval.Floats
	timeVar    = flagval.Time
	timesVar   = flagval.Times
	nodesVar   = flagval.Nodes
	noDefault  = flagval.NoDefault
	splitList  = flagval.SplitList

	delayUS, momentUS, consumeUS, checkpointUS = flagval.DelayUS, flagval.MomentUS, flagval.ConsumeUS, flagval.CheckpointUS
)

// maxRanks bounds process and node counts given as numbers: fabric's largest network.
const maxRanks = flagval.MaxNodes

// maxCycles bounds a count of router cycles given as a number: a billion cycles, hours of
// simulation, far inside the simulator's time range at any clock up to a millisecond.
const maxCycles = 1_000_000_000
