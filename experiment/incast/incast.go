// Package incast is lhsim incast: many senders to LHS receivers, LHS on against off.
package incast

// lhsim incast: many senders, one or more receivers whose receive path is the LHS RTL (or
// the golden model) inside the network, receives posted late (the unexpected-message case
// that motivates Tanabe et al.'s LHS paper), LHS on against LHS off.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/machine"
	"github.com/lhsim/lhsim/netsim/timeline"
	"github.com/lhsim/lhsim/plugin"
)

// The results cmd/lhsim prints (and draws).
var (
	_ experiment.Figure = (*Result)(nil)
)

// Config is what the user chose.
type Config struct {
	Topology  experiment.Topology
	Receivers int   // ranks 0..Receivers-1 receive; every other rank sends
	RTLNodes  []int // receivers whose receive path is the RTL; the others run Model (nil: all RTL)
	// Bridge is the RTL receivers' bridge: cgo (in this process) or plugin (a process each).
	Bridge device.Bridge
	// Model is what the other receivers run: "go" (the golden model) or "tlm" (the
	// transaction-level model). Both commit every message at the RTL's cycle.
	Model string
	// StepInTurn steps busy receivers in turn, a cycle at a time, instead of letting each run
	// ahead of the others by the network's shortest latency (lhsnic.Group): the same result,
	// slower; for tests and measurements.
	StepInTurn bool
	// Host is the receivers' software: HostMPI (drivers/mpi itself on each node's host bus,
	// timed by the host CPU model) or HostCosts (a transaction-level host charging lhsim
	// search's per-message costs, inputs; the only one a TLM receiver can have).
	Host string
	// HostWait bounds how long the MPI host waits for the next message to come in before it
	// gives up with an error naming the receive.
	HostWait netsim.Time
	// Speed also runs the LHS-on case with every receiver of each kind (RTL on the cgo
	// bridge, RTL on the plugin bridge, golden model, and with HostCosts TLM) and reports
	// their speeds.
	Speed    bool
	Messages int // per sender and receiver
	Entries  int // LH entries of the golden-model receivers (0: the RTL build's 1024)
	Seed     uint64
	PostAt   netsim.Time // when the receivers' host posts its receives
	// SearchPerMessage is HostCosts' cost to compare one queued message, with and without
	// LHS. source: lhsim search (simulated; docs/search.md): 15.05 ns reading LH entries by
	// PIO, 576.92 ns walking the SO-DIMM ring with 16-byte VLs.
	SearchPerMessage map[bool]netsim.Time
	// Fetch is HostCosts' cost to bring a matched message's body that is not in an LH entry
	// (the tail of a split message; with LHS off, every body): one VL as the host sees it.
	// source: docs/design.md, a 16-byte VL is 566 ns from the host (the paper: about 600 ns).
	Fetch  netsim.Time
	Period netsim.Time // NIC clock (Tanabe et al.'s LHS paper: 100 MHz)
	// Trace, when set, is an FST waveform of receiver TraceNode's RTL during the LHS-on run,
	// written with a GTKWave save file beside it (the same name, .gtkw).
	Trace     string
	TraceNode int
	Fabric    fabric.Config
	Cluster   cluster.Config
	// Timeline, when set, records the LHS-on and LHS-off runs (docs/timeline.md).
	Timeline *timeline.Writer
	// TimelineSave, when set with Trace and Timeline, is a GTKWave save file written for
	// the traced receiver: its waveform opened at its first message, a marker at each of
	// that message's steps on the timeline (arrival, taken, LH entry, message done, host
	// release).
	TimelineSave string
	// Progress, when set, is told after each run (done of total: LHS on, off, the speed rows).
	Progress *experiment.Progress `json:"-"`
	// Runs, when set, are the only runs made (Parts): "on", "off", and the Speed rows' kinds.
	Runs []string
	// Threads is how many threads each run's machine takes (Threads says how many each
	// really gets); the results are the same for any number.
	Threads int `json:"-"`
	// Windows, when set, is told of the windows of each run on more than one thread.
	Windows func(run string, ws netsim.WindowStats) `json:"-"`
}

