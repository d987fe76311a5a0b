package rx

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// DemoConfig chooses the default co-simulation: the device (model, bridge, trace, board
// seed) and how the host programs it (LHS on or off, size and split positions).
type DemoConfig struct {
	Device device.Config
	Driver drivers.Config
}

// DemoMessage is what became of one message.
type DemoMessage struct {
	Seq       int    `json:"seq"`
	SizeField uint32 `json:"size_field"`
	Delivered int    `json:"delivered"`
	Where     string `json:"where"`
	Flags     string `json:"flags"`
	TailPtr   uint32 `json:"tail_ptr,omitempty"`
	Check     string `json:"check"` // "ok": the stored bytes equal what was sent; "-": nothing stored
}

// DemoResult is the whole run.
type DemoResult struct {
	Model    string         `json:"model"`
	LHS      bool           `json:"lhs"`
	Cycles   uint64         `json:"cycles"`
	Messages []DemoMessage  `json:"messages"`
	Counters map[string]int `json:"counters"`
}

// demoSizes are the messages the demo sends: short and long, on the LHS boundaries, one
// whose size field claims more than arrives, one whose size field is over MAX_MSG.
var demoSizes = []struct {
	delivered int
	field     uint32
}{{16, 16}, {40, 40}, {56, 56}, {57, 57}, {64, 64}, {200, 200}, {1500, 1500}, {30, 90}, {100, 70000}, {24, 24}}

// Demo sends the demo messages through the receive path and reads back what became of each,
// the way the host driver would.
func Demo(cfg DemoConfig) (DemoResult, error) {
	res := DemoResult{Model: string(cfg.Device.WithDefaults().Model), LHS: cfg.Driver.LHS, Counters: map[string]int{}}
	dev, err := device.Open(cfg.Device)
	if err != nil {
		return res, err
	}
	host, err := drivers.NewHost(dev, cfg.Driver)
	if err != nil {
		dev.Close()
		return res, err
	}
	rng := gosim.NewRand(cfg.Device.Board.Seed)
	// The size field goes where the host programmed SIZE_POS; the message number at byte 0
	// (byte 4 when the size field is at 0).
	sizePos, seqPos := host.Config().SizePos, uint32(0)
	if sizePos == 0 {
		seqPos = 4
	}
	var sent [][]byte
	for i, s := range demoSizes {
		m := make([]byte, max(s.delivered, 16))
		for j := range m {
			m[j] = byte(rng.Uint64())
		}
		binary.LittleEndian.PutUint32(m[seqPos:], uint32(i))
		binary.LittleEndian.PutUint32(m[sizePos:], s.field)
		m = m[:s.delivered]
		sent = append(sent, m)
		if err := dev.Inject(m); err != nil {
			dev.Close()
			return res, err
		}
	}
	if err := dev.RunUntilIdle(1_000_000); err != nil {
		dev.Close()
		return res, err
	}
	if cfg.Driver.LHS {
		for i, m := range sent {
			e, err := host.ReadEntry(uint32(i))
			if err != nil {
				dev.Close()
				return res, err
			}
			got, err := host.Message(e)
			if err != nil {
				dev.Close()
				return res, err
			}
			dm := DemoMessage{Seq: i, SizeField: e.Size(), Delivered: e.Len, Flags: flagNames(e.Flags)}
			switch {
			case e.Flags&hw.FlagTooLong != 0:
				dm.Where = fmt.Sprintf("LH entry %d: head only, tail dropped", i)
			case e.Split():
				dm.Where = fmt.Sprintf("LH entry %d: %d-byte head; %d-byte tail in SO-DIMM", i, len(e.Head()), e.TailLen())
				dm.TailPtr = e.TailPtr
			default:
				dm.Where = fmt.Sprintf("LH entry %d: whole", i)
			}
			dm.Check = check(got, m)
			res.Messages = append(res.Messages, dm)
			if err := host.Consume(uint32(i)); err != nil {
				dev.Close()
				return res, err
			}
		}
	} else {
		next := 0
		for {
			rm, ok, err := host.NextRingMessage()
			if err != nil {
				dev.Close()
				return res, err
			}
			if !ok {
				break
			}
			for next < len(sent) && demoSizes[next].field > 65535 {
				res.Messages = append(res.Messages, DemoMessage{Seq: next, SizeField: demoSizes[next].field,
					Delivered: len(sent[next]), Where: "dropped (too long)", Flags: "MISMATCH|TOO_LONG", Check: "-"})
				next++
			}
			m := sent[next]
			flags := ""
			if int(rm.Size) != len(m) {
				flags = "MISMATCH"
			}
			res.Messages = append(res.Messages, DemoMessage{Seq: next, SizeField: rm.Size, Delivered: len(m), Flags: flags,
				Where: fmt.Sprintf("SO-DIMM at %#x, whole", rm.Addr), TailPtr: rm.Addr, Check: check(rm.Bytes, m)})
			if err := host.ReleaseRing(rm); err != nil {
				dev.Close()
				return res, err
			}
			next++
		}
	}
	for name, addr := range map[string]uint32{"MSG_COUNT": hw.RegMsgCount, "MISMATCH_COUNT": hw.RegMismatchCount,
		"DROP_COUNT": hw.RegDropCount, "STALL_CYCLES": hw.RegStallCycles, "LH_PROD": hw.RegLHProd} {
		v, err := dev.ReadReg(addr)
		if err != nil {
			dev.Close()
			return res, err
		}
		res.Counters[name] = int(v)
	}
	res.Cycles = dev.Cycle()
	return res, dev.Close()
}

