package mbcf

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/lhsim/lhsim/netsim/ether"
)

// The packet of the MBCF paper's §3, Figures 1 and 2. Byte addresses from the packet's start (the
// Ethernet destination address). Bytes 0..35 are the kernel's; the commands from 36 on may
// be built by the user. Multi-byte fields are big-endian, as on the seed's SPARC hosts.
//
// The seed's figures are drawings the text describes; where it names a field's place, that
// place is kept (20 unused; 21..23 the three control bytes; 24 source task ID; 28 access
// key; 32 destination task ID; 36 the destination space's key; 40 the command; 44 the
// address; 48 the length; 52 the data of a WRITE, or the reply pointer of a READ or SWAP;
// 56 the flag pointer of SWAP_STAT). What it leaves open is this package's choice, said
// where it is defined: the layout of bytes 0..19 beyond the two addresses and the type, the
// meaning of each control byte, the command codes and option bits.
const (
	OffDst      = 0  // destination Ethernet address (6)
	OffSrc      = 6  // source Ethernet address (6)
	OffType     = 12 // packet type (2): EtherType, not IP's
	OffLength   = 14 // packet length (2): bytes 0 .. end of the last command, as IP's total length
	OffSrcNode  = 16 // source physical node ID (4): MBCF's own node number, where IP has an address
	OffUnused   = 20 // "20 番地は空いている"
	OffSeq      = 21 // this packet's sequence number on its channel (arrival guarantee)
	OffAck      = 22 // the next sequence number expected from the peer (FIFO order, cumulative ack)
	OffCtrl     = 23 // acknowledgement control bits (Ctrl*)
	OffSrcTask  = 24 // source task ID (4)
	OffSrcKey   = 28 // source task's access key (4): the key a reply into its space must carry
	OffDstTask  = 32 // destination task ID (4)
	OffCommands = 36 // the first command

	HeaderBytes = 36 // everything the kernel sets
	// CommandBytes is a command's fixed part: destination space key, command word, address,
	// length.
	CommandBytes = 16
	// MaxPacket is the largest packet: an Ethernet frame less its FCS.
	MaxPacket = ether.MaxPacket
	// MaxWriteData is the most data one MBCF_WRITE packet without a flag carries: 1,514 - 52
	// bytes, less what padding to a word would overrun (1,460).
	MaxWriteData = (MaxPacket - HeaderBytes - CommandBytes) &^ 3
	// MaxReplyData is the most a READ or SWAP may ask back (its REPLY, with a flag, must fit
	// one packet), and the most a WRITE_STAT carries: 1,456.
	MaxReplyData = (MaxPacket - HeaderBytes - CommandBytes - 4) &^ 3
	// MaxSwapData is the most one SWAP_STAT swaps: its reply and flag pointers and its data
	// must fit one packet (1,452).
	MaxSwapData = (MaxPacket - HeaderBytes - CommandBytes - 8) &^ 3
)

// EtherType is the packet type: IEEE Std 802's Local Experimental EtherType 1, which no
// protocol is assigned, so MBCF "does not clash with IP or other protocols" (§3).
const EtherType uint16 = 0x88B5

// Control bits (byte 23).
const (
	CtrlAck     uint8 = 1 << 0 // byte 22 carries an acknowledgement
	CtrlNak     uint8 = 1 << 1 // the sender of this packet lost order: resend from byte 22's number
	CtrlAckOnly uint8 = 1 << 2 // no commands; the packet takes no sequence number
)

// Opcode is a command's kind (the command word's low byte). The user may send the first four;
// the kernel alone sends the others (replies), and refuses them from a user.
type Opcode uint8

const (
	OpWrite  Opcode = 1  // MBCF_WRITE: data into the destination space
	OpRead   Opcode = 2  // MBCF_READ: data back into the requester's space
	OpSwap   Opcode = 3  // MBCF_SWAP: old data back, new data in, atomically, any number of words
	OpFIFO   Opcode = 4  // Memory-Based FIFO: a record appended to a queue in the destination space
	OpReply  Opcode = 8  // kernel: a READ's or SWAP's data into the requester's buffer, then its flag
	OpStatus Opcode = 9  // kernel: a completion status into the requester's flag
	OpNotice Opcode = 10 // kernel: a failed command that had no flag, for the requester's kernel
)

func (o Opcode) String() string {
	switch o {
	case OpWrite:
		return "WRITE"
	case OpRead:
		return "READ"
	case OpSwap:
		return "SWAP"
	case OpFIFO:
		return "FIFO"
	case OpReply:
		return "REPLY"
	case OpStatus:
		return "STATUS"
	case OpNotice:
		return "NOTICE"
	}
	return fmt.Sprintf("op%d", uint8(o))
}

