package gosim

import "errors"

// MaxMessage is the longest message the source will carry (the splitter's byte counter is
// exact below 1 MiB).
const MaxMessage = 1 << 20

// Source is the network controller's output: error-free messages, one 16-byte beat per
// cycle at most, with optional random idle cycles between beats. Once it shows a beat it
// holds it until taken, as a valid/ready source must.
type Source struct {
	queue      [][]byte
	off        int
	idle       int
	rng        *Rand
	presenting bool
	Beats      uint64 // beats taken by the receive path
	Messages   uint64 // messages fully taken
}

// NewSource builds a source that idles on idlePercent of the cycles when it could send.
func NewSource(idlePercent int, rng *Rand) *Source { return &Source{idle: idlePercent, rng: rng} }

// Push queues a message.
func (s *Source) Push(msg []byte) error {
	if len(msg) == 0 {
		return errors.New("source: empty message (a message has at least one byte)")
	}
	if len(msg) > MaxMessage {
		return errors.New("source: message longer than 1 MiB")
	}
	s.queue = append(s.queue, msg)
	return nil
}

// Pending is the number of messages not yet fully taken.
func (s *Source) Pending() int { return len(s.queue) }

// Drive sets the stream inputs for this cycle.
func (s *Source) Drive(p *Pins) {
	p.MsgValid, p.MsgLast, p.MsgKeep = 0, 0, 0
	if len(s.queue) == 0 {
		return
	}
	if !s.presenting && s.idle > 0 && s.rng.Intn(100) < s.idle {
		return
	}
	s.presenting = true
	msg := s.queue[0][s.off:]
	n := len(msg)
	if n > 16 {
		n = 16
	}
	var beat [16]byte
	copy(beat[:], msg[:n])
	p.MsgData = getWord(beat[:])
	p.MsgValid = 1
	if n == len(msg) {
		p.MsgLast = 1
		p.MsgKeep = uint16(1<<n - 1)
	}
}

// Observe advances past a beat the receive path took.
func (s *Source) Observe(p *Pins) {
	if p.MsgValid == 0 || p.MsgReady == 0 {
		return
	}
	s.presenting = false
	s.Beats++
	s.off += 16
	if p.MsgLast != 0 {
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.off = 0
		s.Messages++
	}
}
