// Package mbcf is lhsim mbcf: the MBCF paper's Tables 1 to 4 on netsim/mbcf.
package mbcf

// lhsim mbcf: the basic performance of MBCF in Matsumoto and Hiraki's paper (Tables 1..4: round trips of WRITE, READ
// and SWAP over 100BASE-TX and 10BASE-T, the send system call's cost, the peak bandwidth),
// simulated by netsim/mbcf on netsim/ether, beside the paper's figures.

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/ether"
	"github.com/lhsim/lhsim/netsim/mbcf"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// The results cmd/lhsim prints (and draws).
var (
	_ experiment.Figure = (*Result)(nil)
)

// Config is what the user chose.
type Config struct {
	Networks []string // "100basetx", "10baset"
	// Sizes are the round trips' and the send overhead's data sizes; BandwidthSizes the peak
	// bandwidth's.
	Sizes, BandwidthSizes []int
	Iterations            int // round trips averaged
	Writes, Group         int // writes per bandwidth run, and the flag every Group writes
	GroupsInFlight        int // 1: wait for each group's flag (the seed's plain reading)
	// TxRing, when not 0, is every adapter's transmit ring (mbcf.Adapter.TxRing): 1 sends one
	// frame at a time (the presets' reading), more lets the adapter take the next frame as soon
	// as the last has left.
	TxRing int
	// TimerRead is added to the figures the seed measured with its software timer (round
	// trips, send overhead): 1.2 µs (§4.1). 0 reports the simulated times alone.
	TimerRead netsim.Time
	Faults    ether.Faults // a lossy link for every run (the zero value: none)
	Seed      uint64       // the hub's backoff
	// Timeline, when set, records every measurement's run, each a machine of its own
	// (docs/timeline.md).
	Timeline *timeline.Writer `json:"-"`
	// Progress, when set, is told after each measurement (a round trip, a bandwidth, a
	// send cost: done of total).
	Progress *experiment.Progress `json:"-"`
	// noSend leaves the send system call out: a part (Parts) that is not the first network.
	noSend bool
	part   bool // a part of Parts: its result carries its machines (Result.Part)
}

// Default is the seed's set of measurements.
func Default() Config {
	return Config{
		Networks:       mbcf.Networks(),
		Sizes:          []int{4, 16, 64, 256, 1024},
		BandwidthSizes: []int{4, 16, 64, 256, 1024, 1408},
		Iterations:     10,
		Writes:         320,
		Group:          16,
		GroupsInFlight: 1,
		TimerRead:      mbcf.DefaultHost().TimerRead,
		Seed:           1,
	}
}

// The paper's figures (the MBCF paper's §4.1), by network, command and size.
var (
	paperRTT = map[string]map[string]map[int]float64{
		"100basetx": { // Table 1
			"write": {4: 51, 16: 54, 64: 60.5, 256: 88, 1024: 200},
			"read":  {4: 51, 16: 54.5, 64: 61, 256: 88, 1024: 200.5},
			"swap":  {4: 51.5, 16: 58, 64: 71.5, 256: 125.5, 1024: 351},
		},
		"10baset": { // Table 2
			"write": {4: 213, 1024: 1080},
			"read":  {4: 228, 1024: 1090},
			"swap":  {4: 229, 1024: 1930},
		},
	}
	paperSend = map[int]float64{4: 5, 16: 5.5, 64: 6, 256: 8.5, 1024: 20} // Table 3
	paperPeak = map[string]map[int]float64{                               // Table 4
		"100basetx": {4: 0.29, 16: 1.06, 64: 4.03, 256: 8.28, 1024: 10.86, 1408: 11.24},
		"10baset":   {4: 0.04, 16: 0.17, 64: 0.48, 256: 0.89, 1024: 1.13, 1408: 1.17},
	}
	// calibrated are the cells the adapters were calibrated from (mbcf.FastEthernet,
	// mbcf.Ethernet10): inputs, not predictions.
	calibrated = map[string]string{
		"100basetx/write/4":    "the adapter's time per frame, from §4.2's 50.0 µs round trip",
		"100basetx/write/1024": "the receive DMA, from Table 1's WRITE slope (1,024 B against 4 B)",
		"10baset/write/4":      "the adapter's time per frame, from this cell",
	}
	mbcfOps = []struct {
		name string
		op   mbcf.Opcode
	}{{"write", mbcf.OpWrite}, {"read", mbcf.OpRead}, {"swap", mbcf.OpSwap}}
)

