package ib

import (
	"errors"
	"fmt"
	"math"

	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// Params is every timing and size knob of the HCA, its PCI-X bus and the InfiniBand link.
// What the user chose lives here; what a run changed lives in the HCA and its QPs. Every
// field says where its value comes from: a source, an assumption (no source gives it), or
// calibrated (derived once from one named paper figure, never from the result it predicts).
type Params struct {
	// Chipset names the host (Table 2 of Sumimoto et al.'s PM/InfiniBand-FJ paper); it is reported, and the Chipset
	// constructors set it. The model has no bus figure of its own per chipset (docs/ib.md).
	Chipset string
	// CPUGHz is the host CPU clock. source: the PM/InfiniBand-FJ paper's Table 2 (Xeon 2.8 GHz on GC-LE,
	// 3.06 GHz on E7501). The model charges no host CPU time (docs/ib.md), so it is reported
	// only.
	CPUGHz float64

	// PCIXCycle is one PCI-X clock. source: the PM/InfiniBand-FJ paper's Table 2 and §5.1 (64-bit 133 MHz PCI-X);
	// PCI-X 1.0 moves 8 bytes a cycle: 133 MHz x 8 B = 1,064 MB/s.
	PCIXCycle netsim.Time
	// PCIXBytes is the bus width in bytes. source: PCI-X 1.0 (64 bit).
	PCIXBytes int
	// PCIXRequestCycles is a transaction's address and attribute phases before data.
	// source: PCI-X 1.0 (one address phase, one attribute phase).
	PCIXRequestCycles int
	// DMAReadDelayCycles is how long the host bridge takes to answer a DMA read with its first
	// data, in PCI-X cycles (a split completion). source: Myricom, "Bus Performance of
	// Myrinet-2000/PCI-X NICs" (www.myri.com/scs/performance/PCIX_motherboards/): "the host will
	// typically delay the beginning of DMA-read transfers for ~60 PCI-X clock cycles".
	DMAReadDelayCycles int
	// DMAReadMaxBytes is the largest DMA read the HCA issues at once. source: PCI-X 1.0, the
	// largest byte count of a memory read (4 KB), which Myricom's page quotes as "the maximal
	// DMA-transfer size for PCI-X". The HCA has one DMA read outstanding at a time:
	// assumption (Sumimoto et al.'s PM/InfiniBand-FJ paper gives none).
	DMAReadMaxBytes int

	// HCACycle is one clock of the HCA's SQ, RQ and scheduler processors. source: Sumimoto et al.'s PM/InfiniBand-FJ paper
	// §5.1 (266 MHz multithreaded processors).
	HCACycle netsim.Time
	// SQCycles is the SQ processor's firmware time per send work request, between fetching
	// the WQE and handing the packet to the link. RQCycles is the RQ processor's per inbound
	// message (its first packet) and AckCycles per inbound ACK or NAK. calibrated: Sumimoto et al.'s PM/InfiniBand-FJ paper
	// Table 4 gives 15.6 µs for the GC-LE round trip with DoWQE; everything else on that path
	// is a cited or assumed figure above, and the remainder is split evenly between the SQ
	// and RQ processors (the PM/InfiniBand-FJ paper's §7.1 attributes the gap to PM/Myrinet to "HCA 上での
	// InfiniBand プロトコル処理"). AckCycles = RQCycles: assumption (an ACK is an inbound
	// packet's header processing like a message's).
	SQCycles, RQCycles, AckCycles int
	// ContinueCycles is the RQ processor's time for a message's second and later packets.
	// assumption: 0 (the data mover streams them; Sumimoto et al.'s PM/InfiniBand-FJ paper gives nothing).
	ContinueCycles int

	// LinkGBps is the InfiniBand 4x data rate, GB/s. source: the PM/InfiniBand-FJ paper's §3 and Table 2 (8 Gb/s
	// of data: 10 Gb/s signalling, 8b/10b).
	LinkGBps float64
	// SwitchLatency is a switch's port-to-port latency. source: the NSIM-ACE paper's §5.1, "140 ns or
	// less" for an InfiniBand switch (a later generation; Sumimoto et al.'s PM/InfiniBand-FJ paper gives none for RedSwitch
	// or InfiniCon). Split as netsim/fabric's 3 x 4 ns pipeline and 128 ns crossing.
	SwitchLatency netsim.Time
	// CableLatency is a cable's flight time. source: the NSIM-ACE paper's Table 1 (0.6 ns).
	CableLatency netsim.Time
	// SwitchBufferBytes is a switch input buffer (and an HCA's receive buffer for packets
	// waiting for the RQ processor). assumption: 8 KB, room for three MTU packets with their
	// headers, so a stream of them is never held up by credits on an idle link.
	SwitchBufferBytes int
	// MTU is the largest payload of one packet. assumption: 2048 bytes (InfiniBand allows
	// 256..4096; Sumimoto et al.'s PM/InfiniBand-FJ paper does not say).
	MTU int

	// WQEBytes is a work queue element; InlineBytes how much of it carries a DoWQE message.
	// source: the PM/InfiniBand-FJ paper's §6 ("WQE 64 バイトのうち、48 バイト").
	WQEBytes, InlineBytes int
	// CQEBytes is a completion queue entry. assumption: 32 bytes (Sumimoto et al.'s PM/InfiniBand-FJ paper gives none).
	CQEBytes int
	// MaxMessage is PM's largest message and each receive buffer's size. source: the PM/InfiniBand-FJ paper's §5.4
	// (an MTU of 8 KB or more for 1 GB/s-class networks).
	MaxMessage int
	// PollRead is how long a host polling its CQ takes to see a CQE the HCA has written: one
	// main-memory read after the DMA invalidated its cache line. source: the LHS paper's §5.1.4 via
	// BRIEF.md (main memory ~100 ns).
	PollRead netsim.Time

	// RNRTimer is how long a requester waits after an RNR NAK before it sends again.
	// source: InfiniBand Architecture Specification vol. 1, the RNR NAK timer encoding
	// (code 1 = 0.01 ms, the shortest).
	RNRTimer netsim.Time
	// RNRRetry is how many RNR retries a request gets; 7 means without limit. source: IBA
	// vol. 1 (rnr_retry 7 = infinite).
	RNRRetry int

	// CommandCycles is the scheduler processor's firmware time for one command (stop,
	// resume, save, restore; one QP or a range). assumption: SQCycles, a command costing the
	// firmware what a message does (Sumimoto et al.'s PM/InfiniBand-FJ paper gives no figure).
	CommandCycles int
	// QPCommandCycles is the firmware time per QP inside a command (its state change, or
	// the walk of its context). assumption: 1/10 of CommandCycles.
	QPCommandCycles int
	// StablePoll is how often a node checks, after a stop, whether every QP is stable
	// (pmSendStable). assumption: 1 µs.
	StablePoll netsim.Time
	// WaitLimit bounds every wait: a host waiting on its CQ, a checkpoint waiting for the
	// network to become stable. assumption: 100 ms simulated.
	WaitLimit netsim.Time
}

// InfiniBand header sizes, bytes. source: IBA vol. 1 ch. 5 and 9: local route header 8,
// base transport header 12, RDMA extended header 16, ACK extended header 4, invariant CRC 4,
// variant CRC 2.
const (
	lrhBytes  = 8
	bthBytes  = 12
	rethBytes = 16
	aethBytes = 4
	icrcBytes = 4
	vcrcBytes = 2
	// headerBytes is every packet's framing; a first RDMA write packet adds rethBytes, a
	// response aethBytes.
	headerBytes = lrhBytes + bthBytes + icrcBytes + vcrcBytes
)

// Calibration: the firmware cycles per message that make the GC-LE round trip with DoWQE
// 15.6 µs (the PM/InfiniBand-FJ paper's Table 4). TestCalibration re-derives them from the model.
const calibratedCycles = 900

// GCLE is the PM/InfiniBand-FJ paper's self-made cluster: dual Xeon 2.8 GHz, ServerWorks GC-LE, PCI-X 133.
func GCLE() Params {
	return Params{
		Chipset:            "gc-le",
		CPUGHz:             2.8,
		PCIXCycle:          netsim.NS(1000.0 / 133),
		PCIXBytes:          8,
		PCIXRequestCycles:  2,
		DMAReadDelayCycles: 60,
		DMAReadMaxBytes:    4096,
		HCACycle:           netsim.NS(1000.0 / 266),
		SQCycles:           calibratedCycles,
		RQCycles:           calibratedCycles,
		AckCycles:          calibratedCycles,
		ContinueCycles:     0,
		LinkGBps:           1.0,
		SwitchLatency:      140 * netsim.Nanosecond,
		CableLatency:       netsim.NS(0.6),
		SwitchBufferBytes:  8192,
		MTU:                2048,
		WQEBytes:           64,
		InlineBytes:        48,
		CQEBytes:           32,
		MaxMessage:         8192,
		PollRead:           100 * netsim.Nanosecond,
		RNRTimer:           10 * netsim.Microsecond,
		RNRRetry:           7,
		CommandCycles:      calibratedCycles,
		QPCommandCycles:    calibratedCycles / 10,
		StablePoll:         netsim.Microsecond,
		WaitLimit:          100 * netsim.Millisecond,
	}
}

// E7501 is the PM/InfiniBand-FJ paper's Fujitsu PRIMERGY RX200 cluster: dual Xeon 3.06 GHz, Intel E7501,
// PCI-X 133. No source gives this chipset a bus figure apart from GC-LE's, so it differs
// only in its name and CPU clock (docs/ib.md says what that leaves unexplained).
func E7501() Params {
	p := GCLE()
	p.Chipset = "e7501"
	p.CPUGHz = 3.06
	return p
}

// ParseChipset returns the named chipset's parameters.
func ParseChipset(name string) (Params, error) {
	switch name {
	case "gc-le", "gcle", "gc_le":
		return GCLE(), nil
	case "e7501":
		return E7501(), nil
	}
	return Params{}, fmt.Errorf("unknown chipset %q (want gc-le or e7501)", name)
}

// ErrParams is wrapped by Validate's errors.
var ErrParams = errors.New("bad InfiniBand parameters")

// Validate reports what cannot work.
func (p Params) Validate() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if p.PCIXCycle <= 0 || p.HCACycle <= 0 {
		bad("clocks must be positive (PCI-X %v, HCA %v)", p.PCIXCycle, p.HCACycle)
	}
	if p.PCIXBytes <= 0 {
		bad("PCI-X width %d bytes", p.PCIXBytes)
	}
	if p.PCIXRequestCycles < 0 || p.DMAReadDelayCycles < 0 || p.SQCycles < 0 || p.RQCycles < 0 ||
		p.AckCycles < 0 || p.ContinueCycles < 0 || p.CommandCycles < 0 || p.QPCommandCycles < 0 {
		bad("negative cycle count")
	}
	if p.DMAReadMaxBytes < p.PCIXBytes {
		bad("DMA read size %d bytes: want at least the bus width", p.DMAReadMaxBytes)
	}
	if !(p.LinkGBps > 0) || math.IsInf(p.LinkGBps, 0) {
		bad("link rate %v GB/s", p.LinkGBps)
	}
	if p.SwitchLatency < 12*netsim.Nanosecond {
		bad("switch latency %v: want at least the 12 ns router pipeline", p.SwitchLatency)
	}
	if p.CableLatency < 0 {
		bad("cable latency %v", p.CableLatency)
	}
	if p.MTU < 256 || p.MTU > 4096 {
		bad("MTU %d: InfiniBand allows 256..4096", p.MTU)
	}
	if p.SwitchBufferBytes < p.MTU+headerBytes+rethBytes {
		bad("switch buffer %d bytes: want room for an MTU packet (%d)", p.SwitchBufferBytes, p.MTU+headerBytes+rethBytes)
	}
	if p.WQEBytes != 64 || p.InlineBytes < 0 || p.InlineBytes > p.WQEBytes-16 {
		bad("WQE %d bytes with %d inline: the layout is 16 bytes of control and up to 48 of data", p.WQEBytes, p.InlineBytes)
	}
	if p.CQEBytes != 32 {
		bad("CQE %d bytes: the layout is 32", p.CQEBytes)
	}
	if p.MaxMessage < 1 || p.MaxMessage > 1<<30 {
		bad("largest message %d bytes", p.MaxMessage)
	}
	if p.PollRead < 0 || p.RNRTimer <= 0 || p.StablePoll <= 0 || p.WaitLimit <= 0 {
		bad("times: poll read %v, RNR timer %v, stable poll %v, wait limit %v", p.PollRead, p.RNRTimer, p.StablePoll, p.WaitLimit)
	}
	if p.RNRRetry < 0 || p.RNRRetry > 7 {
		bad("RNR retry %d: IBA encodes 0..7 (7: without limit)", p.RNRRetry)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrParams, errors.Join(errs...))
	}
	return nil
}

