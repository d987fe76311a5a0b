package ether

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lhsim/lhsim/netsim"
)

// Station is what a hub port is attached to: an adapter.
type Station interface {
	// Receive is called when the last bit of a frame addressed to the station (or broadcast)
	// has reached it. The frame is the station's to keep; it may fail Open (a corrupted frame).
	Receive(now netsim.Time, frame []byte)
}

// Sent tells a station that its frame's last bit has left it (err nil), or that the hub gave
// up on it (ErrExcessiveCollisions).
type Sent func(now netsim.Time, err error)

// Errors of the hub.
var (
	ErrExcessiveCollisions = errors.New("ether: frame dropped after the attempt limit of collisions")
	ErrBusy                = errors.New("ether: station already has a frame in its MAC")
	ErrNoPort              = errors.New("ether: no such port")
)

// Faults is the lossy-link mode: each frame that reaches a station is, independently and with
// these probabilities, dropped, corrupted (one byte flipped: it fails its FCS), delivered
// twice, or held back by ReorderDelay so that frames sent after it overtake it. The draws
// come from a generator seeded with Seed, in event order, so a run repeats bit for bit.
type Faults struct {
	Drop, Corrupt, Duplicate, Reorder float64
	// ReorderDelay is how long a reordered frame is held (0: three times its own wire time).
	ReorderDelay netsim.Time
	Seed         uint64
}

// Validate reports a rate outside [0, 1).
func (f Faults) Validate() error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"drop", f.Drop}, {"corrupt", f.Corrupt}, {"duplicate", f.Duplicate}, {"reorder", f.Reorder}} {
		if !(r.v >= 0 && r.v < 1) {
			return fmt.Errorf("ether: %s rate %g: want 0 <= rate < 1", r.name, r.v)
		}
	}
	if f.ReorderDelay < 0 {
		return fmt.Errorf("ether: reorder delay %v: want >= 0", f.ReorderDelay)
	}
	return nil
}

// Lossy reports whether any rate is set.
func (f Faults) Lossy() bool { return f.Drop > 0 || f.Corrupt > 0 || f.Duplicate > 0 || f.Reorder > 0 }

// Stats counts what the hub did.
type Stats struct {
	Frames     int   // frames sent whole
	WireBytes  int64 // their bytes on the wire, preamble included
	Collisions int   // transmissions cut short by a collision
	Deferrals  int   // attempts that found the medium busy and waited
	Dropped    int   // frames given up after the attempt limit
	Unclaimed  int   // frames no station's address matched
	// The lossy mode's doings, per receiving station.
	FaultDrops, FaultCorrupts, FaultDuplicates, FaultReorders int
}

type pending struct {
	frame    []byte
	done     Sent
	attempts int
	gen      uint64 // bumps when a planned end is called off
}

type port struct {
	mac MAC
	st  Station
	cur *pending
	gen uint64
}

type carrier struct {
	port        int
	start, stop netsim.Time
	collided    bool
}

// Hub is a repeater hub: one half-duplex collision domain shared by every port.
type Hub struct {
	eng     *netsim.Engine
	m       Medium
	ports   []*port
	byMAC   map[MAC]int
	on      []*carrier  // carriers on the medium, not yet over
	quietAt netsim.Time // when the last carrier's end has reached every station
	backoff *rand.Rand
	faults  Faults
	loss    *rand.Rand
	stats   Stats
	// Tap, when set, sees every frame sent whole, as it left its port (a capture for tests and
	// traces; it must not change the frame).
	Tap func(now netsim.Time, port int, frame []byte)
}

// NewHub makes an empty hub of medium m on eng; seed drives the backoff draws.
func NewHub(eng *netsim.Engine, m Medium, seed uint64) (*Hub, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &Hub{eng: eng, m: m, byMAC: map[MAC]int{}, quietAt: math.MinInt64 / 2, // quiet since long before
		backoff: rand.New(rand.NewPCG(seed, 0x6261636b6f6666))}, nil
}

// Medium is the hub's medium.
func (h *Hub) Medium() Medium { return h.m }

// Stats is what the hub has done so far.
func (h *Hub) Stats() Stats { return h.stats }

// SetFaults turns the lossy mode on (or off, with the zero Faults) for the frames that follow.
func (h *Hub) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	h.faults = f
	h.loss = rand.New(rand.NewPCG(f.Seed, 0x6c6f7373))
	return nil
}

// Attach connects a station with address mac and returns its port.
func (h *Hub) Attach(mac MAC, st Station) (int, error) {
	if mac == Broadcast || mac[0]&1 != 0 {
		return 0, fmt.Errorf("ether: station address %v is a group address", mac)
	}
	if _, ok := h.byMAC[mac]; ok {
		return 0, fmt.Errorf("ether: station address %v attached twice", mac)
	}
	h.ports = append(h.ports, &port{mac: mac, st: st})
	h.byMAC[mac] = len(h.ports) - 1
	return len(h.ports) - 1, nil
}

// Send hands a frame (as Seal makes it) to port's MAC at now. done is called when its last
// bit has left, or when the hub gives up on it. A port sends one frame at a time.
func (h *Hub) Send(now netsim.Time, p int, frame []byte, done Sent) error {
	if p < 0 || p >= len(h.ports) {
		return fmt.Errorf("%w: %d of %d", ErrNoPort, p, len(h.ports))
	}
	if len(frame) < MinFrame || len(frame) > MaxFrame {
		return fmt.Errorf("%w: frame of %d bytes", ErrPacketSize, len(frame))
	}
	pt := h.ports[p]
	if pt.cur != nil {
		return fmt.Errorf("%w: port %d", ErrBusy, p)
	}
	pt.cur = &pending{frame: frame, done: done}
	h.eng.At(now, netsim.Func(func(t netsim.Time, _ int64) { h.attempt(t, p) }), 0)
	return nil
}