// Result is the JSON the issue specifies (sizes as strings): round trips and send overhead
// as the seed measured them (simulated + TimerRead), peak bandwidth in 10^6 bytes a second.
type Result struct {
	RTTUs          map[string]map[string]map[string]float64 `json:"rtt_us"`
	SendOverheadUs map[string]float64                       `json:"send_overhead_us"`
	PeakMBs        map[string]map[string]float64            `json:"peak_mb_s"`

	// Part, on a part's result only, carries what the table also shows (the machines, their
	// counters), so that a part read back from JSON (a Slurm array task's) merges as here.
	Part *PartState `json:"part,omitempty"`

	cfg      Config
	machines map[string]mbcf.Config
	counters map[string]mbcf.NodeStats // the bandwidth runs' protocol counters, summed, by network
	hub      map[string]ether.Stats
}

// cellFaults is the lossy link of one table cell (network, operation, size): its own stream
// of the run's one seed (PCG's stream selector is the cell's name hashed), so that each cell
// loses its own frames instead of every cell the same ones, and a cell's figure does not
// depend on which other cells run.
func cellFaults(f ether.Faults, network, op string, size int) ether.Faults {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", network, op, size)
	f.Seed = rand.New(rand.NewPCG(f.Seed, h.Sum64())).Uint64()
	return f
}

// The largest data sizes: what one SWAP_STAT packet holds, and what a WRITE with a flag
// carries.
const (
	MaxSwapData  = mbcf.MaxSwapData
	MaxReplyData = mbcf.MaxReplyData
)

// Validate refuses, before any work, what the experiment cannot run (an
// experiment.InputError), naming the flags that chose it.
func (cfg Config) Validate() error {
	if len(cfg.Networks) == 0 {
		return experiment.Refuse("--network: name at least one network")
	}
	for _, nw := range cfg.Networks {
		if _, err := mbcf.ForNetwork(nw); err != nil {
			return experiment.Refuse("--network: %w", err)
		}
	}
	for _, l := range []struct {
		flag  string
		sizes []int
		most  int
	}{{"sizes", cfg.Sizes, MaxSwapData}, {"bandwidth-sizes", cfg.BandwidthSizes, MaxReplyData}} {
		for _, n := range l.sizes {
			if n < 1 || n > l.most {
				return experiment.Refuse("--%s: %d: want whole numbers of bytes from 1 to %d", l.flag, n, l.most)
			}
		}
	}
	if cfg.Writes < cfg.Group || cfg.Writes%cfg.Group != 0 {
		return experiment.Refuse("--writes %d, --group %d: want a whole number of groups of at least one write", cfg.Writes, cfg.Group)
	}
	return experiment.Input(cfg.Faults.Validate())
}

