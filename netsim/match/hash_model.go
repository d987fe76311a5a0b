package match

import "fmt"

// HashParams are rtl/hash_match.v's parameters.
type HashParams struct {
	Entries, Bins, Banks, ReadLat                  int
	SrcBits, TagBits, CtxBits, HandleBits, SeqBits int
}

// Check refuses what the RTL refuses at elaboration: N, K and the banks powers of two (K up
// to 65,536, N up to 65,536 with at least two entries a bank), a read latency of 1 to 8.
func (p HashParams) Check() error {
	pow2 := func(v int) bool { return v >= 1 && v&(v-1) == 0 }
	switch {
	case !pow2(p.Banks):
		return fmt.Errorf("hash_match: %d banks: want a power of two", p.Banks)
	case !pow2(p.Entries) || p.Entries < 2*p.Banks || p.Entries > 65536:
		return fmt.Errorf("hash_match: %d entries: want a power of two from %d to 65536", p.Entries, 2*p.Banks)
	case !pow2(p.Bins) || p.Bins > 65536:
		return fmt.Errorf("hash_match: %d bins: want a power of two from 1 to 65536", p.Bins)
	case p.ReadLat < 1 || p.ReadLat > 8:
		return fmt.Errorf("hash_match: read latency %d: want 1 to 8 cycles", p.ReadLat)
	}
	return nil
}

// HashPins is one cycle of rtl/hash_match.v's ports, field for field hashmatch.Pins (the
// Verilated model's), so that one converts to the other.
type HashPins struct {
	// Inputs, driven before the clock edge.
	InsSrc, InsTag, ReqSrc, ReqTag uint32
	InsHandle                      uint16
	InsCtx, ReqCtx                 uint8
	InsValid, InsSrcAny, InsTagAny uint8
	ReqValid, ReqSrcAny, ReqTagAny uint8
	RspReady                       uint8

	// Outputs, as they were during the cycle (before the edge).
	RspSeq                                 uint32
	RspHandle, RspWalked, Count, FreeCount uint16
	InsReady, ReqReady, RspValid, RspHit   uint8
	InsRefused, Full, Empty                uint8
}

// hashBin is the RTL's bin_of: the bits of {tag, source} folded by XOR into log2(K) bits.
func (p *HashParams) hashBin(src, tag uint32) int {
	if p.Bins <= 1 {
		return 0
	}
	w := 0
	for 1<<w < p.Bins {
		w++
	}
	v := uint64(src)&(1<<p.SrcBits-1) | (uint64(tag)&(1<<p.TagBits-1))<<p.SrcBits
	h := 0
	for i := 0; i < p.SrcBits+p.TagBits; i++ {
		h ^= int(v>>i&1) << (i % w)
	}
	return h
}

// HashModel is rtl/hash_match.v cycle for cycle: the same registers, the same RAMs with the
// same read latency, the same next-state logic (hash_bank.go holds a bank's). Cycle takes and
// gives the ports as the Verilated model's Cycle does; lockstep runs compare every output of
// every cycle.
type HashModel struct {
	p       HashParams
	banks   []*hashBank
	state   int
	seq     uint64
	refused bool
	rsp     struct {
		hit    bool
		handle uint32
		seq    uint64
		walked int
	}
	cycles uint64
	ctl    []bankIn // what the top drives into each bank this cycle
}

const (
	tIdle = iota
	tSearch
	tRsp
)

// NewHashModel builds the model of hash_match with parameters p (Check first).
func NewHashModel(p HashParams) (*HashModel, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	m := &HashModel{p: p, ctl: make([]bankIn, p.Banks)}
	for range p.Banks {
		m.banks = append(m.banks, newHashBank(&m.p, p.Entries/p.Banks))
	}
	return m, nil
}

// Reset holds reset for four cycles, as the bridge's Reset: control state to its reset
// values, RAM contents kept.
func (m *HashModel) Reset() {
	m.state, m.seq, m.refused = tIdle, 0, false
	m.rsp.hit, m.rsp.handle, m.rsp.seq, m.rsp.walked = false, 0, 0, 0
	for _, b := range m.banks {
		b.reset()
	}
	m.cycles += 4
}

// Cycles is the number of clocks since construction, reset included.
func (m *HashModel) Cycles() uint64 { return m.cycles }