func (o Opcode) known() bool { return o >= OpWrite && o <= OpFIFO || o >= OpReply && o <= OpNotice }

// User reports whether a user may send the command.
func (o Opcode) User() bool { return o >= OpWrite && o <= OpFIFO }

// carriesData: the command's data follows its operands.
func (o Opcode) carriesData() bool { return o != OpRead }

// hasReply: a reply pointer (the requester's buffer) follows the length.
func (o Opcode) hasReply() bool { return o == OpRead || o == OpSwap }

// Command word bits (byte 40): the opcode in the low byte, options above it, and the top bits
// the kernel sets for retransmission control whatever the user wrote (§3: "40 番地の MBCF
// Command の上位ビットはパケット再送制御等に使用されるため、カーネルルーチンで正しく再設定される").
const (
	OptStat    uint32 = 1 << 8  // _STAT: report completion (or failure) into the flag pointer's word
	KernRetx   uint32 = 1 << 31 // the packet is a retransmitted copy
	KernAckNow uint32 = 1 << 30 // acknowledge at once (set on retransmissions and when a window fills)
	userBits          = 0x0000_ffff
	kernBits          = KernRetx | KernAckNow
)

// Command is one MBCF command. Its wire form is Key, Word (Op | options | kernel bits), Addr,
// Length, then Reply if the op returns data (READ, SWAP), Flag if OptStat is set, then Length
// bytes of data if the op carries data (all but READ), padded with zeros to a 4-byte boundary
// so that a command combined after it starts aligned (Figure 2(b)).
type Command struct {
	Key    uint32 // access key of the destination task's space (byte 36 of the first command)
	Op     Opcode
	Opts   uint32 // option bits (OptStat); kernel bits are the packet's, not the command's
	Addr   uint32 // logical address in the destination space (FIFO: the queue's header)
	Length uint32 // bytes written, read or swapped
	Reply  uint32 // READ, SWAP: where the data goes back in the requester's space
	Flag   uint32 // OptStat: the requester's flag word
	Data   []byte
}

// Stat reports whether the command asks for its completion status.
func (c *Command) Stat() bool { return c.Opts&OptStat != 0 }

// Size is the command's bytes in a packet.
func (c *Command) Size() int {
	n := CommandBytes
	if c.Op.hasReply() {
		n += 4
	}
	if c.Stat() {
		n += 4
	}
	if c.Op.carriesData() {
		n += pad4(int(c.Length))
	}
	return n
}

func pad4(n int) int { return (n + 3) &^ 3 }

// Header is bytes 0..35.
type Header struct {
	Dst, Src ether.MAC
	SrcNode  uint32
	Seq, Ack uint8
	Ctrl     uint8
	// Kern holds the kernel's bits of the first command word (KernRetx, KernAckNow): the
	// seed's retransmission and flow control use only the first command's top bits.
	Kern                     uint32
	SrcTask, SrcKey, DstTask uint32
}

// Packet is a header and the commands combined in it, all for one destination task.
type Packet struct {
	Header
	Cmds []Command
}

// Errors of Encode and Decode. A decoded packet either is whole and well formed or is
// refused with one of these, before anything in it is acted on.
var (
	ErrTruncated = errors.New("mbcf: packet truncated")
	ErrType      = errors.New("mbcf: not an MBCF packet")
	ErrFormat    = errors.New("mbcf: malformed packet")
	ErrTooLarge  = errors.New("mbcf: packet larger than a frame")
)

// Size is the packet's length field: header and commands.
func (p *Packet) Size() int {
	n := HeaderBytes
	for i := range p.Cmds {
		n += p.Cmds[i].Size()
	}
	return n
}

// Encode writes the packet's bytes (not padded: ether.Seal pads). It refuses what Decode
// would refuse.
func (p *Packet) Encode() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	n := p.Size()
	b := make([]byte, n)
	be := binary.BigEndian
	copy(b[OffDst:], p.Dst[:])
	copy(b[OffSrc:], p.Src[:])
	be.PutUint16(b[OffType:], EtherType)
	be.PutUint16(b[OffLength:], uint16(n))
	be.PutUint32(b[OffSrcNode:], p.SrcNode)
	b[OffSeq], b[OffAck], b[OffCtrl] = p.Seq, p.Ack, p.Ctrl
	be.PutUint32(b[OffSrcTask:], p.SrcTask)
	be.PutUint32(b[OffSrcKey:], p.SrcKey)
	be.PutUint32(b[OffDstTask:], p.DstTask)
	at := OffCommands
	for i := range p.Cmds {
		c := &p.Cmds[i]
		word := uint32(c.Op) | c.Opts&userBits&^0xff
		if i == 0 {
			word |= p.Kern & kernBits
		}
		be.PutUint32(b[at:], c.Key)
		be.PutUint32(b[at+4:], word)
		be.PutUint32(b[at+8:], c.Addr)
		be.PutUint32(b[at+12:], c.Length)
		at += CommandBytes
		if c.Op.hasReply() {
			be.PutUint32(b[at:], c.Reply)
			at += 4
		}
		if c.Stat() {
			be.PutUint32(b[at:], c.Flag)
			at += 4
		}
		if c.Op.carriesData() {
			copy(b[at:], c.Data)
			at += pad4(int(c.Length))
		}
	}
	return b, nil
}

