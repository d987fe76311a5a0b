package goal

import (
	"bytes"
	"io"
	"testing"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// BenchmarkGoalTimeline is the figure: a 256-rank recursive-doubling allreduce of
// 1 KiB on torus:8x8x8 without and with the timeline (the CLI's defaults: 8 links every
// 1 µs), written to a discarding writer; it reports the file's bytes per event.
// go test ./experiment -run - -bench GoalTimeline -count 5
func BenchmarkGoalTimeline(b *testing.B) {
	var src bytes.Buffer
	if err := goal.Generate(&src, goal.GenConfig{Pattern: "allreduce_recdoub", Ranks: 256, Size: 1024, Segment: 1024, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	s, err := goal.Parse(bytes.NewReader(src.Bytes()))
	if err != nil {
		b.Fatal(err)
	}
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			var w *timeline.Writer
			for b.Loop() {
				cfg := Config{Network: "packet", Topology: experiment.MustTopology("torus:8x8x8"), LogGP: goal.DefaultParams(), Fabric: fabric.DefaultConfig(), Cluster: cluster.DefaultConfig()}
				if on {
					w = timeline.New(io.Discard, timeline.Options{Links: 8, Sample: netsim.Microsecond})
					cfg.Timeline = w
				}
				if _, err := RunSchedule(cfg, s); err != nil {
					b.Fatal(err)
				}
				if w != nil {
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
				}
			}
			if w != nil {
				b.ReportMetric(float64(w.Bytes())/float64(w.Events()), "bytes/event")
				b.ReportMetric(float64(w.Events()), "events")
			}
		})
	}
}
