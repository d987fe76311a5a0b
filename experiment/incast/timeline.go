package incast

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/lhsnic"
	"github.com/lhsim/lhsim/netsim/timeline"
)

// hostTimeline records an incast run's messages as timeline.Net does, and its receivers'
// receives as their hosts made them (HostRecv: from each Irecv to its completion, the times
// the table reports), not the receivers' cluster programs, which only wait for the receive
// paths to take the messages (they ended at 1 to 4 µs where the table says 108 to 128).
type hostTimeline struct {
	*timeline.Net
	receivers int
	msgs      map[[3]int]hostMsg // by (receiver, sender, tag): one message each
}

type hostMsg struct {
	id   uint64
	size int
}

func (h *hostTimeline) Issued(now netsim.Time, id uint64, kind string, src, dst, size, tag int) {
	h.msgs[[3]int{dst, src, tag}] = hostMsg{id, size}
	h.Net.Issued(now, id, kind, src, dst, size, tag)
}

func (h *hostTimeline) Op(rank int, name string, start, end netsim.Time, peer, tag, size int, msg int64) {
	if rank < h.receivers {
		return
	}
	h.Net.Op(rank, name, start, end, peer, tag, size, msg)
}

// record writes receiver r's host receives, want[i] done at the i-th time of its Results.
func (h *hostTimeline) record(r int, want []lhsnic.Want, host lhsnic.Receiver) {
	done, depths, _, _ := host.Results()
	posted := host.Posted()
	for i, at := range done {
		m, ok := h.msgs[[3]int{r, want[i].Src, want[i].Tag}]
		id := int64(-1)
		if ok {
			id = int64(m.id)
		}
		h.HostRecv(r, posted[i], at, want[i].Src, want[i].Tag, m.size, depths[i], id)
	}
}