// Default is 15 senders to one RTL receiver on a 16-port crossbar, 100 messages each,
// receives posted 100 µs after the start.
func Default() Config {
	return Config{
		Topology: experiment.MustTopology("crossbar:16"), Receivers: 1, Messages: 100, Seed: 1, PostAt: 100 * netsim.Microsecond,
		Bridge: device.Cgo, Model: "go", Speed: true, Host: HostMPI, HostWait: 100 * netsim.Millisecond,
		SearchPerMessage: map[bool]netsim.Time{true: netsim.NS(15.05), false: netsim.NS(576.92)},
		Fetch:            566 * netsim.Nanosecond,
		Period:           10 * netsim.Nanosecond,
		Fabric:           fabric.DefaultConfig(),
		Cluster:          cluster.DefaultConfig(),
	}
}

// Outcome is one run (LHS on or off).
type Outcome struct {
	LHS            bool          `json:"lhs"`
	Messages       int           `json:"messages"`
	MeanReceiveUs  float64       `json:"mean_receive_us"` // receive completion, from the start of the run
	LastReceiveUs  float64       `json:"last_receive_us"`
	MeanDepth      float64       `json:"mean_search_depth"`
	MaxQueueDepth  int           `json:"max_queue_depth"`        // unexpected messages waiting at a receiver
	CopiedToHost   int           `json:"copied_to_host"`         // moved off a full LH buffer to host memory
	StallCycles    uint64        `json:"stall_cycles"`           // cycles a receive path held its input off
	PacketsHeldMax int           `json:"packets_in_network_max"` // at any instant (fabric.Network.InFlightMax)
	Events         uint64        `json:"events"`                 // but the receive paths' own steps (machine.ReceiveSteps)
	WallSeconds    float64       `json:"wall_seconds"`
	Waveform       string        `json:"waveform,omitempty"`
	Done           []netsim.Time `json:"-"` // every receive's completion, in order
	steps          uint64        // the receive paths' own step events (not in Events)
	SaveFile       string        `json:"save_file,omitempty"`
	TimelineSave   string        `json:"timeline_save_file,omitempty"` // IncastConfig.TimelineSave
	EventsPerS     float64       `json:"events_per_s"`
	SimNsPerWallS  float64       `json:"sim_ns_per_wall_s"`
}

// Result is LHS on against LHS off.
type Result struct {
	Host      string  `json:"host"`
	Topology  string  `json:"topology"`
	Receivers int     `json:"receivers"`
	RTLNodes  []int   `json:"rtl_nodes"`
	Bridge    string  `json:"bridge"` // the RTL receivers'
	Model     string  `json:"model"`  // the other receivers'
	Senders   int     `json:"senders"`
	PostAtUs  float64 `json:"post_at_us"`
	TraceNode int     `json:"trace_node,omitempty"`
	On        Outcome `json:"lhs_on"`
	Off       Outcome `json:"lhs_off"`
	// Speed is the LHS-on run again with every receiver of one kind (Config.Speed).
	Speed []Speed `json:"speed,omitempty"`
	// SpeedNote says why a row of Speed is left out.
	SpeedNote string `json:"speed_note,omitempty"`
	// Part, on a part's result only (Config.Runs), carries the receive times Merge compares,
	// so that a part's result read back from JSON (a Slurm array task's) merges as it does
	// here; the merged result has none.
	Part *PartTimes `json:"part,omitempty"`
}

// PartTimes are a part's receive completions: its LHS-on, LHS-off and speed runs'.
type PartTimes struct {
	On    []netsim.Time   `json:"on,omitempty"`
	Off   []netsim.Time   `json:"off,omitempty"`
	Speed [][]netsim.Time `json:"speed,omitempty"`
}

// Speed is the LHS-on run with every receiver's receive path of one kind.
type Speed struct {
	NIC           string        `json:"nic"` // rtl (cgo bridge), rtl-plugin, go, tlm
	MeanReceiveUs float64       `json:"mean_receive_us"`
	StallCycles   uint64        `json:"stall_cycles"`
	Same          bool          `json:"same_as_lhs_on"` // every receive at the same time, the same stalls as the LHS-on run
	WallSeconds   float64       `json:"wall_seconds"`
	EventsPerS    float64       `json:"events_per_s"`
	SimNsPerWallS float64       `json:"sim_ns_per_wall_s"`
	done          []netsim.Time // every receive's completion, for Same
}

// The kinds of receive path a receiver can run.
const (
	nicRTL       = "rtl"
	nicRTLPlugin = "rtl-plugin"
	nicGo        = "go"
	nicTLM       = "tlm"
)