// Run makes the measurements.
func Run(cfg Config) (*Result, error) {
	if cfg.Iterations < 1 || cfg.Group < 1 || cfg.Writes < cfg.Group || cfg.Writes%cfg.Group != 0 || cfg.GroupsInFlight < 1 {
		return nil, fmt.Errorf("mbcf: %d iterations, %d writes in groups of %d, %d in flight: want >= 1, whole groups", cfg.Iterations, cfg.Writes, cfg.Group, cfg.GroupsInFlight)
	}
	if err := cfg.Faults.Validate(); err != nil {
		return nil, err
	}
	res := &Result{RTTUs: map[string]map[string]map[string]float64{}, SendOverheadUs: map[string]float64{},
		PeakMBs: map[string]map[string]float64{}, cfg: cfg, machines: map[string]mbcf.Config{},
		counters: map[string]mbcf.NodeStats{}, hub: map[string]ether.Stats{}}
	timer := cfg.TimerRead.Microseconds()
	cfg.Progress.Expect(int64(cfg.Measurements()))
	step := func() { cfg.Progress.Step(1, "") }
	// traced is m recording its next run as the next machine of the timeline, named name.
	machines := 0
	traced := func(m mbcf.Config, name string) mbcf.Config {
		if cfg.Timeline != nil {
			k := machines
			machines++
			m.Trace = func(nodes int) mbcf.Tracer { return newTracer(cfg.Timeline, k, nodes, name) }
		}
		return m
	}
	for _, nw := range cfg.Networks {
		m, err := mbcf.ForNetwork(nw)
		if err != nil {
			return nil, err
		}
		m.Seed = cfg.Seed
		if cfg.TxRing > 0 {
			m.Adapter.TxRing = cfg.TxRing
		}
		res.machines[nw] = m
		res.RTTUs[nw] = map[string]map[string]float64{}
		for _, o := range mbcfOps {
			res.RTTUs[nw][o.name] = map[string]float64{}
			for _, n := range cfg.Sizes {
				if o.op == mbcf.OpSwap && n%4 != 0 {
					continue
				}
				rtt, err := mbcf.RoundTrip(traced(m, fmt.Sprintf("%s %s %d B round trip", nw, o.name, n)), o.op, n, cfg.Iterations, cellFaults(cfg.Faults, nw, o.name, n))
				if err != nil {
					return nil, fmt.Errorf("%s %s %d bytes: %w", nw, o.name, n, err)
				}
				res.RTTUs[nw][o.name][strconv.Itoa(n)] = rtt.Microseconds() + timer
				step()
			}
		}
		res.PeakMBs[nw] = map[string]float64{}
		var sum mbcf.NodeStats
		var hs ether.Stats
		for _, n := range cfg.BandwidthSizes {
			s, err := mbcf.Stream(traced(m, fmt.Sprintf("%s %d B bandwidth", nw, n)), n, cfg.Writes, cfg.Group, cfg.GroupsInFlight, cellFaults(cfg.Faults, nw, "bandwidth", n))
			if err != nil {
				return nil, fmt.Errorf("%s bandwidth %d bytes: %w", nw, n, err)
			}
			res.PeakMBs[nw][strconv.Itoa(n)] = s.MBps()
			step()
			sum.Sent += s.Stats.Sent
			sum.Retransmitted += s.Stats.Retransmitted
			sum.Duplicates += s.Stats.Duplicates
			sum.OutOfOrder += s.Stats.OutOfOrder
			sum.CRCErrors += s.Stats.CRCErrors
			sum.AcksSent += s.Stats.AcksSent
			sum.NaksSent += s.Stats.NaksSent
			sum.Timeouts += s.Stats.Timeouts
			sum.Applied += s.Stats.Applied
			hs.Frames += s.Hub.Frames
			hs.Collisions += s.Hub.Collisions
			hs.FaultDrops += s.Hub.FaultDrops
			hs.FaultDuplicates += s.Hub.FaultDuplicates
			hs.FaultReorders += s.Hub.FaultReorders
			hs.FaultCorrupts += s.Hub.FaultCorrupts
		}
		res.counters[nw], res.hub[nw] = sum, hs
	}
	// The send system call is the same on both networks (§4.1); it is measured on the first.
	if len(cfg.Networks) > 0 && !cfg.noSend {
		for _, n := range cfg.Sizes {
			d, err := mbcf.SendCost(traced(res.machines[cfg.Networks[0]], fmt.Sprintf("%s %d B send", cfg.Networks[0], n)), n)
			if err != nil {
				return nil, err
			}
			res.SendOverheadUs[strconv.Itoa(n)] = d.Microseconds() + timer
			step()
		}
	}
	if cfg.part {
		res.Part = &PartState{Machines: res.machines, Counters: res.counters, Hub: res.hub}
	}
	return res, nil
}

