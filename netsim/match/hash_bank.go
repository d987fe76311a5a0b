package match

// hashBank is rtl/hash_match_bank.v: its registers by the same names, its RAMs as slices
// with the block RAM's registered read and RD_LAT-1 output registers, and its next-state logic
// in cycle, in the order of the RTL's always @* block.
type hashBank struct {
	p *HashParams
	n int // entries in this bank

	state, phase int
	wait, cur    int
	walked       int

	key    hashIn
	keyBin int

	best                                       bool
	bestIdx                                    int
	bestSeq                                    uint64
	bestHandle                                 uint32
	bestBnext, bestBprev, bestAnext, bestAprev int
	bestWild                                   bool
	bestBin                                    int

	binHead, binTail []int
	binValid         []bool
	wildValid        bool
	wildHead         int
	wildTail         int
	arrValid         bool
	arrHead, arrTail int

	fresh, freeHead, freeCnt int
	freePop                  bool
	count                    int

	ent                               []hashEntry
	bnext, bprev, anext, aprev, fnext []int
	// pipe[0] is the block RAM's output register, pipe[RD_LAT-1] what the logic sees.
	pipe []hashRead
}

type hashEntry struct {
	seq                   uint64
	handle, ctx, tag, src uint32
	srcAny, tagAny        bool
	bin                   int
}

type hashRead struct {
	e                                 hashEntry
	bnext, bprev, anext, aprev, fnext int
}

const (
	sIdle = iota
	sIns
	sWalk
	sDone
	sUnlink
)

const (
	pBin = iota
	pWild
	pArr
)

func newHashBank(p *HashParams, n int) *hashBank {
	return &hashBank{p: p, n: n,
		binHead: make([]int, p.Bins), binTail: make([]int, p.Bins), binValid: make([]bool, p.Bins),
		ent: make([]hashEntry, n), bnext: make([]int, n), bprev: make([]int, n), anext: make([]int, n),
		aprev: make([]int, n), fnext: make([]int, n), pipe: make([]hashRead, p.ReadLat)}
}

func (b *hashBank) reset() {
	b.state, b.phase, b.wait, b.walked, b.best = sIdle, pBin, 0, 0, false
	clear(b.binValid)
	b.wildValid, b.arrValid = false, false
	b.fresh, b.freeCnt, b.freePop, b.count = 0, 0, false, 0
}

// write is one RAM write of the cycle.
type write struct {
	on   bool
	addr int
	data int
}

func (w write) apply(ram []int) {
	if w.on {
		ram[w.addr] = w.data
	}
}

func (b *hashBank) match(e *hashEntry) bool {
	return e.ctx == b.key.ctx && (e.srcAny || b.key.srcAny || e.src == b.key.src) &&
		(e.tagAny || b.key.tagAny || e.tag == b.key.tag)
}