// The receivers' software.
const (
	HostMPI   = "mpi"   // drivers/mpi on the node's host bus, timed by gosim/hostcpu
	HostCosts = "costs" // per-message costs from lhsim search (inputs)
)

// Run runs the experiment with LHS on and with LHS off.
func Run(cfg Config) (*Result, error) {
	topo := cfg.Topology.Fabric()
	if topo == nil {
		return nil, experiment.Refuse("incast: no topology")
	}
	if err := cfg.Timeline.CheckNodes(topo.Nodes()); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	if cfg.Receivers < 1 || cfg.Receivers >= topo.Nodes() {
		return nil, fmt.Errorf("incast: %d receivers on %d nodes: want at least 1 and a sender", cfg.Receivers, topo.Nodes())
	}
	if cfg.Messages < 1 {
		return nil, fmt.Errorf("incast: %d messages per sender: want at least 1", cfg.Messages)
	}
	rtl := cfg.RTLNodes
	if rtl == nil {
		for i := range cfg.Receivers {
			rtl = append(rtl, i)
		}
	}
	for _, r := range rtl {
		if r < 0 || r >= cfg.Receivers {
			return nil, fmt.Errorf("incast: RTL node %d is not a receiver (0..%d)", r, cfg.Receivers-1)
		}
	}
	if err := experiment.Repeated("RTL nodes", rtl); err != nil {
		return nil, &experiment.InputError{Err: err}
	}
	if cfg.Model != nicGo && cfg.Model != nicTLM {
		return nil, fmt.Errorf("incast: model %q for the non-RTL receivers: want go or tlm", cfg.Model)
	}
	switch {
	case cfg.Host != HostMPI && cfg.Host != HostCosts:
		return nil, fmt.Errorf("incast: host %q: want %s or %s", cfg.Host, HostMPI, HostCosts)
	case cfg.Host == HostMPI && cfg.Model == nicTLM && len(rtl) < cfg.Receivers:
		return nil, fmt.Errorf("incast: the transaction-level model has no host bus for the MPI host to run on: use --host %s with --model %s", HostCosts, nicTLM)
	case cfg.Host == HostMPI && cfg.HostWait <= 0:
		return nil, fmt.Errorf("incast: host wait %v: want a positive limit", cfg.HostWait)
	}
	rtlKind := nicRTL
	if cfg.Bridge == device.Plugin {
		rtlKind = nicRTLPlugin
	}
	kinds := make([]string, cfg.Receivers)
	for r := range kinds {
		kinds[r] = cfg.Model
		if slices.Contains(rtl, r) {
			kinds[r] = rtlKind
		}
	}
	if cfg.Trace != "" && (cfg.TraceNode < 0 || cfg.TraceNode >= cfg.Receivers) {
		return nil, fmt.Errorf("incast: trace of node %d, which is not a receiver (0..%d)", cfg.TraceNode, cfg.Receivers-1)
	}
	res := &Result{Host: cfg.Host, Topology: cfg.Topology.String(), Receivers: cfg.Receivers, RTLNodes: rtl, Bridge: string(cfg.Bridge), Model: cfg.Model,
		Senders:  topo.Nodes() - cfg.Receivers,
		PostAtUs: cfg.PostAt.Microseconds(), TraceNode: cfg.TraceNode}
	plan := cfg.plan()
	cfg.Progress.Expect(int64(len(plan)))
	tick := func() { cfg.Progress.Step(1, "") }
	for _, k := range plan {
		switch k {
		case "on", "off":
			run, err := incastOnce(cfg, map[string]string{"on": "LHS on", "off": "LHS off"}[k], topo, kinds, k == "on")
			if err != nil {
				return nil, err
			}
			tick()
			if k == "on" {
				res.On = run
			} else {
				res.Off = run
			}
			continue
		case nicRTLPlugin:
			// The default table is not the user's choice of bridge: without a plugin
			// binary (lhsim run outside the source tree) its row is left out, with a note.
			if _, err := plugin.Locate(); errors.Is(err, plugin.ErrNoBinary) {
				res.SpeedNote = "rtl-plugin row left out: no lhsim-plugin binary found; build it with make plugin (or go build ./cmd/lhsim-plugin) and put it beside lhsim or name it in LHSIM_PLUGIN"
				tick()
				continue
			}
		}
		c := cfg
		c.Trace, c.Timeline = "", nil
		all := slices.Repeat([]string{k}, cfg.Receivers)
		run, err := incastOnce(c, "every receiver "+k, topo, all, true)
		if err != nil {
			return nil, fmt.Errorf("incast: every receiver %s: %w", k, err)
		}
		tick()
		res.Speed = append(res.Speed, Speed{NIC: k, MeanReceiveUs: run.MeanReceiveUs, StallCycles: run.StallCycles,
			WallSeconds: run.WallSeconds, EventsPerS: run.EventsPerS, SimNsPerWallS: run.SimNsPerWallS, done: run.Done})
	}
	res.same()
	if cfg.Runs != nil {
		res.Part = &PartTimes{On: res.On.Done, Off: res.Off.Done}
		for _, sp := range res.Speed {
			res.Part.Speed = append(res.Part.Speed, sp.done)
		}
	}
	return res, nil
}