// Measurements is how many measurements Run makes (Progress's total).
func (cfg Config) Measurements() int {
	total := 0
	if !cfg.noSend {
		total = len(cfg.Sizes)
	}
	for range cfg.Networks {
		for _, o := range mbcfOps {
			for _, n := range cfg.Sizes {
				if o.op != mbcf.OpSwap || n%4 == 0 {
					total++
				}
			}
		}
		total += len(cfg.BandwidthSizes)
	}
	return total
}

// Parts are the measurements by network (the send system call with the first): each
// builds its own machines, so they may run at once (lhsim mbcf --jobs).
func (cfg Config) Parts() []experiment.Part[Config] {
	var out []experiment.Part[Config]
	for i, nw := range cfg.Networks {
		c := cfg
		c.Networks, c.noSend, c.part = []string{nw}, i > 0, true
		out = append(out, experiment.Part[Config]{Label: nw, Config: c})
	}
	return out
}

// PartState is what a part's result carries besides the tables' figures (Result.Part).
type PartState struct {
	Machines map[string]mbcf.Config    `json:"machines"`
	Counters map[string]mbcf.NodeStats `json:"counters"`
	Hub      map[string]ether.Stats    `json:"hub"`
}

// Merge puts the parts' results (in Parts order) together into what Run(cfg) gives.
func (cfg Config) Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("mbcf: no parts to merge")
	}
	res := &Result{RTTUs: map[string]map[string]map[string]float64{}, SendOverheadUs: parts[0].SendOverheadUs,
		PeakMBs: map[string]map[string]float64{}, cfg: cfg, machines: map[string]mbcf.Config{},
		counters: map[string]mbcf.NodeStats{}, hub: map[string]ether.Stats{}}
	for _, p := range parts {
		if s := p.Part; s != nil { // read back from JSON, a part has its machines here alone
			p.machines, p.counters, p.hub = s.Machines, s.Counters, s.Hub
		}
		maps.Copy(res.RTTUs, p.RTTUs)
		maps.Copy(res.PeakMBs, p.PeakMBs)
		maps.Copy(res.machines, p.machines)
		maps.Copy(res.counters, p.counters)
		maps.Copy(res.hub, p.hub)
	}
	return res, nil
}

// JobMemory is what one part may take: two nodes and a hub, a few MiB (measured: the whole
// command's resident size is that of the process alone, docs/performance.md).
func (cfg Config) JobMemory() int64 { return 8 << 20 }

// cell is "simulated / paper (difference)", or the simulated figure alone.
func cell(sim float64, paper float64, ok bool, prec int) string {
	if !ok {
		return fmt.Sprintf("%.*f / –", prec, sim)
	}
	return fmt.Sprintf("%.*f / %g (%+.1f%%)", prec, sim, paper, 100*(sim/paper-1))
}

// tally counts the cells within ±15 % of the paper, calibration cells apart.
type tally struct {
	in, total int
	out       []string
}

func (t *tally) add(name string, sim, paper float64) {
	t.total++
	if math.Abs(sim/paper-1) <= 0.15 {
		t.in++
	} else {
		t.out = append(t.out, fmt.Sprintf("%s %+.1f%%", name, 100*(sim/paper-1)))
	}
}

func (t tally) String() string {
	s := fmt.Sprintf("%d of %d within ±15 %%", t.in, t.total)
	if len(t.out) > 0 {
		s += " (outside: " + strings.Join(t.out, ", ") + ")"
	}
	return s
}

func newMBCFTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

