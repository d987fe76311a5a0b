package gosim

import "errors"

// MaxMessage is the longest message the source will carry (the splitter's byte counter is
// exact below 1 MiB).
const MaxMessage = 1 << 20

// Source is the network controller's output: error-free messages, one 16-byte beat per
// cycle at most, with optional random idle cycles between beats. Once it shows a beat it
// holds it until taken, as a valid/ready source must.
type Source struct {
	// The queued messages back to back in buf from head, their lengths in lens, oldest first:
	// one buffer a bridge can hand to C whole (Board.RunWhile).
	buf        []byte
	head       int
	lens       []uint32
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
	if s.head >= 1<<16 && 2*s.head >= len(s.buf) {
		s.buf = s.buf[:copy(s.buf, s.buf[s.head:])]
		s.head = 0
	}
	s.buf = append(s.buf, msg...)
	s.lens = append(s.lens, uint32(len(msg)))
	return nil
}

// Pending is the number of messages not yet fully taken.
func (s *Source) Pending() int { return len(s.lens) }

// queued is the messages not yet fully taken, back to back, their lengths, and how many
// bytes of the first the receive path has taken.
func (s *Source) queued() ([]byte, []uint32, int) { return s.buf[s.head:], s.lens, s.off }

// advance records what a stretch run elsewhere took: msgs whole messages, beats beats, and
// off bytes of the message now first.
func (s *Source) advance(msgs int, beats uint64, off int) {
	for _, n := range s.lens[:msgs] {
		s.head += int(n)
	}
	s.lens = s.lens[msgs:]
	s.off = off
	s.Beats += beats
	s.Messages += uint64(msgs)
	if len(s.lens) == 0 {
		s.buf, s.head, s.lens = s.buf[:0], 0, s.lens[:0]
	}
}

// Drive sets the stream inputs for this cycle.
func (s *Source) Drive(p *Pins) {
	p.MsgValid, p.MsgLast, p.MsgKeep = 0, 0, 0
	if len(s.lens) == 0 {
		return
	}
	if !s.presenting && s.idle > 0 && s.rng.Intn(100) < s.idle {
		return
	}
	s.presenting = true
	msg := s.buf[s.head+s.off : s.head+int(s.lens[0])]
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
		s.head += int(s.lens[0])
		s.lens = s.lens[1:]
		s.off = 0
		s.Messages++
		if len(s.lens) == 0 {
			s.buf, s.head, s.lens = s.buf[:0], 0, s.lens[:0]
		}
	}
}
