// Package session is a long co-simulation run that can stop into a checkpoint file and go on later.
package session

// session is a long co-simulation run that can stop into a checkpoint file and go on
// later, in another process: a seeded stream of messages into the receive path, and a host
// that reads every LH entry, fetches every tail through the vector engine, checks each message
// byte for byte, releases what it consumed and now and then stores data with a VS.
//
// The host works on the board directly between host operations, in order, so the only state
// outside the board is the session's own: how far the stream and the checker are, their
// generators and a running digest. A checkpoint holds that with the board (checkpoint
// package); a resumed session is the uninterrupted one, cycle for cycle.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// Config is what the user chose; it is saved in every checkpoint and the resumed run uses it.
type Config struct {
	Model    device.Model      // rtl, go or lockstep
	Entries  int               `json:",omitempty"` // LH buffer entries (0: the RTL build's)
	Messages uint64            // messages in the stream
	Seed     uint64            // seeds the stream and the board
	MaxLen   int               // longest message (default 4096)
	Board    gosim.BoardConfig // the world around the NIC (its Seed is set from Seed)
	Host     drivers.Config    // how the host programs the NIC (LHS must be on)
	// Patience is how many cycles the host waits for the next LH entry before the run fails
	// (0: Patience(), from MaxLen and the input's idle share).
	Patience uint64 `json:",omitempty"`
}

// DefaultConfig is a run of n messages on the RTL.
func DefaultConfig(n uint64) Config {
	return Config{
		Model: device.RTL, Messages: n, Seed: 1, MaxLen: 4096,
		Board: gosim.BoardConfig{IdlePercent: 10},
		Host:  drivers.Config{LHS: true, SizePos: hw.SizePosReset, SplitPos: hw.SplitPosReset, MaxMsg: hw.MaxMsgReset, TailSize: 1 << 16},
	}
}

// scratchBase is where the host's VS stores go: far above the tail ring.
const scratchBase = 16 << 20

// vsEvery is how often (in messages) the host stores the last message with a VS.
const vsEvery = 64

// feedAhead is how many messages the session keeps queued at the network input.
const feedAhead = 4

// pollCycles is how long the host waits before polling LH_PROD again when nothing is new.
const pollCycles = 32

// state is everything the session itself changes; it is saved in checkpoints.
type state struct {
	Injected uint64 // messages handed to the network
	Checked  uint64 // messages the host received and checked
	Bytes    uint64 // bytes checked
	Stream   []byte // generator of the stream (gosim.Rand)
	Checker  []byte // generator the checker rebuilds the stream with
	Digest   []byte // running SHA-256 of every message received, in order
}

// Session is one run.
type Session struct {
	cfg     Config
	board   *gosim.Board
	host    *drivers.Host
	st      state
	stream  *gosim.Rand
	checker *gosim.Rand
	digest  hash.Hash
	resumed uint64 // cycle the run was resumed at (0: started here)
	waiting uint64 // cycle the host began to wait for the entry it has not got (0: not waiting)
}

func (c Config) withDefaults() (Config, error) {
	if c.MaxLen == 0 {
		c.MaxLen = 4096
	}
	if c.MaxLen < 16 || c.MaxLen > 65535 {
		return c, fmt.Errorf("session: longest message %d outside 16..65535", c.MaxLen)
	}
	if c.Messages == 0 {
		return c, fmt.Errorf("session: a run of no messages")
	}
	if !c.Host.LHS {
		return c, fmt.Errorf("session: runs need LHS on")
	}
	if i := c.Board.IdlePercent; i < 0 || i > 99 {
		return c, fmt.Errorf("session: input idle %d%% outside 0..99 (at 100 no message would ever arrive)", i)
	}
	if c.Model == "" {
		c.Model = device.RTL
	}
	c.Board.Seed = c.Seed
	if c.Patience == 0 {
		c.Patience = c.patience()
	}
	return c, nil
}

// patience is Config.Patience's default: sixteen times what the longest message takes at the
// input at the configured idle share, and 100,000 cycles more for the host's own work.
func (c Config) patience() uint64 {
	beats := uint64(c.MaxLen+15) / 16
	return 16*beats*100/uint64(100-c.Board.IdlePercent) + 100_000
}

func open(cfg Config, trace string) (*Session, error) {
	l, err := device.OpenLocal(device.Config{Model: cfg.Model, Entries: cfg.Entries, Board: cfg.Board, Trace: trace})
	if err != nil {
		return nil, err
	}
	b := l.Board
	h, err := drivers.NewHost(b, cfg.Host)
	if err != nil {
		b.Close()
		return nil, err
	}
	return &Session{cfg: cfg, board: b, host: h, digest: sha256.New()}, nil
}