// attempt is port p trying to put its frame on the medium at t (1-persistent CSMA/CD).
func (h *Hub) attempt(t netsim.Time, p int) {
	pt := h.ports[p]
	h.prune(t)
	var unheard []*carrier
	busy := false
	for _, c := range h.on {
		if t < c.start+h.m.Latency {
			unheard = append(unheard, c)
		} else {
			busy = true
		}
	}
	if len(unheard) == 0 {
		if busy || t < h.quietAt+h.m.Gap() {
			// Heard a carrier, or the gap after one has not passed: wait for both.
			h.stats.Deferrals++
			at := max(h.quietAt, t) + h.m.Gap()
			for _, c := range h.on {
				at = max(at, c.stop+h.m.Latency+h.m.Gap())
			}
			h.eng.At(at, netsim.Func(func(t netsim.Time, _ int64) { h.attempt(t, p) }), 0)
			return
		}
		c := &carrier{port: p, start: t, stop: t + h.m.WireTime(len(pt.cur.frame))}
		h.on = append(h.on, c)
		gen := pt.cur.gen
		h.eng.At(c.stop, netsim.Func(func(t netsim.Time, _ int64) { h.ended(t, p, gen, c) }), 0)
		return
	}
	// Someone started less than Latency ago: neither hears the other in time. Each stops
	// after hearing the other, sends the jam, and backs off.
	mine := &carrier{port: p, start: t, collided: true}
	first := unheard[0].start
	for _, c := range unheard {
		first = min(first, c.start)
	}
	mine.stop = min(t+h.m.WireTime(len(pt.cur.frame)), max(t, first+h.m.Latency)+h.m.Jam())
	h.on = append(h.on, mine)
	h.collide(mine)
	for _, c := range unheard {
		if c.collided {
			continue
		}
		c.collided = true
		c.stop = min(c.stop, max(c.start, t+h.m.Latency)+h.m.Jam())
		h.collide(c)
	}
}

// collide ends carrier c's transmission at c.stop and schedules its next attempt.
func (h *Hub) collide(c *carrier) {
	pt := h.ports[c.port]
	h.stats.Collisions++
	pt.cur.gen++ // the end planned for it, if any, is off
	cur := pt.cur
	h.eng.At(c.stop, netsim.Func(func(t netsim.Time, _ int64) {
		h.quietAt = max(h.quietAt, t+h.m.Latency)
		cur.attempts++
		if cur.attempts >= h.m.AttemptLimit {
			h.stats.Dropped++
			pt.cur = nil
			cur.done(t, fmt.Errorf("%w (%d attempts)", ErrExcessiveCollisions, cur.attempts))
			return
		}
		k := min(cur.attempts, h.m.BackoffLimit)
		wait := netsim.Time(h.backoff.IntN(1<<k)) * h.m.Slot()
		h.eng.At(t+wait, netsim.Func(func(t netsim.Time, _ int64) { h.attempt(t, c.port) }), 0)
	}), 0)
}

// ended is the last bit of port p's frame leaving it: the frame crosses the hub.
func (h *Hub) ended(t netsim.Time, p int, gen uint64, c *carrier) {
	pt := h.ports[p]
	if pt.cur == nil || pt.cur.gen != gen || c.collided {
		return
	}
	cur := pt.cur
	pt.cur = nil
	h.quietAt = max(h.quietAt, t+h.m.Latency)
	h.stats.Frames++
	h.stats.WireBytes += int64(PreambleBytes + len(cur.frame))
	if h.Tap != nil {
		h.Tap(t, p, cur.frame)
	}
	dst := Destination(cur.frame)
	switch to, ok := h.byMAC[dst]; {
	case dst == Broadcast:
		for q := range h.ports {
			if q != p {
				h.deliver(t, q, cur.frame)
			}
		}
	case ok && to != p:
		h.deliver(t, to, cur.frame)
	default:
		h.stats.Unclaimed++
	}
	cur.done(t, nil)
}

// deliver hands the frame whose last bit left at t to port q, through the lossy mode.
func (h *Hub) deliver(t netsim.Time, q int, frame []byte) {
	at := t + h.m.Latency
	copies := 1
	if h.faults.Lossy() {
		f := h.faults
		if h.loss.Float64() < f.Drop {
			h.stats.FaultDrops++
			return
		}
		if h.loss.Float64() < f.Corrupt {
			h.stats.FaultCorrupts++
			bad := append([]byte(nil), frame...)
			bad[h.loss.IntN(len(bad))] ^= byte(1 + h.loss.IntN(255))
			frame = bad
		}
		if h.loss.Float64() < f.Duplicate {
			h.stats.FaultDuplicates++
			copies = 2
		}
		if h.loss.Float64() < f.Reorder {
			h.stats.FaultReorders++
			d := f.ReorderDelay
			if d == 0 {
				d = 3 * h.m.WireTime(len(frame))
			}
			at += d
		}
	}
	st := h.ports[q].st
	for i := range copies {
		own := frame
		if i > 0 {
			own = append([]byte(nil), frame...)
		}
		h.eng.At(at+netsim.Time(i)*h.m.WireTime(len(frame)), netsim.Func(func(t netsim.Time, _ int64) { st.Receive(t, own) }), 0)
	}
}

// prune forgets carriers that are over at t.
func (h *Hub) prune(t netsim.Time) {
	k := 0
	for _, c := range h.on {
		if c.stop+h.m.Latency > t {
			h.on[k] = c
			k++
		}
	}
	clear(h.on[k:])
	h.on = h.on[:k]
}