// plan is the runs cfg makes, in order: LHS on, LHS off, then with Speed every receiver of
// each kind (rtl, rtl-plugin, go, and with HostCosts tlm: a TLM node has no host bus).
func (cfg Config) plan() []string {
	all := []string{"on", "off"}
	if cfg.Speed {
		all = append(all, nicRTL, nicRTLPlugin, nicGo)
		if cfg.Host != HostMPI {
			all = append(all, nicTLM)
		}
	}
	if cfg.Runs == nil {
		return all
	}
	var out []string
	for _, k := range all {
		if slices.Contains(cfg.Runs, k) {
			out = append(out, k)
		}
	}
	return out
}

// JobMemory is what one part may take: its network's footprint doubled (as every network
// run is held to) and 8 MiB a receiver (its receive path, the SO-DIMM a MiB at a time as
// its tail ring fills, and its host: measured 2.6 MB a receiver, docs/performance.md).
func (cfg Config) JobMemory() int64 {
	topo := cfg.Topology.Fabric()
	if topo == nil {
		return 0
	}
	return 2*fabric.Footprint(topo, cfg.Fabric) + int64(cfg.Receivers)<<23
}

// incastOnce runs one case, what (for its windows line); kinds[r] is receiver r's receive path.
func incastOnce(cfg Config, what string, topo fabric.Topology, kinds []string, lhs bool) (Outcome, error) {
	run := Outcome{LHS: lhs}
	spec, wants, hosts, err := cfg.machine(topo, kinds, lhs)
	if err != nil {
		return run, err
	}
	// On parts, one or more, every event keyed: the same order on any number of threads.
	spec.Parts, _ = Threads(cfg)
	m, err := machine.Build(spec)
	if err != nil {
		return run, err
	}
	defer m.Close()
	net, c := m.Network(), m.Cluster()
	net.RecordInFlight()
	name, k := "LHS on", 0
	if !lhs {
		name, k = "LHS off", 1
	}
	var host *hostTimeline
	if tl := experiment.MachineNet(cfg.Timeline, net, k, name); tl != nil {
		host = &hostTimeline{Net: tl, receivers: cfg.Receivers, msgs: map[[3]int]hostMsg{}}
		m.AddHook(host)
		m.AddHook(experiment.RTLTimeline{Net: tl})
	}
	senders := topo.Nodes() - cfg.Receivers
	nodes := make([]*lhsnic.Node, cfg.Receivers)
	for r := range nodes {
		var h machine.AttachedHost
		if nodes[r], h = m.Receiver(r); h != nil { // the costs model, made on the machine's engine
			hosts[r] = h.(lhsnic.Receiver)
		}
	}
	wall := time.Now()
	_, err = c.Run(topo.Nodes(), func(rk *cluster.Rank) {
		if rk.ID() < cfg.Receivers {
			for range senders * cfg.Messages {
				rk.Recv(cluster.AnySource, cluster.AnyTag) // returns as the receive path takes each
			}
			return
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(rk.ID())))
		for t := range cfg.Messages {
			for r := range cfg.Receivers {
				rk.Send(r, t, 16+rng.IntN(241))
			}
		}
	})
	if err != nil {
		return run, err
	}
	c.Parts().Run(netsim.Never) // the hosts' last receives
	if host != nil {
		for r, h := range hosts {
			host.record(r, wants[r], h)
		}
	}
	run.WallSeconds = time.Since(wall).Seconds()
	run.steps = m.ReceiveSteps()
	run.Events = c.Fired() - run.steps
	run.EventsPerS = float64(run.Events) / run.WallSeconds
	var sum, depth float64
	var last netsim.Time
	for r, h := range hosts {
		if why := h.Unfinished(); why != "" {
			if err := nodes[r].Err(); err != nil {
				return run, fmt.Errorf("incast: receiver %d: %w", r, err)
			}
			return run, fmt.Errorf("incast: receiver %d did not complete its receives: %s", r, why)
		}
		done, depths, maxQueue, copies := h.Results()
		run.Done = append(run.Done, done...)
		for i, t := range done {
			sum += t.Microseconds()
			depth += float64(depths[i])
			last = max(last, t)
		}
		run.Messages += len(done)
		run.MaxQueueDepth = max(run.MaxQueueDepth, maxQueue)
		run.CopiedToHost += copies
	}
	run.LastReceiveUs = last.Microseconds()
	for _, n := range nodes {
		run.StallCycles += n.Stalls
	}
	run.MeanReceiveUs = sum / float64(run.Messages)
	run.MeanDepth = depth / float64(run.Messages)
	run.PacketsHeldMax = net.InFlightMax()
	if cfg.Windows != nil && spec.Parts > 1 {
		cfg.Windows(what, m.Windows())
	}
	run.SimNsPerWallS = last.Nanoseconds() / run.WallSeconds // to the last receive (a host's unused time limit may run the clock on)
	if err := m.Finish(nil); err != nil {                    // the waveform is complete once its device is closed
		return run, err
	}
	if w := spec.Waveform; w.File != "" {
		run.Waveform, run.SaveFile = w.File, w.EventSave
		if len(w.FirstMessageSaves) > 0 {
			run.TimelineSave = cfg.TimelineSave
		}
	}
	return run, nil
}

