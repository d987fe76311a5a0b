// Package qsnet is the search experiment's QsNET-II baseline: the unexpected queue walked in NIC DRAM.
package qsnet

// qsnet is the baseline of the unexpected-queue search experiment: a QsNET-II-style
// NIC (Quadrics Elan4, Tports) whose thread processor keeps MPI's unexpected-message queue as a
// linked list in NIC DRAM and walks it for every receive.
//
// The paper (section 5.1.3) plots QsNET-II at 0.1 µs per queued message, the figure its
// reference [3] measured, and explains it (5.1.4) as one DRAM access per message: the list's
// records are wherever the NIC allocated them, so the walk is a chain of dependent DRAM reads
// that no cache or faster processor shortens. This model is exactly that: records scattered
// in a simulated DRAM by a seeded allocator, a walk that follows the pointers and compares each
// envelope, and time = one DRAM access per record visited. Its slope is therefore an input
// (DRAMLatencyPs), not a prediction; the model exists so that the baseline goes through the
// same search and the same matching rule as the other two curves.

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Config is the modelled NIC.
type Config struct {
	// TPClockHz is the thread processor's clock: the QsNET-II ASIC runs at 200 MHz (paper 4.1).
	TPClockHz int64
	// DRAMLatencyPs is one access to NIC DRAM that the NIC's cache does not catch: 100 ns,
	// the per-message search time of reference [3], which the paper (5.1.4) reads as one DRAM
	// access per message.
	DRAMLatencyPs int64
	// CompareInstr is the thread processor's work per record (load the three match fields,
	// compare, branch, follow the pointer). Assumption: 8 instructions, one per cycle, 40 ns
	// at 200 MHz. The walk issues the next record's read as soon as the current record (which
	// holds the pointer) arrives, so this overlaps the next DRAM access and only shows when it
	// is the longer of the two.
	CompareInstr int
	// StartPs is the fixed cost of one search: reading the list head from DRAM.
	// Default: one DRAM access.
	StartPs int64
	// DRAMBytes is the NIC DRAM size the allocator scatters records over; RecordBytes the
	// size of one list record (envelope, pointer, payload descriptor).
	DRAMBytes   uint64
	RecordBytes uint64
	// Seed drives the allocator, so a run is reproducible.
	Seed uint64
}

// Default is a QsNET-II-like NIC: 200 MHz thread processor, 100 ns DRAM, 64 MB of NIC DRAM.
func Default() Config {
	return Config{
		TPClockHz:     200_000_000,
		DRAMLatencyPs: 100_000,
		CompareInstr:  8,
		StartPs:       100_000,
		DRAMBytes:     64 << 20,
		RecordBytes:   64,
		Seed:          1,
	}
}

// record is one unexpected message in NIC DRAM.
type record struct {
	env  [16]byte
	next uint64 // DRAM address of the next record, 0 at the tail
}

// NIC is the state: the list in DRAM and the allocator.
type NIC struct {
	cfg        Config
	dram       map[uint64]*record
	head, tail uint64
	n          int
	rng        *rand.Rand
	accesses   uint64
}

// New makes an NIC with an empty unexpected list.
func New(cfg Config) (*NIC, error) {
	if cfg.TPClockHz <= 0 || cfg.DRAMLatencyPs <= 0 || cfg.RecordBytes == 0 || cfg.DRAMBytes < 1024*cfg.RecordBytes {
		return nil, fmt.Errorf("qsnet: bad config %+v", cfg)
	}
	return &NIC{cfg: cfg, dram: map[uint64]*record{}, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))}, nil
}

// Len is the number of queued messages.
func (q *NIC) Len() int { return q.n }

// DRAMAccesses counts the record reads of every search so far.
func (q *NIC) DRAMAccesses() uint64 { return q.accesses }

// alloc picks a free, record-aligned, non-zero DRAM address.
func (q *NIC) alloc() uint64 {
	slots := q.cfg.DRAMBytes / q.cfg.RecordBytes
	for {
		a := (1 + q.rng.Uint64N(slots-1)) * q.cfg.RecordBytes
		if _, used := q.dram[a]; !used {
			return a
		}
	}
}

// Arrive appends a message's envelope to the unexpected list (the NIC does this as the
// message lands; it is not part of the search time).
func (q *NIC) Arrive(env [16]byte) {
	a := q.alloc()
	q.dram[a] = &record{env: env}
	if q.tail == 0 {
		q.head = a
	} else {
		q.dram[q.tail].next = a
	}
	q.tail = a
	q.n++
}

// ErrNotFound is returned by Search when no queued envelope matches.
var ErrNotFound = errors.New("qsnet: no match in the unexpected list")

// Search walks the list from the head, oldest first, and stops at the first envelope that
// match accepts; with remove it unlinks that record (the receive takes the message). It
// returns the match's depth (records before it) and the simulated time of the walk.
func (q *NIC) Search(match func(env [16]byte) bool, remove bool) (depth int, ps int64, err error) {
	per := q.cfg.DRAMLatencyPs
	if c := int64(q.cfg.CompareInstr) * 1_000_000_000_000 / q.cfg.TPClockHz; c > per {
		per = c
	}
	ps = q.cfg.StartPs
	var prev uint64
	for a := q.head; a != 0; a = q.dram[a].next {
		q.accesses++
		ps += per
		r := q.dram[a]
		if match(r.env) {
			if remove {
				q.unlink(prev, a)
			}
			return depth, ps, nil
		}
		prev = a
		depth++
	}
	return depth, ps, ErrNotFound
}

func (q *NIC) unlink(prev, a uint64) {
	r := q.dram[a]
	if prev == 0 {
		q.head = r.next
	} else {
		q.dram[prev].next = r.next
	}
	if q.tail == a {
		q.tail = prev
	}
	delete(q.dram, a)
	q.n--
}

// Clear empties the list.
func (q *NIC) Clear() {
	q.dram = map[uint64]*record{}
	q.head, q.tail, q.n = 0, 0, 0
}
