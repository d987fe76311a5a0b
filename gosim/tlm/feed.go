package tlm

import (
	"encoding/binary"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Feed offers msgs back to back from cycle at with the host of the benchmark workload
// (device.Receiver.Feed): it releases each LH entry, unread, the cycle after it commits, and a
// split message's tail units the cycle after that (the host bus's next write). It returns the cycle after the last message finished, so that the
// workload's cycles are Feed's result minus at. It ends at the first error, as Offer and
// Release would give it.
//
// Feed is the benchmark's loop, so it has a fast path: the same rules as Offer and Release,
// with the state in local variables, for the messages that need no wait (a message that does
// goes through Offer). The tests hold the two to the same results.
func (n *NIC) Feed(at uint64, msgs [][]byte) (uint64, error) {
	if !n.cfg.LHSOn || n.mem != nil || n.port != nil {
		return n.feedSlow(at, msgs)
	}
	end := at
	for k := 0; k < len(msgs); {
		// One message the slow way when it is bad or must wait; then the fast loop again.
		// A release reported ahead (beyond the tail release Feed leaves at ready+1, before
		// any release feedFast makes): Release's order check decides.
		if n.anyRel && n.lastRel > n.ready+1 {
			e, err := n.feedSlow(at, msgs[k:k+1])
			if err != nil {
				return end, err
			}
			end, k = e, k+1
			continue
		}
		done, e := n.feedFast(at, msgs[k:])
		if done > 0 {
			end, k = e, k+done
			continue
		}
		e, err := n.feedSlow(at, msgs[k:k+1])
		if err != nil {
			return end, err
		}
		end, k = e, k+1
	}
	return end, nil
}

// feedSlow is Feed through Offer and Release.
func (n *NIC) feedSlow(at uint64, msgs [][]byte) (uint64, error) {
	end := at
	var a Accepted
	for _, msg := range msgs {
		if err := n.offer(at, msg, 0, nil, &a); err != nil {
			return end, err
		}
		if n.cfg.LHSOn {
			if err := n.Release(a.Commit+1, 1, 0); err != nil {
				return end, err
			}
			if a.TailUnits > 0 { // split: its tail with the host's next write
				if err := n.Release(a.Commit+2, 0, 16*a.TailUnits); err != nil {
					return end, err
				}
			}
		}
		end = a.Commit + 1
	}
	return end, nil
}

// feedFast runs Feed's messages from the first while none needs a wait or is bad, with LHS
// on and neither memory nor port; it returns how many it took and the cycle after the last
// one's commit. Every step is offer's and Release's for that case, with the state in local
// variables. Feed's own releases are never refused and are not queued: message k's LH
// release, at its commit + 1, is the cycle message k+1 can be taken at the earliest, and its
// first beat is no later (Feed offers every message from the same cycle, which message 0 is
// past), so message k+1's first beat never sees it and message k+2's always does: two slots
// hold them. A split message's tail release, at its commit + 2, is seen by message k+1's first
// beat if that is later than commit + 2, and always by message k+2's (taken at commit + 4 at
// the earliest), so it rides in the same slot until taken. No record of a message is kept:
// Feed's next release would drop it at once.
func (n *NIC) feedFast(at uint64, msgs [][]byte) (int, uint64) {
	// The loop's state in locals; what does not change in it is read through n (Go keeps
	// few values in registers, and reloading is cheaper than spilling).
	var (
		sizePos          = n.cfg.SizePos & 12
		q, qh            = n.rel, n.relHead // releases reported before Feed
		cons, used       = n.cons, n.used
		wptr             = uint64(n.wptr)
		prod             = n.prod
		np, ready        = uint64(0), n.ready // np: where the next message is shown at the earliest
		oldAt, newAt     uint64               // Feed's releases not yet taken (see above)
		oldU, newU       uint64               // their tail units (released at oldAt+1, newAt+1), not yet taken
		hasOld, hasNew   bool
		allocated        uint64 // tail units reserved
		stalls, beatsSum uint64
		k                int
	)
	if n.started {
		np = n.lastTaken + 1
	}
	// A size field over limit is too long: over MAX_MSG, or (below it, where the ring
	// arithmetic's 16 bits are exact) needing more than the ring's units.
	limit := uint32(min(uint64(n.cfg.MaxMsg), 16*n.ringUnits+uint64(n.cfg.SplitPos)))
	for ; k < len(msgs); k++ {
		msg := msgs[k]
		length := uint64(len(msg))
		if length < 16 || length > gosim.MaxMessage {
			break // a short or bad message goes through offer
		}
		size := binary.LittleEndian.Uint32(msg[sizePos : sizePos+4])
		isInline := size <= hw.InlineMax
		long := !isInline && size > limit
		var need uint64
		if !isInline && !long {
			need = uint64((size + 15 - n.cfg.SplitPos) >> 4)
		}
		present := max(at, np)
		t := max(present, ready)
		c, u, h := cons, used, qh
		for ; h < len(q) && q[h].at < t; h++ {
			c += q[h].entries
			u -= q[h].units
		}
		if hasOld {
			c++
			u -= oldU
		}
		nu := newU
		if hasNew && newAt+1 < t {
			u -= nu
			nu = 0
		}
		if prod-c >= n.entries || u+need > n.ringUnits {
			break // the message waits: offer decides how long
		}
		cons, used, qh = c, u+need, h
		if hasOld = hasNew; hasOld {
			oldAt, oldU = newAt, nu
		}
		beats := (length + 15) / 16
		last := t + beats - 1
		hasNew, newAt, newU = true, last+2, need // its releases, the cycles after its commit
		allocated += need
		np, ready = last+1, last+2
		stalls += t - present
		beatsSum += beats

		flags := uint64(0)
		if length != uint64(size) {
			flags |= hw.FlagMismatch
			n.count.Mismatches++
		}
		ptr := uint64(0)
		if long {
			flags |= hw.FlagTooLong
			n.count.TooLong++
		} else if !isInline {
			flags |= hw.FlagSplit
			ptr = (uint64(n.baseUnit) + wptr) << 4
		}
		e := (*[hw.EntryBytes]byte)(n.ram[(prod&(n.entries-1))*hw.EntryBytes:])
		if n.splitBeats == 3 && length >= 56 { // writeEntry's common case, inline here
			*(*[48]byte)(e[:48]) = [48]byte(msg[:48])
			hold := uint64(0)
			if isInline {
				hold = binary.LittleEndian.Uint64(msg[48:])
			}
			binary.LittleEndian.PutUint64(e[48:], hold)
			binary.LittleEndian.PutUint64(e[56:], min(length, 0xffff)|flags<<16|ptr<<32)
		} else {
			writeEntry(e, msg, beats, length, isInline, uint64(n.splitBeats), uint8(flags), ptr)
		}
		prod++
		if wptr += need; wptr >= n.ringUnits {
			wptr -= n.ringUnits
		}
	}
	if k == 0 {
		return 0, 0
	}
	n.cum += allocated
	// The releases not yet taken, in cycle order: those reported before Feed come first.
	rel := append(n.rel[:0], q[qh:]...)
	if hasOld {
		rel = append(rel, release{at: oldAt, entries: 1})
		if oldU > 0 {
			rel = append(rel, release{at: oldAt + 1, units: oldU})
		}
	}
	rel = append(rel, release{at: newAt, entries: 1})
	lastRel := newAt
	if newU > 0 {
		rel = append(rel, release{at: newAt + 1, units: newU})
		lastRel = newAt + 1
	}
	n.rel, n.relHead = rel, 0
	n.cons, n.used, n.wptr = cons, used, uint32(wptr)
	n.prod = prod
	n.seq += uint64(k)
	n.consRep += uint64(k)
	n.tailRep += allocated
	n.started, n.lastTaken, n.ready = true, np-1, ready
	n.anyRel, n.lastRel = true, lastRel
	n.hist, n.histHead, n.histBase = n.hist[:0], 0, n.cum
	cnt := &n.count
	cnt.Messages += uint64(k)
	cnt.Commits += uint64(k)
	cnt.Stalls += stalls
	cnt.Beats += beatsSum
	return k, newAt
}

// writeEntry writes an LH entry (LHS on): word 0 at the first beat, words 1 and 2 from the
// head beats, word 3 (entry bytes 48..63: message bytes 48..55 if an inline message reached
// them, len, flags, tail pointer) at the commit ("LH entry format"). Words the message does
// not reach keep what they held; a beat past the message's end carries zeros. msg holds the
// message, or at least its first min(length, 56) bytes.
func writeEntry(e *[hw.EntryBytes]byte, msg []byte, beats, length uint64, isInline bool, splitBeats uint64, flags uint8, ptr uint64) {
	headBeats := splitBeats
	if isInline {
		headBeats = 3
	}
	words := min(beats, headBeats)
	var buf [64]byte // the message's first bytes as the beats carry them
	src := msg
	if len(msg) < 64 {
		copy(buf[:], msg)
		src = buf[:]
	}
	*(*[16]byte)(e[0:16]) = [16]byte(src[0:16])
	if words > 1 {
		*(*[16]byte)(e[16:32]) = [16]byte(src[16:32])
		if words > 2 {
			*(*[16]byte)(e[32:48]) = [16]byte(src[32:48])
		}
	}
	var hold uint64
	if isInline && beats > 3 {
		hold = binary.LittleEndian.Uint64(src[48:])
	}
	binary.LittleEndian.PutUint64(e[48:], hold)
	binary.LittleEndian.PutUint64(e[56:], min(length, 0xffff)|uint64(flags)<<16|ptr<<32)
}