// machine is the machine of one case: receiver r runs kinds[r] (on the cgo or plugin bridge,
// the golden model or the TLM) and wants every sender's messages in order, its host the MPI
// library on the node's CPU model (hosts[r]) or the costs model (made with the machine: hosts[r]
// nil); the receive paths are stepped together with the network's lookahead. The traced
// receiver's waveform (LHS on only) has a marker at each event of its outputs and, with a
// timeline, a save file with its first message's steps.
func (cfg Config) machine(topo fabric.Topology, kinds []string, lhs bool) (machine.Spec, [][]lhsnic.Want, []lhsnic.Receiver, error) {
	spec := machine.Spec{Topology: topo, Fabric: cfg.Fabric, Cluster: cfg.Cluster, Stepping: machine.Grouped}
	if cfg.StepInTurn {
		spec.Stepping = machine.InTurn
	}
	var wants [][]lhsnic.Want
	hosts := make([]lhsnic.Receiver, cfg.Receivers)
	for r := range cfg.Receivers {
		var want []lhsnic.Want
		for s := cfg.Receivers; s < topo.Nodes(); s++ {
			for t := range cfg.Messages {
				want = append(want, lhsnic.Want{Src: s, Tag: t})
			}
		}
		wants = append(wants, want)
		dc := device.Config{Model: device.Go, Bridge: device.Cgo, Entries: cfg.Entries}
		switch kinds[r] {
		case nicRTL, nicRTLPlugin:
			dc = device.Config{Model: device.RTL, Bridge: device.Cgo}
			if kinds[r] == nicRTLPlugin {
				dc.Bridge = device.Plugin
			}
		}
		if lhs && cfg.Trace != "" && r == cfg.TraceNode {
			if kinds[r] != nicRTL {
				return spec, nil, nil, fmt.Errorf("incast: --trace %d: that receiver runs %s, which has no waveform here (make it an RTL node on the cgo bridge)", r, kinds[r])
			}
			spec.Waveform = machine.Waveform{Node: r, File: cfg.Trace, EventSave: machine.DefaultSave(cfg.Trace)}
			if cfg.Timeline != nil && cfg.TimelineSave != "" {
				spec.Waveform.FirstMessageSaves = []string{cfg.TimelineSave}
			}
		}
		rc := machine.Receiver{Node: r, Config: lhsnic.Config{Device: dc, TLM: kinds[r] == nicTLM, Period: cfg.Period, Batch: 256, LHS: lhs}}
		if cfg.Host == HostMPI {
			h := &lhsnic.MPIReceiver{Want: want, LHS: lhs, Nodes: topo.Nodes(), PostAt: cfg.PostAt, Wait: cfg.HostWait}
			rc.Config.Program = h.Program
			hosts[r] = h
		} else {
			entries := dc.Params().Entries
			rc.NewHost = func(eng *netsim.Engine) machine.AttachedHost {
				return lhsnic.NewCostReceiver(eng, want, lhs, entries,
					lhsnic.Costs{PostAt: cfg.PostAt, SearchPerMessage: cfg.SearchPerMessage, Fetch: cfg.Fetch})
			}
		}
		spec.Receivers = append(spec.Receivers, rc)
	}
	return spec, wants, hosts, nil
}

