package match

import (
	"fmt"

	hashmatch "github.com/lhsim/lhsim/verilator/hash_match"
)

// HashRTLParams are the Verilated hash_match's parameters (its RTL defaults, the study's):
// hash:64:1024 runs on RTL nodes.
var HashRTLParams = HashParams(hashmatch.Default)

// HashRTLSmall is the other Verilated configuration (4 banks of 4 entries, 4 bins, a
// two-cycle read): hash:4:16:4:2 runs on RTL nodes.
var HashRTLSmall = HashParams(hashmatch.Small)

// hashPair is the Go model and, on RTL nodes, the Verilated RTL beside it: every cycle both
// get the same inputs and must give the same outputs; the first difference is kept (err) with
// the cycle it happened in.
type hashPair struct {
	m   *HashModel
	rtl *hashmatch.Model
	err error
	ops int // operations run on the RTL beside the model
}

func newHashPair(p HashParams, rtl bool) (*hashPair, error) {
	m, err := NewHashModel(p)
	if err != nil {
		return nil, err
	}
	m.Reset()
	h := &hashPair{m: m}
	if rtl {
		if p != HashRTLParams && p != HashRTLSmall {
			return nil, fmt.Errorf("hash_match RTL is built with %d entries and %d bins (and %d, %d, %d banks, read latency %d), not %d and %d",
				HashRTLParams.Entries, HashRTLParams.Bins, HashRTLSmall.Entries, HashRTLSmall.Bins, HashRTLSmall.Banks, HashRTLSmall.ReadLat, p.Entries, p.Bins)
		}
		if h.rtl, err = hashmatch.New(hashmatch.Config(p), ""); err != nil {
			return nil, err
		}
		h.rtl.Reset()
	}
	return h, nil
}

func (h *hashPair) close() {
	if h.rtl != nil {
		h.rtl.Close()
		h.rtl = nil
	}
}

// cycle clocks the model and the RTL once with p's inputs; p gets the model's outputs.
func (h *hashPair) cycle(p *HashPins) {
	if h.rtl == nil {
		h.m.Cycle(p)
		return
	}
	r := hashmatch.Pins(*p)
	h.rtl.Cycle(&r)
	h.m.Cycle(p)
	if got := HashPins(r); got != *p && h.err == nil {
		h.err = fmt.Errorf("cycle %d: the hash_match RTL gave %s, the model %s", h.m.Cycles()-1, pinsOut(&got), pinsOut(p))
	}
}

func pinsOut(p *HashPins) string {
	return fmt.Sprintf("{ins_ready %d req_ready %d rsp_valid %d hit %d handle %d seq %d walked %d refused %d count %d free %d full %d empty %d}",
		p.InsReady, p.ReqReady, p.RspValid, p.RspHit, p.RspHandle, p.RspSeq, p.RspWalked, p.InsRefused, p.Count, p.FreeCount, p.Full, p.Empty)
}

// hashOpLimit bounds the cycles of one operation: a walk of every entry at the read latency,
// and a few more.
func (h *hashPair) hashOpLimit() int { return h.m.p.Entries*h.m.p.ReadLat + 16 }

// insert drives one insert until accepted and the matcher is ready again; it returns the
// cycles from the accept to ready (the insert's occupancy) and whether it was refused.
func (h *hashPair) insert(src, tag, ctx, handle uint32, srcAny, tagAny bool) (cycles int, refused bool, err error) {
	if h.rtl != nil {
		h.ops++
	}
	p := HashPins{InsValid: 1, InsSrc: src, InsTag: tag, InsCtx: uint8(ctx), InsHandle: uint16(handle), InsSrcAny: b01(srcAny), InsTagAny: b01(tagAny), RspReady: 1}
	limit := h.hashOpLimit()
	for i := 0; ; i++ {
		if i > limit {
			return 0, false, fmt.Errorf("hash_match: an insert not accepted in %d cycles", limit)
		}
		h.cycle(&p)
		if p.InsReady == 1 {
			break
		}
	}
	idle := HashPins{RspReady: 1}
	for cycles = 1; ; cycles++ {
		if cycles > limit {
			return 0, false, fmt.Errorf("hash_match: not ready %d cycles after an insert", limit)
		}
		h.cycle(&idle)
		if cycles == 1 && idle.InsRefused == 1 {
			refused = true
		}
		if idle.InsReady == 1 {
			return cycles, refused, h.err
		}
	}
}

// search drives one request; it returns the response and the cycles from the accept to the
// response (the cycle it is valid in counted).
func (h *hashPair) search(src, tag, ctx uint32, srcAny, tagAny bool) (rsp HashPins, cycles int, err error) {
	if h.rtl != nil {
		h.ops++
	}
	p := HashPins{ReqValid: 1, ReqSrc: src, ReqTag: tag, ReqCtx: uint8(ctx), ReqSrcAny: b01(srcAny), ReqTagAny: b01(tagAny), RspReady: 1}
	limit := h.hashOpLimit()
	for i := 0; ; i++ {
		if i > limit {
			return rsp, 0, fmt.Errorf("hash_match: a search not accepted in %d cycles", limit)
		}
		h.cycle(&p)
		if p.ReqReady == 1 {
			break
		}
	}
	idle := HashPins{RspReady: 1}
	for cycles = 1; ; cycles++ {
		if cycles > limit {
			return rsp, 0, fmt.Errorf("hash_match: no response %d cycles after a search", limit)
		}
		h.cycle(&idle)
		if idle.RspValid == 1 {
			return idle, cycles, h.err
		}
	}
}

func b01(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
