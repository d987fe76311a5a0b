package machine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/lhsnic"
)

// counter is an observer of every event the machine has: it writes each as a line.
type counter struct{ log []string }

func (c *counter) Rx(node int, e lhsnic.RxEvent) {
	c.log = append(c.log, fmt.Sprintf("rx %d %v msg %d cycle %d at %v", node, e.Kind, e.Msg, e.Cycle, e.Time))
}

func (c *counter) Issued(now netsim.Time, id uint64, kind string, src, dst, size, tag int) {
	c.log = append(c.log, fmt.Sprintf("issued %v %d %s %d->%d %d %d", now, id, kind, src, dst, size, tag))
}

func (c *counter) Arrived(now netsim.Time, id uint64, node int) {
	c.log = append(c.log, fmt.Sprintf("arrived %v %d %d", now, id, node))
}

func (c *counter) Landed(now netsim.Time, id uint64, node int) {
	c.log = append(c.log, fmt.Sprintf("landed %v %d %d", now, id, node))
}

func (c *counter) Op(rank int, name string, start, end netsim.Time, peer, tag, size int, msg int64) {
	c.log = append(c.log, fmt.Sprintf("op %d %s %v %v", rank, name, start, end))
}

// messagesOnly sees the messages and nothing else.
type messagesOnly struct{ landed int }

func (m *messagesOnly) Issued(netsim.Time, uint64, string, int, int, int, int) {}
func (m *messagesOnly) Arrived(netsim.Time, uint64, int)                       {}
func (m *messagesOnly) Landed(netsim.Time, uint64, int)                        { m.landed++ }

// spec is a crossbar of 4 nodes whose nodes 0 and 2 receive through the LHS receive path
// (model: the golden model, or the Verilated RTL).
func spec(t *testing.T, rtl bool) Spec {
	t.Helper()
	tp, err := fabric.ParseTopology("crossbar:4")
	require.NoError(t, err)
	s := Spec{Topology: tp, Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig()}
	for _, n := range []int{0, 2} {
		nc := lhsnic.DefaultConfig()
		if !rtl {
			nc.Device.Model = device.Go
		}
		s.Receivers = append(s.Receivers, Receiver{Node: n, Config: nc})
	}
	return s
}

// run has nodes 1 and 3 send 6 messages of random sizes each to nodes 0 and 2, which
// receive them.
func run(t *testing.T, m *Machine, seed uint64) cluster.Result {
	t.Helper()
	res, err := m.Cluster().Run(4, func(r *cluster.Rank) {
		if r.ID() == 0 || r.ID() == 2 {
			for range 2 * 6 { // from nodes 1 and 3
				r.Recv(cluster.AnySource, cluster.AnyTag)
			}
			return
		}
		rng := rand.New(rand.NewPCG(seed, uint64(r.ID())))
		for i := range 6 {
			r.Send(0, i, 16+rng.IntN(300))
			r.Send(2, i, 16+rng.IntN(300))
		}
	})
	require.NoError(t, err, "seed %d", seed)
	require.NoError(t, m.Finish(nil))
	return res
}

// Any number of observers attach, each is told every event it subscribed to (the same
// events, in the same order, alone or beside others), and watching changes nothing in the
// run: its times and its event count are those of a run that no one watched.
func TestHooksTellEveryObserver(t *testing.T) {
	seed := uint64(7)
	m, err := Build(spec(t, false))
	require.NoError(t, err)
	unwatched := run(t, m, seed)

	m, err = Build(spec(t, false))
	require.NoError(t, err)
	alone := &counter{}
	m.AddHook(alone)
	require.Equal(t, unwatched, run(t, m, seed), "one observer changed the run")

	m, err = Build(spec(t, false))
	require.NoError(t, err)
	a, b, msgs := &counter{}, &counter{}, &messagesOnly{}
	m.AddHook(a)
	m.AddHook(msgs)
	m.AddHook(b)
	require.Equal(t, unwatched, run(t, m, seed), "three observers changed the run")

	require.NotEmpty(t, alone.log)
	require.Equal(t, alone.log, a.log, "an observer beside others was told other events")
	require.Equal(t, alone.log, b.log)
	landed, rx, ops := 0, 0, 0
	for _, l := range alone.log {
		switch strings.Fields(l)[0] {
		case "landed":
			landed++
		case "rx":
			rx++
		case "op":
			ops++
		}
	}
	require.Equal(t, landed, msgs.landed, "the observer of messages alone missed some")
	require.Equal(t, 2*2*6*5, rx, "each of the 24 messages' five steps through a receive path: arrival, taken, LH entry, done, release")
	require.Positive(t, ops, "the ranks' calls")
	require.Len(t, HooksOf[*counter](m), 2)
}

// A waveform is recorded on the chosen receiver, with a save file whose markers are its
// first message's steps and one whose markers are its outputs' events; the Verilated RTL
// really runs.
func TestWaveformAndSaveFiles(t *testing.T) {
	dir := t.TempDir()
	s := spec(t, true)
	fst := filepath.Join(dir, "node2.fst")
	s.Waveform = Waveform{Node: 2, File: fst, EventSave: DefaultSave(fst), FirstMessageSaves: []string{filepath.Join(dir, "first.gtkw")}}
	m, err := Build(s)
	require.NoError(t, err)
	run(t, m, 3)
	info, err := os.Stat(fst)
	require.NoError(t, err)
	require.Positive(t, info.Size())
	first, err := os.ReadFile(filepath.Join(dir, "first.gtkw"))
	require.NoError(t, err)
	for _, k := range []string{"arrival", "taken", "LH entry", "message done", "host release"} {
		require.Contains(t, string(first), "message 0 "+k)
	}
	events, err := os.ReadFile(filepath.Join(dir, "node2.gtkw"))
	require.NoError(t, err)
	require.Contains(t, string(events), "[dumpfile] \""+fst+"\"")
	require.NotEqual(t, string(first), string(events), "the two save files have the same markers")
}

// What only the whole machine can check is refused before a run: a receive path beyond the
// topology, a waveform of a node with no receive path.
func TestBuildRefuses(t *testing.T) {
	s := spec(t, false)
	s.Receivers[1].Node = 4
	_, err := Build(s)
	require.ErrorContains(t, err, "node 4: crossbar:4 has nodes 0 to 3")

	s = spec(t, false)
	s.Waveform = Waveform{Node: 1, File: filepath.Join(t.TempDir(), "w.fst")}
	_, err = Build(s)
	require.ErrorContains(t, err, "a waveform of node 1")
}

// tagged writes its name into a log shared with other observers.
type tagged struct {
	name string
	log  *[]string
}

func (o tagged) Rx(node int, e lhsnic.RxEvent) { *o.log = append(*o.log, o.name) }

// Observers are told in the order they attached; a machine no one watches installs no
// callback on its receive paths.
func TestHooksOrderAndNone(t *testing.T) {
	m, err := Build(spec(t, false))
	require.NoError(t, err)
	n, _ := m.Receiver(0)
	require.Nil(t, n.OnEvent, "a callback with no observer")
	var log []string
	m.AddHook(tagged{"a", &log})
	m.AddHook(tagged{"b", &log})
	require.NotNil(t, n.OnEvent)
	run(t, m, 1)
	require.NotEmpty(t, log)
	for i := 0; i < len(log); i += 2 {
		require.Equal(t, []string{"a", "b"}, log[i:i+2], "event %d", i/2)
	}
}