// WriteTable prints LHS on against LHS off.
func (r *Result) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "incast on %s: %d senders -> %d receivers (RTL on the %s bridge at %v, %s elsewhere), receives posted at %.1f µs\n",
		r.Topology, r.Senders, r.Receivers, r.Bridge, r.RTLNodes, r.Model, r.PostAtUs)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("", "LHS on", "LHS off")
	rows := []struct {
		name string
		f    func(Outcome) string
	}{
		{"messages received", func(x Outcome) string { return fmt.Sprint(x.Messages) }},
		{"mean receive completion (µs)", func(x Outcome) string { return fmt.Sprintf("%.2f", x.MeanReceiveUs) }},
		{"last receive completion (µs)", func(x Outcome) string { return fmt.Sprintf("%.2f", x.LastReceiveUs) }},
		{"mean search depth", func(x Outcome) string { return fmt.Sprintf("%.1f", x.MeanDepth) }},
		{"largest unexpected queue", func(x Outcome) string { return fmt.Sprint(x.MaxQueueDepth) }},
		{"input stall cycles (back-pressure)", func(x Outcome) string { return fmt.Sprint(x.StallCycles) }},
		{"copied off a full LH buffer", func(x Outcome) string { return fmt.Sprint(x.CopiedToHost) }},
		{"events", func(x Outcome) string { return fmt.Sprint(x.Events) }},
		{"events per wall second", func(x Outcome) string { return fmt.Sprintf("%.3g", x.EventsPerS) }},
		{"simulated ns per wall second", func(x Outcome) string { return fmt.Sprintf("%.3g", x.SimNsPerWallS) }},
	}
	for _, row := range rows {
		if err := t.Append(row.name, row.f(r.On), row.f(r.Off)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	var err error
	if r.Host == HostCosts {
		_, err = fmt.Fprintln(w, "host: costs; search cost per queued message: input, from lhsim search (simulated): 15.05 ns with LHS, 576.92 ns without; body fetch by VL: 566 ns (docs/design.md)")
	} else {
		_, err = fmt.Fprintln(w, "host: mpi; every receive simulated: drivers/mpi on each receiver's host bus (PIO reads of LH entries, VLs, releases on the device), timed by the host CPU model (gosim/hostcpu, Pentium 4 2.6 GHz)")
	}
	if err == nil && len(r.Speed) > 0 {
		fmt.Fprintf(w, "\nthe LHS-on run with every receiver of one kind:\n")
		t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
		t.Header("receive path", "mean receive (µs)", "stall cycles", "same as LHS on above", "wall (s)", "events/s", "simulated ns/s")
		for _, x := range r.Speed {
			if err := t.Append(x.NIC, fmt.Sprintf("%.2f", x.MeanReceiveUs), fmt.Sprint(x.StallCycles), fmt.Sprint(x.Same),
				fmt.Sprintf("%.3f", x.WallSeconds), fmt.Sprintf("%.3g", x.EventsPerS), fmt.Sprintf("%.3g", x.SimNsPerWallS)); err != nil {
				return err
			}
		}
		err = t.Render()
	}
	if err == nil && r.SpeedNote != "" {
		_, err = fmt.Fprintln(w, r.SpeedNote)
	}
	if err == nil && r.On.Waveform != "" {
		_, err = fmt.Fprintf(w, "waveform of receiver %d (LHS on; idle cycles skipped): %s\nopen with: gtkwave %s %s\n", r.TraceNode, r.On.Waveform, r.On.Waveform, r.On.SaveFile)
	}
	return err
}
