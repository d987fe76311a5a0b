package timeline

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
)

// linkSampler samples the fabric's links every Options.Sample while the machine has
// events: for the Options.Links links busiest in each span, a counter of the percent of the
// span its link carried flits ("links" process of the machine; a link that drops out of the
// busiest goes to 0). A packet counts in the span in which it starts on the link, so a
// span's figure may pass 100 where a long packet crosses its end; it is shown capped at 100.
type linkSampler struct {
	t       *Net
	fab     *fabric.Network
	every   netsim.Time
	top     int
	last    []netsim.Time
	shown   []bool
	names   []string
	prev    netsim.Time
	running bool
	pid     int
	named   bool
	pick    []int
}

// SampleLinks samples fab's links for the writer's Options.Links and Options.Sample (none
// when either is 0), from the first message issued on.
func (t *Net) SampleLinks(fab *fabric.Network) {
	o := t.W.opt
	if o.Links <= 0 || o.Sample <= 0 {
		return
	}
	n := fab.Links()
	t.links = &linkSampler{t: t, fab: fab, every: o.Sample, top: o.Links, last: make([]netsim.Time, n), shown: make([]bool, n), names: make([]string, n),
		pid: t.PidBase + MachinePids - 2}
}

func (s *linkSampler) start(now netsim.Time) {
	if s.running {
		return
	}
	s.running = true
	for i := range s.last {
		s.last[i] = s.fab.LinkBusy(i)
	}
	s.prev = now
	s.fab.Engine().At(now+s.every, s, 0)
}

// Fire implements netsim.Handler: one sample.
func (s *linkSampler) Fire(now netsim.Time, _ int64) {
	w := s.t.W
	span := now - s.prev
	s.pick = s.pick[:0]
	delta := func(i int) netsim.Time { return s.fab.LinkBusy(i) - s.last[i] }
	for i := range s.last {
		d := delta(i)
		if d <= 0 {
			continue
		}
		// Keep the top busiest, ties to the lower link: an insertion into a short list.
		k := len(s.pick)
		for k > 0 && delta(s.pick[k-1]) < d {
			k--
		}
		if k >= s.top {
			continue
		}
		s.pick = append(s.pick, 0)
		copy(s.pick[k+1:], s.pick[k:])
		s.pick[k] = i
		if len(s.pick) > s.top {
			s.pick = s.pick[:s.top]
		}
	}
	if w.Keep(s.pid) && !s.named {
		s.named = true
		name := "links"
		if s.t.RunsName != "" {
			name = s.t.RunsName[:len(s.t.RunsName)-len("runs")] + "links"
		}
		w.Process(s.pid, name)
	}
	in := make(map[int]bool, len(s.pick))
	for _, i := range s.pick {
		in[i] = true
		pc := int64(delta(i) * 100 / span)
		w.Counter(s.pid, s.name(i), s.prev, I("percent", min(pc, 100)))
		s.shown[i] = true
	}
	for i, sh := range s.shown {
		if sh && !in[i] {
			w.Counter(s.pid, s.name(i), s.prev, I("percent", 0))
			s.shown[i] = false
		}
	}
	for i := range s.last {
		s.last[i] = s.fab.LinkBusy(i)
	}
	s.prev = now
	if s.fab.Engine().Pending() == 0 {
		// The machine is idle: the last span is closed; the next message starts again.
		for i, sh := range s.shown {
			if sh {
				w.Counter(s.pid, s.name(i), now, I("percent", 0))
				s.shown[i] = false
			}
		}
		s.running = false
		return
	}
	s.fab.Engine().At(now+s.every, s, 0)
}

func (s *linkSampler) name(i int) string {
	if s.names[i] == "" {
		s.names[i] = "link " + s.fab.LinkName(i)
	}
	return s.names[i]
}
