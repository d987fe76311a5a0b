package mbcf

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/ether"
)

func header() Header {
	return Header{
		Dst: ether.MAC{0x02, 0, 0, 0, 0, 0x05}, Src: ether.MAC{0x02, 0, 0, 0, 0, 0x03}, SrcNode: 3,
		Seq: 0x2a, Ack: 0x17, Ctrl: CtrlAck, SrcTask: 0x11223344, SrcKey: 0xa1b2c3d4, DstTask: 0x55667788,
	}
}

// be is a big-endian word's bytes.
func be(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// requireBytes checks b's bytes at each offset, and that every byte is checked by some entry.
func requireBytes(t *testing.T, b []byte, want map[int][]byte) {
	t.Helper()
	covered := make([]bool, len(b))
	for off, w := range want {
		require.LessOrEqual(t, off+len(w), len(b), "field at %d runs past the packet's %d bytes", off, len(b))
		require.Equal(t, w, b[off:off+len(w)], "bytes %d..%d", off, off+len(w)-1)
		for i := range w {
			require.False(t, covered[off+i], "byte %d checked twice", off+i)
			covered[off+i] = true
		}
	}
	for i, c := range covered {
		require.True(t, c, "byte %d (%#02x) not checked", i, b[i])
	}
}

// The header every packet carries, bytes 0..35 (Figure 1's kernel part).
func headerBytes(length int) map[int][]byte {
	return map[int][]byte{
		0:  {0x02, 0, 0, 0, 0, 0x05}, // destination Ethernet address
		6:  {0x02, 0, 0, 0, 0, 0x03}, // source Ethernet address
		12: {0x88, 0xb5},             // packet type, not IP's
		14: {byte(length >> 8), byte(length)},
		16: be(3),                             // source physical node ID
		20: {0},                               // unused
		21: {0x2a}, 22: {0x17}, 23: {CtrlAck}, // sequence, acknowledgement, control
		24: be(0x11223344), // source task ID
		28: be(0xa1b2c3d4), // access key (the source task's)
		32: be(0x55667788), // destination task ID
	}
}

func merge(ms ...map[int][]byte) map[int][]byte {
	out := map[int][]byte{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// Figure 1: a single MBCF_WRITE. Key at 36, command at 40 (with the kernel's top bits), address
// at 44, length at 48, data from 52, padded to a word.
func TestWritePacketBytes(t *testing.T) {
	p := &Packet{Header: header(), Cmds: []Command{{Key: 0xcafef00d, Op: OpWrite, Addr: 0x0001_0040, Length: 6, Data: []byte("abcdef")}}}
	p.Kern = KernRetx
	b, err := p.Encode()
	require.NoError(t, err)
	require.Len(t, b, 60)
	requireBytes(t, b, merge(headerBytes(60), map[int][]byte{
		36: be(0xcafef00d),
		40: be(1<<31 | uint32(OpWrite)),
		44: be(0x0001_0040),
		48: be(6),
		52: []byte("abcdef"), 58: {0, 0},
	}))
	q, err := Decode(b)
	require.NoError(t, err)
	require.Equal(t, p, q)
}

// Figure 2(a): MBCF_SWAP_STAT: the reply pointer at 52, the flag pointer at 56, the words from 60.
func TestSwapStatPacketBytes(t *testing.T) {
	p := &Packet{Header: header(), Cmds: []Command{{Key: 7, Op: OpSwap, Opts: OptStat, Addr: 0x100, Length: 8, Reply: 0x2000, Flag: 0x3000,
		Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}}}
	b, err := p.Encode()
	require.NoError(t, err)
	requireBytes(t, b, merge(headerBytes(68), map[int][]byte{
		36: be(7), 40: be(OptStat | uint32(OpSwap)), 44: be(0x100), 48: be(8),
		52: be(0x2000), 56: be(0x3000), 60: {1, 2, 3, 4, 5, 6, 7, 8},
	}))
	q, err := Decode(b)
	require.NoError(t, err)
	require.Equal(t, p, q)
}

// MBCF_READ carries no data: its reply pointer is at 52 and, with _STAT, its flag at 56.
func TestReadPacketBytes(t *testing.T) {
	p := &Packet{Header: header(), Cmds: []Command{{Key: 9, Op: OpRead, Addr: 0x40, Length: 1024, Reply: 0x2000}}}
	b, err := p.Encode()
	require.NoError(t, err)
	requireBytes(t, b, merge(headerBytes(56), map[int][]byte{36: be(9), 40: be(uint32(OpRead)), 44: be(0x40), 48: be(1024), 52: be(0x2000)}))
	p.Cmds[0].Opts, p.Cmds[0].Flag = OptStat, 0x3000
	b, err = p.Encode()
	require.NoError(t, err)
	requireBytes(t, b, merge(headerBytes(60), map[int][]byte{36: be(9), 40: be(OptStat | uint32(OpRead)), 44: be(0x40), 48: be(1024), 52: be(0x2000), 56: be(0x3000)}))
	q, err := Decode(b)
	require.NoError(t, err)
	require.Equal(t, p, q)
}

// Figure 2(b): two MBCF_WRITEs to one task, of 1 and 4 bytes, combined: the second command
// starts at the word after the first's padded byte. The kernel's bits are the first command's.
func TestCombinedPacketBytes(t *testing.T) {
	p := &Packet{Header: header(), Cmds: []Command{
		{Key: 5, Op: OpWrite, Addr: 0x10, Length: 1, Data: []byte{0xee}},
		{Key: 5, Op: OpWrite, Addr: 0x20, Length: 4, Data: []byte{1, 2, 3, 4}},
	}}
	p.Kern = KernAckNow
	b, err := p.Encode()
	require.NoError(t, err)
	requireBytes(t, b, merge(headerBytes(76), map[int][]byte{
		36: be(5), 40: be(KernAckNow | uint32(OpWrite)), 44: be(0x10), 48: be(1), 52: {0xee, 0, 0, 0},
		56: be(5), 60: be(uint32(OpWrite)), 64: be(0x20), 68: be(4), 72: {1, 2, 3, 4},
	}))
	q, err := Decode(b)
	require.NoError(t, err)
	require.Equal(t, p, q)
}

// An acknowledgement on its own is the header alone.
func TestAckOnlyPacketBytes(t *testing.T) {
	h := header()
	h.Ctrl = CtrlAck | CtrlAckOnly | CtrlNak
	b, err := (&Packet{Header: h}).Encode()
	require.NoError(t, err)
	want := headerBytes(36)
	want[23] = []byte{CtrlAck | CtrlAckOnly | CtrlNak}
	requireBytes(t, b, want)
	q, err := Decode(b)
	require.NoError(t, err)
	require.Equal(t, &Packet{Header: h}, q)
	// Ethernet pads it to 60: the length field says where it ends.
	f, err := ether.Seal(b)
	require.NoError(t, err)
	pkt, err := ether.Open(f)
	require.NoError(t, err)
	require.Len(t, pkt, 60)
	q, err = Decode(pkt)
	require.NoError(t, err)
	require.Equal(t, &Packet{Header: h}, q)
}

// Every malformed packet is refused whole, with the error that says why.
func TestDecodeRefuses(t *testing.T) {
	good := func() []byte {
		p := &Packet{Header: header(), Cmds: []Command{
			{Key: 5, Op: OpWrite, Addr: 0x10, Length: 5, Data: []byte("hello")},
			{Key: 5, Op: OpSwap, Opts: OptStat, Addr: 0x20, Length: 4, Reply: 0x30, Flag: 0x40, Data: []byte{1, 2, 3, 4}},
		}}
		b, err := p.Encode()
		require.NoError(t, err)
		return b
	}
	set16 := func(off int, v uint16) func([]byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint16(b[off:], v); return b }
	}
	set32 := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint32(b[off:], v); return b }
	}
	n := len(good())
	for _, c := range []struct {
		name string
		mod  func([]byte) []byte
		err  error
	}{
		{"shorter than a header", func(b []byte) []byte { return b[:35] }, ErrTruncated},
		{"not MBCF's type", set16(OffType, 0x0800), ErrType},
		{"length field below the header", set16(OffLength, 35), ErrFormat},
		{"length field past a frame", set16(OffLength, MaxPacket+1), ErrFormat},
		{"cut short of its length field", func(b []byte) []byte { return b[:n-3] }, ErrTruncated},
		{"length field cuts a command's data", set16(OffLength, uint16(n-2)), ErrTruncated},
		{"length field cuts a command's fixed part", set16(OffLength, 36+20+8), ErrTruncated},
		{"command length past the packet", set32(48, 1000), ErrTruncated},
		{"command length absurd", set32(48, 1<<31), ErrFormat},
		{"unknown opcode", set32(40, 7), ErrFormat},
		{"undefined option", set32(40, uint32(OpWrite)|1<<9), ErrFormat},
		{"reserved bits", set32(40, uint32(OpWrite)|1<<20), ErrFormat},
		{"kernel bits in the second command", set32(64, uint32(OpSwap)|OptStat|KernRetx), ErrFormat},
		{"swap of part of a word", func(b []byte) []byte {
			p := &Packet{Header: header(), Cmds: []Command{{Op: OpSwap, Length: 4, Data: []byte{1, 2, 3, 4}}}}
			b, _ = p.Encode()
			binary.BigEndian.PutUint32(b[48:], 3)
			return b
		}, ErrFormat},
		{"zero-length write", func(b []byte) []byte {
			p := &Packet{Header: header(), Cmds: []Command{{Op: OpRead, Length: 4}}}
			b, _ = p.Encode()
			binary.BigEndian.PutUint32(b[48:], 0)
			return b
		}, ErrFormat},
		{"no commands, not ack-only", func(b []byte) []byte { binary.BigEndian.PutUint16(b[OffLength:], 36); return b[:36] }, ErrFormat},
		{"ack-only with commands", func(b []byte) []byte { b[OffCtrl] |= CtrlAckOnly; return b }, ErrFormat},
	} {
		_, err := Decode(c.mod(good()))
		require.ErrorIs(t, err, c.err, c.name)
	}
}