// pcix is n PCI-X cycles.
func (p *Params) pcix(n int) netsim.Time { return netsim.Time(n) * p.PCIXCycle }

// hca is n HCA processor cycles.
func (p *Params) hca(n int) netsim.Time { return netsim.Time(n) * p.HCACycle }

// dataCycles is how many bus cycles n bytes take.
func (p *Params) dataCycles(n int) int { return (n + p.PCIXBytes - 1) / p.PCIXBytes }

// FabricConfig is the InfiniBand subnet as netsim/fabric models it: 1-byte flits at the link
// rate (so a packet serializes to the byte), one virtual lane, the switch latency as seed
// 003's pipeline and crossing, and oldest-first arbitration. One virtual lane keeps every
// connection's packets in order, as InfiniBand's deterministic routes within a lane do.
// Oldest-first arbitration (assumption; Sumimoto et al.'s PM/InfiniBand-FJ paper says nothing of its switches' arbiters)
// leaves no state in an idle switch, so a network restored from a checkpoint behaves as the
// one that was never stopped (docs/ib.md).
func (p *Params) FabricConfig() fabric.Config {
	stage := 4 * netsim.Nanosecond
	buf := p.SwitchBufferBytes
	return fabric.Config{
		ClockPeriod:      netsim.Nanosecond,
		FlitBytes:        1,
		LinkBandwidth:    p.LinkGBps,
		SwitchBandwidth:  p.LinkGBps,
		RoutingDelay:     stage,
		VCAllocDelay:     stage,
		SwitchAllocDelay: stage,
		SwitchLatency:    p.SwitchLatency - 3*stage,
		CableLatency:     p.CableLatency,
		VCs:              1,
		BufferFlits:      buf,
		EjectBufferFlits: buf,
		MaxPacketBytes:   p.MTU + headerBytes + rethBytes,
		Arbiter:          fabric.OldestFirst,
		InOrder:          true,
	}
}