// WriteTable prints the four tables beside the paper's.
func (r *Result) WriteTable(w io.Writer) error {
	timer := r.cfg.TimerRead.Microseconds()
	fmt.Fprintf(w, "MBCF basic performance (Matsumoto and Hiraki's MBCF paper §4.1): simulated / paper (difference, derived). Round trips and send\n"+
		"overhead include the %.1f µs the seed's software timer adds (§4.1, an input); * marks a calibration cell (an input).\n", timer)
	lossy := r.cfg.Faults.Lossy()
	if lossy {
		f := r.cfg.Faults
		fmt.Fprintf(w, "On a lossy link (drop %g, duplicate %g, reorder %g, corrupt %g, seed %d): the paper's figures are for a clean one.\n",
			f.Drop, f.Duplicate, f.Reorder, f.Corrupt, f.Seed)
	}
	tallies := map[string]*tally{}
	for _, nw := range r.cfg.Networks {
		title := "Table 1: round trip over 100BASE-TX, µs"
		if nw == "10baset" {
			title = "Table 2: round trip over 10BASE-T, µs"
		}
		fmt.Fprintf(w, "\n%s (simulated)\n", title)
		t := newMBCFTable(w)
		t.Header("bytes", "MBCF_WRITE", "MBCF_READ", "MBCF_SWAP")
		tl := &tally{}
		tallies[nw] = tl
		for _, n := range r.cfg.Sizes {
			row := []any{strconv.Itoa(n)}
			for _, o := range mbcfOps {
				sim, ok := r.RTTUs[nw][o.name][strconv.Itoa(n)]
				if !ok {
					row = append(row, "–")
					continue
				}
				paper, pok := paperRTT[nw][o.name][n]
				c := cell(sim, paper, pok, 2)
				key := fmt.Sprintf("%s/%s/%d", nw, o.name, n)
				if _, cal := calibrated[key]; cal {
					c += " *"
				} else if pok {
					tl.add(fmt.Sprintf("%s %d B", strings.ToUpper(o.name), n), sim, paper)
				}
				row = append(row, c)
			}
			if err := t.Append(row...); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if len(r.SendOverheadUs) > 0 {
		fmt.Fprintln(w, "\nTable 3: send system call, µs (input: the least-squares line through Table 3 less the timer, then the timer again)")
		t := newMBCFTable(w)
		t.Header("bytes", "send overhead")
		for _, n := range r.cfg.Sizes {
			paper, ok := paperSend[n]
			if err := t.Append(strconv.Itoa(n), cell(r.SendOverheadUs[strconv.Itoa(n)], paper, ok, 2)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	ring := "one frame at a time in each adapter"
	if r.cfg.TxRing > 1 {
		ring = fmt.Sprintf("a transmit ring of %d in each adapter", r.cfg.TxRing)
	}
	fmt.Fprintf(w, "\nTable 4: peak bandwidth, MB/s (simulated: %d MBCF_WRITEs, a flag every %d, %d group(s) in flight, %s)\n",
		r.cfg.Writes, r.cfg.Group, r.cfg.GroupsInFlight, ring)
	t := newMBCFTable(w)
	header := []any{"bytes"}
	for _, nw := range r.cfg.Networks {
		header = append(header, nw)
	}
	t.Header(header...)
	peak := map[string]*tally{}
	for _, nw := range r.cfg.Networks {
		peak[nw] = &tally{}
	}
	for _, n := range r.cfg.BandwidthSizes {
		row := []any{strconv.Itoa(n)}
		for _, nw := range r.cfg.Networks {
			sim := r.PeakMBs[nw][strconv.Itoa(n)]
			paper, ok := paperPeak[nw][n]
			row = append(row, cell(sim, paper, ok, 3))
			if ok {
				peak[nw].add(fmt.Sprintf("%d B", n), sim, paper)
			}
		}
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, nw := range r.cfg.Networks {
		m := r.machines[nw]
		a := m.Adapter
		dma := "receives at the wire's pace"
		if a.RxDMAByte > 0 {
			dma = fmt.Sprintf("receive DMA %.1f ns/byte (%.1f MB/s, store-and-forward)", a.RxDMAByte.Nanoseconds(), 1000/a.RxDMAByte.Nanoseconds())
		}
		fmt.Fprintf(w, "%s: adapter %.3f µs at each of hand-over, receive and transmit-complete; %s (calibrated: inputs)\n",
			nw, a.TxStart.Microseconds(), dma)
		if !lossy && tallies[nw].total+peak[nw].total > 0 {
			fmt.Fprintf(w, "%s: round trips %s; peak bandwidth %s\n", nw, tallies[nw], peak[nw])
		}
		if lossy || r.hub[nw].Collisions > 0 {
			c, h := r.counters[nw], r.hub[nw]
			fmt.Fprintf(w, "%s bandwidth runs: %d commands applied; %d retransmitted (%d timeouts, %d NAKs), %d duplicates and %d out-of-order dropped, %d bad FCS; link: %d dropped, %d duplicated, %d reordered, %d corrupted; %d collisions\n",
				nw, c.Applied, c.Retransmitted, c.Timeouts, c.NaksSent, c.Duplicates, c.OutOfOrder, c.CRCErrors,
				h.FaultDrops, h.FaultDuplicates, h.FaultReorders, h.FaultCorrupts, h.Collisions)
		}
	}
	return nil
}

// WritePlot draws the round trips against size (simulated lines, the paper's points) and the
// peak bandwidth against size, side by side.
func (r *Result) WritePlot(file string) error {
	if err := experiment.CheckPlotFile(file); err != nil {
		return fmt.Errorf("mbcf: %w", err)
	}
	if len(r.cfg.Networks) == 0 {
		return errors.New("mbcf: nothing to plot")
	}
	rtt := experiment.LogXYPlot("MBCF round trip (the MBCF paper's Tables 1, 2)", "data bytes", "round trip (µs)")
	bw := experiment.LogXYPlot("MBCF peak bandwidth (the MBCF paper's Table 4)", "data bytes", "MB/s")
	var rc, bc experiment.Curves
	k := 0
	for _, nw := range r.cfg.Networks {
		for _, o := range mbcfOps {
			var sim, paper plotter.XYs
			for _, n := range r.cfg.Sizes {
				if v, ok := r.RTTUs[nw][o.name][strconv.Itoa(n)]; ok {
					sim = append(sim, plotter.XY{X: float64(n), Y: v})
				}
				if v, ok := paperRTT[nw][o.name][n]; ok {
					paper = append(paper, plotter.XY{X: float64(n), Y: v})
				}
			}
			addSeries(&rc, fmt.Sprintf("%s %s", nw, o.name), sim, paper, k)
			k++
		}
	}
	for i, nw := range r.cfg.Networks {
		var sim, paper plotter.XYs
		for _, n := range r.cfg.BandwidthSizes {
			sim = append(sim, plotter.XY{X: float64(n), Y: r.PeakMBs[nw][strconv.Itoa(n)]})
			if v, ok := paperPeak[nw][n]; ok {
				paper = append(paper, plotter.XY{X: float64(n), Y: v})
			}
		}
		addSeries(&bc, nw, sim, paper, i)
	}
	if err := rc.AddTo(rtt); err != nil {
		return err
	}
	if err := bc.AddTo(bw); err != nil {
		return err
	}
	return experiment.SavePanels([]*plot.Plot{rtt, bw}, 6*vg.Inch, 5*vg.Inch, file)
}

// addSeries is a simulated line and the paper's points, in one colour and shape k.
func addSeries(c *experiment.Curves, name string, sim, paper plotter.XYs, k int) {
	c.Set(name+" (simulated)", experiment.Plain, k, sim)
	if len(paper) > 0 {
		c.Set(name+" (paper)", experiment.Points, k, paper)
	}
}
