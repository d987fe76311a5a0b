package mpi

import (
	"fmt"

	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/hw"
)

// DeviceCyclePs is the NIC's clock period: 100 MHz, DIMMnet-2's FPGA (docs/design.md).
const DeviceCyclePs = 10_000

// DefaultDeviceBase is where the NIC's 1 MB host-bus space sits in the modelled host's
// physical address space: above the paper's 512 MB of main memory. Only its being apart from
// main memory matters.
const DefaultDeviceBase = 0x8000_0000

// HostModel joins a device to the host timing model: it maps the NIC's address space into
// the CPU model (registers uncached, read window and LH buffer write-back cacheable, as
// paper 4.2 maps the LH buffer) and runs timed vector loads, whose NIC-side duration is the
// device's own cycle count.
type HostModel struct {
	CPU  *hostcpu.CPU
	Base uint64
	dev  drivers.Bus

	vec      [3]uint32 // last VEC_MEM_ADDR, VEC_WIN_OFF, VEC_LEN written
	vecValid bool
	lastDone uint64 // cycle of the last ev_vec_done pulse, when the device can be watched
	watched  bool

	// VLs counts timed vector loads; VLDeviceCycles sums their NIC-side durations (command
	// write to done), VLHostPs their host-visible durations (from the window flush and the
	// register writes to the data in a register).
	VLs            uint64
	VLDeviceCycles uint64
	VLHostPs       int64
}

// NewHostModel maps dev into cpu at base. lhCacheable chooses the LH buffer's memory type:
// write-back (paper 4.2) or uncached (an ablation).
func NewHostModel(cpu *hostcpu.CPU, dev drivers.Bus, base uint64, lhCacheable bool) (*HostModel, error) {
	m := &HostModel{CPU: cpu, Base: base, dev: dev}
	if err := MapDevice(cpu, base, lhCacheable); err != nil {
		return nil, err
	}
	if w, ok := dev.(drivers.Watcher); ok {
		m.watched = true
		w.Watch(func(cycle uint64, ev drivers.Events) {
			if ev&drivers.EvVecDone != 0 {
				m.lastDone = cycle
			}
		})
	}
	return m, nil
}

// MapDevice maps the NIC's host-bus space into cpu at base: registers and write window
// uncached, read window write-back (flushed before every VL that refills it), LH buffer
// write-back (paper 4.2) or, with lhCacheable false, uncached. A HostModel's CPU may be
// swapped for another one mapped this way (the experiment runs several host variants over one
// device).
func MapDevice(cpu *hostcpu.CPU, base uint64, lhCacheable bool) error {
	for _, r := range []hostcpu.Region{
		{Name: "nic registers", Base: base, Size: hw.ReadWindowBase, Device: true},
		{Name: "nic read window", Base: base + hw.ReadWindowBase, Size: 0x10000, Cacheable: true, Device: true},
		{Name: "nic write window", Base: base + hw.WriteWindowBase, Size: 0x10000, Device: true},
		{Name: "nic LH buffer", Base: base + hw.LHBase, Size: 0x80000, Cacheable: lhCacheable, Device: true},
	} {
		if err := cpu.Map(r); err != nil {
			return err
		}
	}
	return nil
}

// Addr is the host physical address of device bus address a.
func (m *HostModel) Addr(a uint32) uint64 { return m.Base + uint64(a) }

// ReadReg reads a register: the device answers, the host pays one uncached read. The device
// is asked first, at the time the load issues, so that on a device that keeps time with the
// host (a network node's host bus) the two latencies overlap instead of adding up.
func (m *HostModel) ReadReg(reg uint32) (uint32, error) {
	v, err := m.dev.ReadReg(reg)
	m.CPU.Load(m.Addr(reg), 4)
	return v, err
}

// WriteReg writes a register: one uncached store (the device takes it as the store issues).
func (m *HostModel) WriteReg(reg, val uint32) error {
	err := m.dev.WriteReg(reg, val)
	m.CPU.Store(m.Addr(reg), 4)
	return err
}