func (p *Packet) check() error {
	if p.Ctrl&CtrlAckOnly != 0 {
		if len(p.Cmds) != 0 {
			return fmt.Errorf("%w: an ack-only packet with %d commands", ErrFormat, len(p.Cmds))
		}
	} else if len(p.Cmds) == 0 {
		return fmt.Errorf("%w: no commands and not ack-only", ErrFormat)
	}
	if p.Kern&^kernBits != 0 {
		return fmt.Errorf("%w: kernel bits %#x outside %#x", ErrFormat, p.Kern, kernBits)
	}
	for i := range p.Cmds {
		c := &p.Cmds[i]
		if !c.Op.known() {
			return fmt.Errorf("%w: command %d: unknown opcode %d", ErrFormat, i, c.Op)
		}
		if c.Opts&^OptStat != 0 {
			return fmt.Errorf("%w: command %d: option bits %#x (only OptStat is defined)", ErrFormat, i, c.Opts)
		}
		if c.Op.carriesData() && len(c.Data) != int(c.Length) {
			return fmt.Errorf("%w: command %d: length %d with %d data bytes", ErrFormat, i, c.Length, len(c.Data))
		}
		if !c.Op.carriesData() && len(c.Data) != 0 {
			return fmt.Errorf("%w: command %d: %v carries no data, has %d bytes", ErrFormat, i, c.Op, len(c.Data))
		}
		if err := c.checkShape(); err != nil {
			return fmt.Errorf("%w: command %d: %v", ErrFormat, i, err)
		}
	}
	if n := p.Size(); n > MaxPacket {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, n, MaxPacket)
	}
	return nil
}

// checkShape holds the rules of each op beyond the wire form.
func (c *Command) checkShape() error {
	switch c.Op {
	case OpWrite, OpRead, OpFIFO, OpReply:
		if c.Length == 0 {
			return fmt.Errorf("%v of 0 bytes", c.Op)
		}
	case OpSwap:
		if c.Length == 0 || c.Length%4 != 0 {
			return fmt.Errorf("SWAP of %d bytes: want whole 4-byte words", c.Length)
		}
	case OpStatus:
		if c.Length != 4 {
			return fmt.Errorf("STATUS of %d bytes: want one 4-byte word", c.Length)
		}
	case OpNotice:
		if c.Length != NoticeBytes {
			return fmt.Errorf("NOTICE of %d bytes: want %d", c.Length, NoticeBytes)
		}
	}
	if (c.Op == OpStatus || c.Op == OpNotice) && c.Stat() {
		return fmt.Errorf("%v with a flag of its own", c.Op)
	}
	return nil
}