// New starts a run; trace, if not empty, names an FST waveform of the RTL.
func New(cfg Config, trace string) (*Session, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s, err := open(cfg, trace)
	if err != nil {
		return nil, err
	}
	s.stream = NewStream(cfg.Seed)
	s.checker = gosim.NewRand(0)
	st, _ := s.stream.MarshalBinary()
	if err := s.checker.UnmarshalBinary(st); err != nil {
		return nil, err
	}
	return s, nil
}

// Resume rebuilds the run saved in a checkpoint file, in this process.
func Resume(path, trace string) (*Session, error) {
	f, err := checkpoint.Read(path)
	if err != nil {
		return nil, err
	}
	var cfg Config
	if err := json.Unmarshal(f.Meta, &cfg); err != nil {
		return nil, fmt.Errorf("session: %s: %w", path, err)
	}
	if cfg, err = cfg.withDefaults(); err != nil {
		return nil, fmt.Errorf("%s does not describe a run: %w", path, err)
	}
	s, err := open(cfg, trace)
	if err != nil {
		return nil, err
	}
	if err := s.restore(f); err != nil {
		s.Close()
		return nil, fmt.Errorf("session: %s: %w", path, err)
	}
	s.resumed = f.Cycle
	return s, nil
}

func (s *Session) restore(f *checkpoint.File) error {
	if err := f.Restore(s.board); err != nil {
		return err
	}
	if err := json.Unmarshal(f.Run, &s.st); err != nil {
		return err
	}
	s.stream, s.checker = gosim.NewRand(0), gosim.NewRand(0)
	if err := s.stream.UnmarshalBinary(s.st.Stream); err != nil {
		return err
	}
	if err := s.checker.UnmarshalBinary(s.st.Checker); err != nil {
		return err
	}
	if st := s.st; st.Checked > st.Injected || st.Injected > s.cfg.Messages {
		return fmt.Errorf("session: the run state is not a point of this run: %d messages checked, %d sent, of %d", st.Checked, st.Injected, s.cfg.Messages)
	}
	return s.digest.(encoding.BinaryUnmarshaler).UnmarshalBinary(s.st.Digest)
}

// Save writes a checkpoint of the run as it stands.
func (s *Session) Save(path string) error {
	var err error
	if s.st.Stream, err = s.stream.MarshalBinary(); err != nil {
		return err
	}
	if s.st.Checker, err = s.checker.MarshalBinary(); err != nil {
		return err
	}
	if s.st.Digest, err = s.digest.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
		return err
	}
	run, err := json.Marshal(s.st)
	if err != nil {
		return err
	}
	f, err := checkpoint.Capture(s.board, s.cfg, run)
	if err != nil {
		return err
	}
	return f.Write(path)
}

// Config returns the run's configuration.
func (s *Session) Config() Config { return s.cfg }

// Board returns the board the run drives.
func (s *Session) Board() *gosim.Board { return s.board }

// Cycle is the board's cycle.
func (s *Session) Cycle() uint64 { return s.board.Cycle() }

// Done reports whether every message has been received and checked.
func (s *Session) Done() bool { return s.st.Checked == s.cfg.Messages }

// Checked is the number of messages received and checked so far.
func (s *Session) Checked() uint64 { return s.st.Checked }

// Close frees the device; it reports a lockstep disagreement if there was one.
func (s *Session) Close() error { return s.board.Close() }

// NewStream is the generator of a run's messages for a seed.
func NewStream(seed uint64) *gosim.Rand { return gosim.NewRand(gosim.NewRand(seed).Uint64()) }

// Message is message i of a run's stream: an MPI envelope {source, tag, communicator, size}
// and a payload from rng, 16..maxLen bytes: a share inline, most split, some long.
func Message(i uint64, rng *gosim.Rand, maxLen int) []byte {
	var n int
	switch r := rng.Intn(100); {
	case r < 40 || maxLen <= hw.InlineMax:
		n = 16 + rng.Intn(min(hw.InlineMax, maxLen)-15)
	case r < 85:
		n = hw.InlineMax + 1 + rng.Intn(min(512, maxLen)-hw.InlineMax)
	default:
		n = 16 + rng.Intn(maxLen-15)
	}
	n = min(n, maxLen)
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], uint32(i%64))
	binary.LittleEndian.PutUint32(b[4:], uint32(i))
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	for j := 16; j < n; j += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], rng.Uint64())
		copy(b[j:], w[:])
	}
	return b
}