// Encode refuses what Decode would: a packet that cannot be sent is never built.
func TestEncodeRefuses(t *testing.T) {
	for name, p := range map[string]*Packet{
		"no commands":         {Header: header()},
		"ack-only with one":   {Header: Header{Ctrl: CtrlAckOnly}, Cmds: []Command{{Op: OpRead, Length: 4}}},
		"unknown opcode":      {Cmds: []Command{{Op: 7, Length: 1, Data: []byte{1}}}},
		"length and data":     {Cmds: []Command{{Op: OpWrite, Length: 2, Data: []byte{1}}}},
		"read with data":      {Cmds: []Command{{Op: OpRead, Length: 1, Data: []byte{1}}}},
		"undefined option":    {Cmds: []Command{{Op: OpWrite, Opts: 1 << 12, Length: 1, Data: []byte{1}}}},
		"kernel bits outside": {Header: Header{Kern: 1 << 20}, Cmds: []Command{{Op: OpWrite, Length: 1, Data: []byte{1}}}},
		"too large":           {Cmds: []Command{{Op: OpWrite, Length: MaxWriteData + 4, Data: make([]byte, MaxWriteData+4)}}},
		"status with a flag":  {Cmds: []Command{{Op: OpStatus, Opts: OptStat, Length: 4, Data: make([]byte, 4)}}},
	} {
		_, err := p.Encode()
		require.Error(t, err, name)
	}
	_, err := (&Packet{Cmds: []Command{{Op: OpWrite, Length: MaxWriteData, Data: make([]byte, MaxWriteData)}}}).Encode()
	require.NoError(t, err, "the largest write fits")
}

// FuzzDecode: Decode never panics, and whatever it accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, p := range []*Packet{
		{Header: header(), Cmds: []Command{{Key: 5, Op: OpWrite, Addr: 0x10, Length: 5, Data: []byte("hello")}}},
		{Header: header(), Cmds: []Command{{Op: OpRead, Opts: OptStat, Length: 8, Reply: 4, Flag: 8}, {Op: OpFIFO, Length: 2, Data: []byte{1, 2}}}},
		{Header: Header{Ctrl: CtrlAckOnly | CtrlAck}},
	} {
		b, err := p.Encode()
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		out, err := p.Encode()
		require.NoError(t, err)
		n := int(binary.BigEndian.Uint16(b[OffLength:]))
		if !bytes.Equal(out, b[:n]) {
			// Padding bytes are not kept: compare field by field through a second decode.
			q, err := Decode(out)
			require.NoError(t, err)
			require.Equal(t, p, q)
		}
	})
}
