package experiment_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/incast"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// incast's timeline says what its table says (issue 37, class 2): each receiver's receives
// are its MPI host's, from their post (the first at --post-at) to the completion the table
// counts, LHS on and off; before, the timeline drew the receivers' cluster programs, whose
// receives ended at 1 to 4 µs while the table said 108 to 128.
func TestIncastTimelineSaysWhatTheTableSays(t *testing.T) {
	for _, host := range []string{incast.HostMPI, incast.HostCosts} {
		cfg := incast.Default()
		cfg.Topology, cfg.Messages, cfg.PostAt, cfg.Speed, cfg.Host = experiment.MustTopology("crossbar:4"), 10, 50*netsim.Microsecond, false, host
		cfg.RTLNodes = []int{}
		var buf bytes.Buffer
		cfg.Timeline = timeline.New(&buf, timeline.Options{})
		res, err := incast.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Timeline.Close(); err != nil {
			t.Fatal(err)
		}
		checkMessages(t, buf.Bytes())
		evs, err := timeline.Parse(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		starts, ends := map[int][]float64{}, map[int][]float64{}
		for _, e := range evs {
			if e.Ph == "X" && e.Name == "recv" {
				machine := *e.Pid / timeline.MachinePids
				if *e.Tid != timeline.TidHostRecv {
					t.Fatalf("%s: a recv on track %d of pid %d: only the host's receives are drawn", host, *e.Tid, *e.Pid)
				}
				starts[machine] = append(starts[machine], *e.Ts)
				ends[machine] = append(ends[machine], *e.Ts+*e.Dur)
			}
		}
		for machine, o := range []incast.Outcome{res.On, res.Off} {
			want := make([]float64, len(o.Done))
			for i, d := range o.Done {
				want[i] = d.Microseconds()
			}
			got := ends[machine]
			slices.Sort(want)
			slices.Sort(got)
			if len(got) != len(want) {
				t.Fatalf("%s machine %d: %d receives drawn, the table has %d", host, machine, len(got), len(want))
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-3 { // the file's µs have 6 decimals
					t.Fatalf("%s machine %d: receive %d ends at %.6f µs on the timeline, %.6f µs in the table", host, machine, i, got[i], want[i])
				}
			}
			if first := slices.Min(starts[machine]); math.Abs(first-cfg.PostAt.Microseconds()) > 1e-3 {
				t.Fatalf("%s machine %d: the first receive is posted at %.3f µs, the table says %.3f", host, machine, first, cfg.PostAt.Microseconds())
			}
		}
	}
}
