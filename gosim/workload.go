package gosim

import "encoding/binary"

// WorkloadMessage is message i of the benchmark workload: a 16-byte envelope {source i%64,
// tag i, communicator 0, size} and payload bytes (i + j) & 0xff, its size 16..256 drawn from
// rng. verilator/lhs_top_bridge.cpp builds the same messages for the native C++ loop.
func WorkloadMessage(i uint64, rng *Rand) []byte {
	size := 16 + uint32(rng.Uint64()%241)
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b[0:], uint32(i%64))
	binary.LittleEndian.PutUint32(b[4:], uint32(i))
	binary.LittleEndian.PutUint32(b[12:], size)
	for j := uint32(16); j < size; j++ {
		b[j] = byte(uint64(j) + i)
	}
	return b
}

// WorkloadMessages returns the first n messages of the workload for seed.
func WorkloadMessages(n int, seed uint64) [][]byte {
	rng := NewRand(seed)
	out := make([][]byte, n)
	for i := range out {
		out[i] = WorkloadMessage(uint64(i), rng)
	}
	return out
}

// Speed is how fast one run of the workload went. Rates are per CPU second of the processes
// doing the work (user and system time, every thread): unlike wall time, that does not change
// when other programs load the machine.
type Speed struct {
	Cycles      uint64  `json:"cycles"`
	Seconds     float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds"`
	CyclesPerS  float64 `json:"cycles_per_s"`
	MessagesPer float64 `json:"msgs_per_s"`
}