// Decode parses a received packet: b is an Ethernet frame's packet (ether.Open's result,
// padding included). The packet is whole and well formed, or an error (ErrTruncated,
// ErrType, ErrFormat) says what is wrong with it. Data slices alias b.
func Decode(b []byte) (*Packet, error) {
	if len(b) < HeaderBytes {
		return nil, fmt.Errorf("%w: %d bytes, the header alone is %d", ErrTruncated, len(b), HeaderBytes)
	}
	be := binary.BigEndian
	if t := be.Uint16(b[OffType:]); t != EtherType {
		return nil, fmt.Errorf("%w: type %#04x", ErrType, t)
	}
	n := int(be.Uint16(b[OffLength:]))
	if n < HeaderBytes || n > MaxPacket {
		return nil, fmt.Errorf("%w: length field %d", ErrFormat, n)
	}
	if n > len(b) {
		return nil, fmt.Errorf("%w: length field %d, %d bytes arrived", ErrTruncated, n, len(b))
	}
	p := &Packet{}
	copy(p.Dst[:], b[OffDst:])
	copy(p.Src[:], b[OffSrc:])
	p.SrcNode = be.Uint32(b[OffSrcNode:])
	p.Seq, p.Ack, p.Ctrl = b[OffSeq], b[OffAck], b[OffCtrl]
	p.SrcTask = be.Uint32(b[OffSrcTask:])
	p.SrcKey = be.Uint32(b[OffSrcKey:])
	p.DstTask = be.Uint32(b[OffDstTask:])
	at := OffCommands
	for at < n {
		i := len(p.Cmds)
		if n-at < CommandBytes {
			return nil, fmt.Errorf("%w: command %d: %d bytes left, a command takes %d", ErrTruncated, i, n-at, CommandBytes)
		}
		word := be.Uint32(b[at+4:])
		c := Command{Key: be.Uint32(b[at:]), Op: Opcode(word), Opts: word & userBits &^ 0xff,
			Addr: be.Uint32(b[at+8:]), Length: be.Uint32(b[at+12:])}
		if i == 0 {
			p.Kern = word & kernBits
		} else if word&kernBits != 0 {
			return nil, fmt.Errorf("%w: command %d: kernel bits %#x outside the first command", ErrFormat, i, word&kernBits)
		}
		if word&^(userBits|kernBits) != 0 {
			return nil, fmt.Errorf("%w: command %d: reserved bits %#x", ErrFormat, i, word&^(userBits|kernBits))
		}
		if !c.Op.known() {
			return nil, fmt.Errorf("%w: command %d: unknown opcode %d", ErrFormat, i, c.Op)
		}
		if c.Opts&^OptStat != 0 {
			return nil, fmt.Errorf("%w: command %d: option bits %#x", ErrFormat, i, c.Opts)
		}
		if c.Length > MaxPacket {
			return nil, fmt.Errorf("%w: command %d: length %d", ErrFormat, i, c.Length)
		}
		if need := c.Size(); n-at < need {
			return nil, fmt.Errorf("%w: command %d (%v): %d bytes left, it takes %d", ErrTruncated, i, c.Op, n-at, need)
		}
		at += CommandBytes
		if c.Op.hasReply() {
			c.Reply = be.Uint32(b[at:])
			at += 4
		}
		if c.Stat() {
			c.Flag = be.Uint32(b[at:])
			at += 4
		}
		if c.Op.carriesData() {
			c.Data = b[at : at+int(c.Length) : at+int(c.Length)]
			at += pad4(int(c.Length))
		}
		if err := c.checkShape(); err != nil {
			return nil, fmt.Errorf("%w: command %d: %v", ErrFormat, i, err)
		}
		p.Cmds = append(p.Cmds, c)
	}
	switch {
	case p.Ctrl&CtrlAckOnly != 0 && len(p.Cmds) > 0:
		return nil, fmt.Errorf("%w: ack-only with %d commands", ErrFormat, len(p.Cmds))
	case p.Ctrl&CtrlAckOnly == 0 && len(p.Cmds) == 0:
		return nil, fmt.Errorf("%w: no commands and not ack-only", ErrFormat)
	}
	return p, nil
}

// NoticeBytes is a NOTICE's data: the reason, then the failed command's request sequence
// number, its index in that packet, its opcode, and a zero byte.
const NoticeBytes = 8

// Status words a flag receives. Done is 1; a failure has the top bit set and its Reason below.
const StatusDone uint32 = 1

// Reason is why a command failed.
type Reason uint32

const (
	ReasonNone        Reason = 0
	ReasonNoTask      Reason = 1 // no task with the destination task ID on that node
	ReasonKey         Reason = 2 // the access key is not the destination space's
	ReasonRange       Reason = 3 // the address range is not mapped, or not with the access the op needs
	ReasonFIFOFull    Reason = 4 // the queue has no room for the record
	ReasonFIFOBad     Reason = 5 // the queue's header is not a queue (capacity or offsets out of range)
	ReasonUnreachable Reason = 6 // the channel to that node gave up after its retransmissions
)

func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return "none"
	case ReasonNoTask:
		return "no such task"
	case ReasonKey:
		return "wrong access key"
	case ReasonRange:
		return "address out of the space"
	case ReasonFIFOFull:
		return "FIFO full"
	case ReasonFIFOBad:
		return "not a FIFO"
	case ReasonUnreachable:
		return "node unreachable"
	}
	return fmt.Sprintf("reason %d", uint32(r))
}

// FailStatus is the status word of a failure.
func FailStatus(r Reason) uint32 { return 1<<31 | uint32(r) }

// StatusReason is the failure a status word reports (ReasonNone for StatusDone or 0).
func StatusReason(w uint32) Reason {
	if w&(1<<31) == 0 {
		return ReasonNone
	}
	return Reason(w &^ (1 << 31))
}
