package net

// The zero-load latencies of lhsim traffic: lone packets over the pattern's pairs against the
// closed form, on both routers.

import (
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/fabric"
	"github.com/lhsim/lhsim/netsim/fabric/booksim"
)

// zeroLoad sends lone packets over the pattern's pairs (uniform: node 0 to every other
// node; a permutation: every node to its partner), far enough apart that none meets
// another, and compares each latency with the closed form. The pairs are dealt out in
// ranges to the run's threads, each range on a network of its own, every packet injected
// at the time its number gives it (so at the same phase of the routers' clock on any split).
func zeroLoad(topo fabric.Topology, fc fabric.Config, pat fabric.Pattern, flits, threads int, res *TrafficResult) error {
	eng := &netsim.Engine{}
	n, err := fabric.New(eng, topo, fc)
	if err != nil {
		return err
	}
	var pairs [][2]int
	if perm, ok := pat.(fabric.Permutation); ok {
		for s := range topo.Nodes() {
			pairs = append(pairs, [2]int{s, perm.Perm(s)})
		}
	} else {
		for d := 1; d < topo.Nodes(); d++ {
			pairs = append(pairs, [2]int{0, d})
		}
	}
	bytes := flits * fc.FlitBytes
	want := make([]netsim.Time, len(pairs))
	var gap netsim.Time
	for i, pr := range pairs {
		if want[i], err = n.ZeroLoadLatency(pr[0], pr[1], bytes); err != nil {
			return err
		}
		gap = max(gap, want[i])
	}
	gap += 10 * fc.ClockPeriod // the last credits are home before the next packet starts
	got := make([]netsim.Time, len(pairs))
	routers := make([]int, len(pairs))
	err = netsim.Split(threads, len(pairs), func(lo, hi int) error {
		eng, n := eng, n // the first range's: the network built above
		if lo > 0 {
			var err error
			eng = &netsim.Engine{}
			if n, err = fabric.New(eng, topo, fc); err != nil {
				return err
			}
		}
		col := &lone{net: n, got: got, routers: routers}
		for i := range topo.Nodes() {
			if err := n.Attach(i, col); err != nil {
				return err
			}
		}
		for i := lo; i < hi; i++ {
			pr := pairs[i]
			if err := n.Inject(netsim.Time(i)*gap, &fabric.Packet{Src: pr[0], Dst: pr[1], Bytes: bytes, ID: uint64(i)}); err != nil {
				return err
			}
		}
		eng.Run(netsim.Never)
		return nil
	})
	if err != nil {
		return err
	}
	var sumWant, sumGot netsim.Time
	res.ZeroLoadExact = true
	by := map[int]*ZeroLoadRow{}
	for i := range pairs {
		sumWant += want[i]
		sumGot += got[i]
		r := by[routers[i]]
		if r == nil {
			r = &ZeroLoadRow{Routers: routers[i], Exact: true}
			by[routers[i]] = r
		}
		r.Pairs++
		r.ClosedNs += want[i].Nanoseconds()
		r.SimNs += got[i].Nanoseconds()
		if got[i] != want[i] {
			res.ZeroLoadExact, r.Exact = false, false
		}
	}
	res.ZeroLoadByRouters = zeroLoadRows(by)
	k := float64(len(pairs))
	res.ZeroLoadPairs = len(pairs)
	res.ZeroLoadNs = sumWant.Nanoseconds() / k
	res.ZeroLoadSimNs = sumGot.Nanoseconds() / k
	res.ZeroLoadCycles = float64(sumWant) / k / float64(fc.ClockPeriod)
	return nil
}

type lone struct {
	net     *fabric.Network
	got     []netsim.Time
	routers []int
}

func (l *lone) Receive(now netsim.Time, p *fabric.Packet) {
	l.got[p.ID] = p.Latency()
	l.routers[p.ID] = int(p.Hops)
	_ = l.net.Consumed(now, p.Dst, p)
}

// zeroLoadIQ sends lone packets through the booksim router over the pattern's pairs (as
// zeroLoad does, a network for each range of them) and compares each latency with the
// closed form fabric.IQZeroLoad. A lone packet takes the same cycles whatever the packets
// before it drew from the routers' streams (a draw picks among minimal ways: a torus's
// direction half way round, a fat tree's up port), so any split gives the same table.
func zeroLoadIQ(topo fabric.Topology, fc fabric.Config, pat fabric.Pattern, flits, threads int, res *TrafficResult) error {
	n, err := booksim.New(topo, fc, res.Seed)
	if err != nil {
		return err
	}
	var pairs [][2]int
	if perm, ok := pat.(fabric.Permutation); ok {
		for s := range topo.Nodes() {
			pairs = append(pairs, [2]int{s, perm.Perm(s)})
		}
	} else {
		for d := range topo.Nodes() {
			pairs = append(pairs, [2]int{0, d})
		}
	}
	by := map[int]*ZeroLoadRow{}
	var sumWant, sumGot float64
	res.ZeroLoadExact = true
	c := fc.ClockPeriod.Nanoseconds()
	gots, hops := make([]int64, len(pairs)), make([]int, len(pairs))
	err = netsim.Split(threads, len(pairs), func(lo, hi int) error {
		n := n // the first range's: the network built above
		var err error
		if lo > 0 {
			if n, err = booksim.New(topo, fc, res.Seed); err != nil {
				return err
			}
		}
		for i := lo; i < hi; i++ {
			if gots[i], hops[i], err = n.Lone(pairs[i][0], pairs[i][1], flits); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, pr := range pairs {
		got, routers := gots[i], hops[i]
		want, err := n.ZeroLoad(pr[0], pr[1], flits)
		if err != nil {
			return err
		}
		r := by[routers]
		if r == nil {
			r = &ZeroLoadRow{Routers: routers, Exact: true}
			by[routers] = r
		}
		r.Pairs++
		r.ClosedNs += float64(want) * c
		r.SimNs += float64(got) * c
		sumWant += float64(want)
		sumGot += float64(got)
		if got != want {
			res.ZeroLoadExact, r.Exact = false, false
		}
	}
	res.ZeroLoadByRouters = zeroLoadRows(by)
	k := float64(len(pairs))
	res.ZeroLoadPairs = len(pairs)
	res.ZeroLoadCycles = sumWant / k
	res.ZeroLoadNs = sumWant / k * c
	res.ZeroLoadSimNs = sumGot / k * c
	return nil
}

// zeroLoadRows turns the sums of by (routers crossed → row) into averages, by router count.
func zeroLoadRows(by map[int]*ZeroLoadRow) []ZeroLoadRow {
	var rows []ZeroLoadRow
	for h := 0; len(rows) < len(by); h++ {
		if r := by[h]; r != nil {
			r.ClosedNs /= float64(r.Pairs)
			r.SimNs /= float64(r.Pairs)
			rows = append(rows, *r)
		}
	}
	return rows
}