// VL loads n bytes of large memory at memAddr into the read window at winOff and copies them
// into dst (len(dst) <= n), timing every step on the host model:
//
//  1. flush the window lines the load will overwrite (the host may hold stale copies);
//  2. write the vector registers that changed since the last command, then VEC_CMD
//     (uncached stores);
//  3. the NIC runs the command; its duration, from the command write to done, is counted in
//     device cycles (the ev_vec_done pulse when the device shows it, else the first status
//     read that saw DONE);
//  4. the host polls VEC_STATUS with uncached reads until one sees DONE;
//  5. the host loads the data from the window (a cacheable miss: one device access per line).
//
// fieldLoads, when positive, is how many separate 4-byte loads the software makes from the
// first line instead of touching the whole range (the search loop reads three fields).
func (m *HostModel) VL(memAddr, winOff uint32, dst []byte, n uint32, fieldLoads int) error {
	cpu := m.CPU
	t0 := cpu.Now()
	win := m.Addr(hw.ReadWindowBase + winOff)
	for off := uint64(0); off < uint64(n); off += 64 {
		cpu.Flush(win + off)
	}
	regs := [3]uint32{hw.RegVecMemAddr, hw.RegVecWinOff, hw.RegVecLen}
	vals := [3]uint32{memAddr, winOff, n}
	for i := range regs {
		if m.vecValid && m.vec[i] == vals[i] {
			continue
		}
		if err := m.WriteReg(regs[i], vals[i]); err != nil {
			return err
		}
		m.vec[i] = vals[i]
	}
	m.vecValid = true
	if err := m.dev.WriteReg(hw.RegVecCmd, hw.VecOpVL); err != nil {
		return err
	}
	cpu.Store(m.Addr(hw.RegVecCmd), 4)
	cmdAt := cpu.Now()
	cmdCycle := m.dev.Cycle() - 1 // the write went out on the bus in the cycle just run
	var doneCycle uint64
	for polls := 0; ; polls++ {
		if polls > 100000 {
			return fmt.Errorf("mpi: VL at %#x still busy after %d polls", memAddr, polls)
		}
		issue := m.dev.Cycle()
		st, err := m.dev.ReadReg(hw.RegVecStatus)
		if err != nil {
			return err
		}
		if st&hw.VecBusy != 0 || st&hw.VecDone == 0 {
			continue
		}
		if st&hw.VecError != 0 {
			m.vecValid = false
			return &drivers.VecError{Cause: st >> hw.VecCauseShift & hw.VecCauseMask}
		}
		doneCycle = issue
		if m.watched && m.lastDone > cmdCycle && m.lastDone < issue {
			doneCycle = m.lastDone + 1 // DONE is readable the cycle after the pulse
		}
		break
	}
	dev := doneCycle - cmdCycle
	cpu.PollUntil(m.Addr(hw.RegVecStatus), cmdAt+int64(dev)*DeviceCyclePs)
	if fieldLoads > 0 {
		for i := 0; i < fieldLoads; i++ {
			cpu.Load(win+uint64(4*i), 4)
		}
	} else {
		cpu.Load(win, int(n))
	}
	if len(dst) > 0 {
		buf := make([]byte, (len(dst)+3)&^3)
		if err := m.dev.ReadBlock(hw.ReadWindowBase+winOff, buf); err != nil {
			return err
		}
		copy(dst, buf)
	}
	m.VLs++
	m.VLDeviceCycles += dev
	m.VLHostPs += cpu.Now() - t0
	return nil
}

// FetchRing reads n bytes of the tail ring from ring address addr (following the wrap at the
// ring's end) through the read window, a window at a time, timed.
func (m *HostModel) FetchRing(cfg drivers.Config, winBytes int, addr uint32, n int) ([]byte, error) {
	out := make([]byte, n)
	end := cfg.TailBase + cfg.TailSize
	got := 0
	for got < n {
		if addr >= end {
			addr = cfg.TailBase + (addr - end)
		}
		k := min(n-got, winBytes, int(end-addr))
		if err := m.VL(addr, 0, out[got:got+k], uint32((k+15)&^15), 0); err != nil {
			return nil, err
		}
		got += k
		addr += uint32(k)
	}
	return out, nil
}