// check compares what the host read back with what was sent, over the bytes both have (a
// size field that lies leaves the rest undefined).
func check(got, sent []byte) string {
	n := min(len(got), len(sent))
	if string(got[:n]) == string(sent[:n]) {
		return "ok"
	}
	return "DIFFERS"
}

func flagNames(f uint8) string {
	s := ""
	for _, n := range []struct {
		bit  uint8
		name string
	}{{hw.FlagSplit, "SPLIT"}, {hw.FlagMismatch, "MISMATCH"}, {hw.FlagTooLong, "TOO_LONG"}} {
		if f&n.bit != 0 {
			if s != "" {
				s += "|"
			}
			s += n.name
		}
	}
	return s
}

// PrintDemo writes the demo as a table.
func PrintDemo(w io.Writer, r DemoResult) error {
	fmt.Fprintf(w, "model %s, LHS %v: %d messages in %d cycles\n", r.Model, r.LHS, len(r.Messages), r.Cycles)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("#", "size field", "delivered", "where it went", "flags", "bytes")
	for _, m := range r.Messages {
		if err := t.Append(fmt.Sprint(m.Seq), fmt.Sprint(m.SizeField), fmt.Sprint(m.Delivered), m.Where, m.Flags, m.Check); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "MSG_COUNT %d  MISMATCH_COUNT %d  DROP_COUNT %d  STALL_CYCLES %d  LH_PROD %d\n", r.Counters["MSG_COUNT"],
		r.Counters["MISMATCH_COUNT"], r.Counters["DROP_COUNT"], r.Counters["STALL_CYCLES"], r.Counters["LH_PROD"])
	return nil
}

// PrintBench writes the benchmark as a table.
func PrintBench(w io.Writer, r BenchResult) error {
	fmt.Fprintf(w, "%d messages (16..256 bytes, LHS on), seed %d: %d cycles on every path\n", r.Messages, r.Seed, r.Cgo.Cycles)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("path", "cycles/s", "messages/s", "CPU s", "wall s")
	for _, row := range []struct {
		name string
		s    Speed
	}{{"native C++ loop over Verilator", r.Native}, {"Go board, RTL through cgo", r.Cgo}, {"Go board, golden model", r.GoModel},
		{"RTL in the plugin process", r.Plugin}, {"transaction-level model", r.TLM}} {
		if err := t.Append(row.name, fmt.Sprintf("%.3g", row.s.CyclesPerS), fmt.Sprintf("%.3g", row.s.MessagesPer),
			fmt.Sprintf("%.3f", row.s.Seconds), fmt.Sprintf("%.3f", row.s.WallSeconds)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "cgo / native cycles/s: %.2f   Go model / cgo messages/s: %.2f   plugin / cgo messages/s: %.2f\n",
		r.CgoVsNative, r.GoModelVsCgo, r.PluginVsCgo)
	fmt.Fprintf(w, "transaction-level model / cgo messages/s: %.0f (its clock stops while messages are built)\n", r.TLMVsCgo)
	return nil
}