// Count is the entries held.
func (m *HashModel) Count() int {
	n := 0
	for _, b := range m.banks {
		n += b.count
	}
	return n
}

// Cycle applies p's inputs, stores the outputs of the cycle in p and clocks once.
func (m *HashModel) Cycle(p *HashPins) {
	P := &m.p
	count, free, walked := 0, 0, 0
	insBank, insCount := 0, m.banks[0].count
	bestFound, bestBank, bestSeq := false, 0, uint64(0)
	allIdle, allDone := true, true
	for i, b := range m.banks {
		count += b.count
		free += b.freeCnt + (b.n - b.fresh)
		walked += b.walked
		if b.count < insCount {
			insBank, insCount = i, b.count
		}
		if b.best && (!bestFound || b.bestSeq < bestSeq) {
			bestFound, bestBank, bestSeq = true, i, b.bestSeq
		}
		allIdle = allIdle && b.state == sIdle
		allDone = allDone && b.state == sDone
	}
	full := count == P.Entries
	b2u := func(b bool) uint8 {
		if b {
			return 1
		}
		return 0
	}
	p.InsReady = b2u(m.state == tIdle && allIdle)
	p.ReqReady = b2u(m.state == tIdle && allIdle && p.InsValid == 0)
	p.RspValid = b2u(m.state == tRsp)
	p.RspHit = b2u(m.rsp.hit)
	p.RspHandle = uint16(m.rsp.handle)
	p.RspSeq = uint32(m.rsp.seq)
	p.RspWalked = uint16(m.rsp.walked)
	p.InsRefused = b2u(m.refused)
	p.Count, p.FreeCount = uint16(count), uint16(free)
	p.Full, p.Empty = b2u(full), b2u(count == 0)

	ctl := m.ctl
	clear(ctl)
	refused := false
	state, seq := m.state, m.seq
	switch m.state {
	case tIdle:
		if p.InsValid == 1 && p.InsReady == 1 {
			if full {
				refused = true
			} else {
				ctl[insBank].insGo = true
				seq = (m.seq + 1) & (1<<P.SeqBits - 1)
			}
		} else if p.ReqValid == 1 && p.ReqReady == 1 {
			for i := range ctl {
				ctl[i].reqGo = true
			}
			state = tSearch
		}
	case tSearch:
		if allDone {
			m.rsp.hit, m.rsp.handle, m.rsp.seq, m.rsp.walked = bestFound, 0, 0, walked
			if bestFound {
				m.rsp.handle, m.rsp.seq = m.banks[bestBank].bestHandle, bestSeq
			}
			for i := range ctl {
				ctl[i].drop = !bestFound || i != bestBank
				ctl[i].take = bestFound && i == bestBank
			}
			state = tRsp
		}
	default:
		if p.RspReady == 1 {
			state = tIdle
		}
	}
	in := hashIn{src: p.InsSrc, tag: p.InsTag, ctx: uint32(p.InsCtx), handle: uint32(p.InsHandle), srcAny: p.InsSrcAny == 1, tagAny: p.InsTagAny == 1}
	req := hashIn{src: p.ReqSrc, tag: p.ReqTag, ctx: uint32(p.ReqCtx), srcAny: p.ReqSrcAny == 1, tagAny: p.ReqTagAny == 1}
	in.mask(P)
	req.mask(P)
	insBin, reqBin := P.hashBin(in.src, in.tag), P.hashBin(req.src, req.tag)
	for i, b := range m.banks {
		c := ctl[i]
		c.ins, c.insBin, c.insSeq = in, insBin, m.seq
		c.req, c.reqBin = req, reqBin
		b.cycle(&c)
	}
	m.state, m.seq, m.refused = state, seq, refused
	m.cycles++
}

// hashIn is an insert's or a request's fields, cut to the RTL's widths.
type hashIn struct {
	src, tag, ctx, handle uint32
	srcAny, tagAny        bool
}

func (h *hashIn) mask(p *HashParams) {
	h.src &= 1<<p.SrcBits - 1
	h.tag &= 1<<p.TagBits - 1
	h.ctx &= 1<<p.CtxBits - 1
	h.handle &= 1<<p.HandleBits - 1
}

// bankIn is what the top drives into a bank in one cycle.
type bankIn struct {
	insGo, reqGo, take, drop bool
	ins, req                 hashIn
	insBin, reqBin           int
	insSeq                   uint64
}
