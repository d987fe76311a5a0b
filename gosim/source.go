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
	noise      bool
	Beats      uint64 // beats taken by the receive path
	Messages   uint64 // messages fully taken
}

// NewSource builds a source that idles on idlePercent of the cycles when it could send.
func NewSource(idlePercent int, rng *Rand) *Source { return &Source{idle: idlePercent, rng: rng} }

// SetNoise makes the source drive what docs/design.md allows past a message's end: random,
// never-zero bytes after its last byte in the last beat, and random tkeep bits below the last
// byte's (only the highest set bit counts). The receive path must store none of it.
func (s *Source) SetNoise(on bool) { s.noise = on }

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
		if s.noise {
			// From the message's number, so that a beat held for several cycles is the same.
			r := NewRand(0x6e6f697365 ^ s.Messages*0x9e3779b97f4a7c15)
			for i := n; i < 16; i++ {
				beat[i] = byte(r.Uint64()) | 0x80
			}
			p.MsgData = getWord(beat[:])
			p.MsgKeep = uint16(1<<(n-1)) | uint16(r.Uint64())&(1<<(n-1)-1)
			if n == 16 && r.Intn(4) == 0 {
				p.MsgKeep = 0 // a full last beat may say so with tkeep 0
			}
		}
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