// Run goes on until the run is done, the board reaches cycle stopAt (at the first point
// between host operations at or after it), or ctx ends. It reports whether the run is done.
func (s *Session) Run(ctx context.Context, stopAt uint64) (bool, error) {
	for !s.Done() {
		if s.board.Cycle() >= stopAt || ctx.Err() != nil {
			return false, nil
		}
		if err := s.step(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// step is one host operation: feed the input, then check and release one message or wait.
func (s *Session) step() error {
	for s.st.Injected < s.cfg.Messages && s.board.Pending() < feedAhead {
		if err := s.board.Inject(Message(s.st.Injected, s.stream, s.cfg.MaxLen)); err != nil {
			return err
		}
		s.st.Injected++
	}
	prod, err := s.host.Produced()
	if err != nil {
		return err
	}
	seq := uint32(s.st.Checked)
	if prod == seq {
		// Waiting for the next entry: as long as it may take, and no longer.
		if s.waiting == 0 {
			s.waiting = s.board.Cycle() + 1
		} else if waited := s.board.Cycle() + 1 - s.waiting; waited > s.cfg.Patience {
			return s.stuck(waited)
		}
		return s.board.Run(pollCycles)
	}
	s.waiting = 0
	e, err := s.host.ReadEntry(seq)
	if err != nil {
		return err
	}
	got, err := s.host.Message(e)
	if err != nil {
		return err
	}
	want := Message(s.st.Checked, s.checker, s.cfg.MaxLen)
	if e.Flags&(hw.FlagMismatch|hw.FlagTooLong) != 0 || !bytes.Equal(got, want) {
		return fmt.Errorf("session: message %d (%d bytes, flags %#x) at cycle %d: received bytes differ from those sent",
			s.st.Checked, len(want), e.Flags, s.board.Cycle())
	}
	if err := s.board.WriteReg(hw.RegLHRelease, 1); err != nil {
		return err
	}
	if e.Split() {
		units := hw.TailUnits(e.Size(), s.host.Config().SplitPos)
		if err := s.board.WriteReg(hw.RegTailRelease, units*16); err != nil {
			return err
		}
	}
	s.digest.Write(got)
	s.st.Checked++
	s.st.Bytes += uint64(len(got))
	if s.st.Checked%vsEvery == 0 {
		slot := s.st.Checked / vsEvery % 16
		if err := s.host.Store(scratchBase+uint32(slot)*4096, got[:min(len(got), 4096)]); err != nil {
			return err
		}
	}
	return nil
}

// stuck is the error of a host that has waited too long for the next entry.
func (s *Session) stuck(waited uint64) error {
	size := "?"
	if st, err := s.checker.MarshalBinary(); err == nil {
		r := gosim.NewRand(0)
		if r.UnmarshalBinary(st) == nil {
			size = fmt.Sprint(len(Message(s.st.Checked, r, s.cfg.MaxLen)))
		}
	}
	return fmt.Errorf("session: waited %d cycles (from cycle %d) for LH entry %d, message %d of %d (%s bytes), to commit; "+
		"%d messages queued at the input, input idle %d%%, %d cycles of back-pressure so far",
		waited, s.waiting-1, s.st.Checked, s.st.Checked+1, s.cfg.Messages, size, s.board.Pending(), s.cfg.Board.IdlePercent, s.board.Count.Stalls)
}

// Result is how a run ended. Two runs of the same configuration, one of them stopped and
// resumed any number of times, have the same Result but for ResumedAt.
type Result struct {
	Model     string
	Messages  uint64
	Bytes     uint64
	Cycles    uint64         // board cycles, from reset to the last check
	Digest    string         // SHA-256 of every message the host received, in order
	Memory    string         // SHA-256 of the SO-DIMM's contents at the end
	Counters  gosim.Counters // what the board saw on the ports
	ResumedAt uint64         `json:",omitempty"` // the cycle this process resumed at
}

// Result reports the run as it stands.
func (s *Session) Result() Result {
	sum := s.digest.Sum(nil)
	mem := s.board.Memory().Digest()
	return Result{
		Model: string(s.cfg.Model), Messages: s.st.Checked, Bytes: s.st.Bytes, Cycles: s.board.Cycle(),
		Digest: hex.EncodeToString(sum), Memory: hex.EncodeToString(mem[:]), Counters: s.board.Count,
		ResumedAt: s.resumed,
	}
}