// cycle runs one clock: the RTL's always @* on the registers as they are, then its edge.
func (b *hashBank) cycle(c *bankIn) {
	q := &b.pipe[len(b.pipe)-1] // the RAMs' outputs this cycle
	lat := b.p.ReadLat
	n := *b // next state (slices shared: the RAM and head/tail writes are applied below)
	var rdEn bool
	rdAddr := b.cur
	var entW struct {
		on   bool
		addr int
		e    hashEntry
	}
	var bnextW, bprevW, anextW, aprevW, fnextW write
	var bhW, btW write // bin head and tail writes: addr is the bin
	startWild, takeThis := false, false

	switch b.state {
	case sIdle:
		if c.insGo {
			if b.fresh != b.n {
				n.cur, n.fresh, n.freePop = b.fresh, b.fresh+1, false
			} else {
				n.cur, n.freeCnt, n.freePop = b.freeHead, b.freeCnt-1, true
				rdEn, rdAddr = true, b.freeHead
			}
			entW.on, entW.addr = true, n.cur
			entW.e = hashEntry{seq: c.insSeq, handle: c.ins.handle, ctx: c.ins.ctx, tag: c.ins.tag, src: c.ins.src,
				srcAny: c.ins.srcAny, tagAny: c.ins.tagAny, bin: c.insBin}
			if c.ins.srcAny || c.ins.tagAny {
				if b.wildValid {
					bnextW = write{true, b.wildTail, n.cur}
					bprevW = write{true, n.cur, b.wildTail}
				} else {
					n.wildHead = n.cur
				}
				n.wildTail, n.wildValid = n.cur, true
			} else {
				if b.binValid[c.insBin] {
					bnextW = write{true, b.binTail[c.insBin], n.cur}
					bprevW = write{true, n.cur, b.binTail[c.insBin]}
				} else {
					bhW = write{true, c.insBin, n.cur}
				}
				btW = write{true, c.insBin, n.cur}
			}
			if b.arrValid {
				anextW = write{true, b.arrTail, n.cur}
				aprevW = write{true, n.cur, b.arrTail}
			} else {
				n.arrHead = n.cur
			}
			n.arrTail, n.arrValid = n.cur, true
			n.count = b.count + 1
			n.wait = lat
			n.state = sIns
		} else if c.reqGo {
			n.walked, n.best, n.state = 0, false, sWalk
			switch {
			case c.req.srcAny || c.req.tagAny:
				n.phase = pArr
				if b.arrValid {
					n.cur, rdEn, rdAddr, n.wait = b.arrHead, true, b.arrHead, lat-1
				} else {
					n.state = sDone
				}
			case b.binValid[c.reqBin]:
				h := b.binHead[c.reqBin]
				n.phase, n.cur, rdEn, rdAddr, n.wait = pBin, h, true, h, lat-1
			default:
				startWild = true
			}
		}
	case sIns:
		n.wait = b.wait - 1
		if b.wait == 1 {
			if b.freePop {
				n.freeHead = q.fnext
			}
			n.state = sIdle
		}
	case sWalk:
		if b.wait != 0 {
			n.wait = b.wait - 1
			break
		}
		n.walked = b.walked + 1
		e := &q.e
		m := b.match(e)
		takeThis = m && !(b.phase == pWild && b.best && e.seq > b.bestSeq)
		next := func(to int) { n.cur, rdEn, rdAddr, n.wait = to, true, to, lat-1 }
		switch b.phase {
		case pBin:
			switch {
			case m:
				n.best, startWild = true, true
			case b.cur == b.binTail[b.keyBin]:
				startWild = true
			default:
				next(q.bnext)
			}
		case pWild:
			switch {
			case b.best && e.seq > b.bestSeq:
				n.state = sDone
			case m:
				n.best, n.state = true, sDone
			case b.cur == b.wildTail:
				n.state = sDone
			default:
				next(q.bnext)
			}
		default:
			switch {
			case m:
				n.best, n.state = true, sDone
			case b.cur == b.arrTail:
				n.state = sDone
			default:
				next(q.anext)
			}
		}
		if takeThis {
			n.bestIdx, n.bestSeq, n.bestHandle = b.cur, e.seq, e.handle
			n.bestBnext, n.bestBprev, n.bestAnext, n.bestAprev = q.bnext, q.bprev, q.anext, q.aprev
			n.bestWild, n.bestBin = e.srcAny || e.tagAny, e.bin
		}
	case sDone:
		if c.take {
			n.state = sUnlink
		} else if c.drop {
			n.state = sIdle
		}
	default: // sUnlink
		if b.bestWild {
			switch {
			case b.bestIdx == b.wildHead && b.bestIdx == b.wildTail:
				n.wildValid = false
			case b.bestIdx == b.wildHead:
				n.wildHead = b.bestBnext
			case b.bestIdx == b.wildTail:
				n.wildTail = b.bestBprev
			default:
				bnextW = write{true, b.bestBprev, b.bestBnext}
				bprevW = write{true, b.bestBnext, b.bestBprev}
			}
		} else {
			h, t := b.binHead[b.bestBin], b.binTail[b.bestBin]
			switch {
			case b.bestIdx == h && b.bestIdx == t:
				n.binValid = nil // cleared below
			case b.bestIdx == h:
				bhW = write{true, b.bestBin, b.bestBnext}
			case b.bestIdx == t:
				btW = write{true, b.bestBin, b.bestBprev}
			default:
				bnextW = write{true, b.bestBprev, b.bestBnext}
				bprevW = write{true, b.bestBnext, b.bestBprev}
			}
		}
		switch {
		case b.bestIdx == b.arrHead && b.bestIdx == b.arrTail:
			n.arrValid = false
		case b.bestIdx == b.arrHead:
			n.arrHead = b.bestAnext
		case b.bestIdx == b.arrTail:
			n.arrTail = b.bestAprev
		default:
			anextW = write{true, b.bestAprev, b.bestAnext}
			aprevW = write{true, b.bestAnext, b.bestAprev}
		}
		fnextW = write{true, b.bestIdx, b.freeHead}
		n.freeHead, n.freeCnt, n.count = b.bestIdx, b.freeCnt+1, b.count-1
		n.state = sIdle
	}
	if startWild {
		n.phase = pWild
		if b.wildValid {
			n.cur, rdEn, rdAddr, n.wait = b.wildHead, true, b.wildHead, lat-1
		} else {
			n.state = sDone
		}
	}

	// The clock edge. Reads see the RAMs before this edge's writes (read-before-write);
	// the output registers shift.
	for i := len(b.pipe) - 1; i > 0; i-- {
		b.pipe[i] = b.pipe[i-1]
	}
	if rdEn {
		a := rdAddr
		b.pipe[0] = hashRead{e: b.ent[a], bnext: b.bnext[a], bprev: b.bprev[a], anext: b.anext[a], aprev: b.aprev[a], fnext: b.fnext[a]}
	}
	if entW.on {
		b.ent[entW.addr] = entW.e
	}
	bnextW.apply(b.bnext)
	bprevW.apply(b.bprev)
	anextW.apply(b.anext)
	aprevW.apply(b.aprev)
	fnextW.apply(b.fnext)
	bhW.apply(b.binHead)
	btW.apply(b.binTail)
	if b.state == sIdle && !c.insGo && c.reqGo {
		n.key, n.keyBin = c.req, c.reqBin
	}
	// The bin valid bits: set by an insert, cleared by the unlink of a bin's only entry.
	binValid := b.binValid
	if b.state == sIdle && c.insGo && !(c.ins.srcAny || c.ins.tagAny) {
		binValid[c.insBin] = true
	}
	if b.state == sUnlink && n.binValid == nil {
		binValid[b.bestBin] = false
	}
	n.binValid = binValid
	n.pipe = b.pipe
	*b = n
}
