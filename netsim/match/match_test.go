package match

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/gosim/hostcpu"
	"github.com/lhsim/lhsim/netsim/goal"
)

// testConfig's LHS receive path has an LH buffer of 8 entries, so that longer unexpected
// queues spill to host memory.
func testConfig() Config {
	return Config{Host: hostcpu.Pentium4(), Costs: Costs{EntryInstr: 36, EntryBytes: 16, CallInstr: 8, PushInstr: 44, HashInstr: 10}, HWClockHz: 100_000_000,
		NIC: NICConfig{Entries: 8, Host: hostcpu.Pentium4(), Costs: mpi.DefaultCosts(), Seed: 1, Ranks: 1 << 16}}
}

// Every matcher must keep MPI order: after any sequence of pushes and searches, with
// wildcards on either side, it returns what LogGOPSim's list returns and holds the same
// entries in the same order. Small ALPUs fill and drain many times on the way, and the LHS
// receive path's 8-entry LH buffer fills and spills to host memory. (Messages carry no
// wildcard: LHS's unexpected queue holds messages only, so its pushes name source and tag.)
func TestMatchersKeepMPIOrder(t *testing.T) {
	for _, name := range []string{"list", "bins:1", "bins:7", "bins:64", "alpu:1", "alpu:4", "alpu:32", "lhs", "lhs+alpu:3", "hash:1:4", "hash:4:16", "hash:64:1024",
		"hash:4:16:4:2", "hash:4:16:4:2/onload", "hash:64:1024/onload"} {
		for seed := uint64(1); seed <= 20; seed++ {
			spec, err := Parse(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg := testConfig()
			if spec.RTL() && spec.Kind == "hash" && seed <= 5 {
				cfg.RTLNodes = []int{0} // the Verilated hash_match beside its model, every cycle, on 5 seeds
			}
			set, err := NewSet(spec, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := set.New(0)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 7))
			pick := func(n int) uint32 {
				if rng.IntN(6) == 0 {
					return goal.Any
				}
				return uint32(rng.IntN(n))
			}
			queues := []goal.Queue{m.Posted(), m.Unexpected()}
			refs := []goal.Queue{goal.NewListQueue(), goal.NewListQueue()}
			for step := 0; step < 3000; step++ {
				k := rng.IntN(2)
				q, ref := queues[k], refs[k]
				m.Begin(uint64(step) * 1000)
				src, tag := pick(5), pick(4)
				if rng.IntN(2) == 0 {
					if k == 1 && spec.NIC() {
						src, tag = uint32(rng.IntN(5)), uint32(rng.IntN(4))
					}
					e := goal.Entry{Src: src, Tag: tag, Op: uint32(step)}
					q.Push(e)
					ref.Push(e)
				} else {
					got, gd, gok := q.Take(src, tag)
					want, wd, wok := ref.Take(src, tag)
					if gok != wok || got != want {
						t.Fatalf("%s seed %d step %d: take(%d,%d) = %v %v, list gives %v %v", name, seed, step, src, tag, got, gok, want, wok)
					}
					// The depth the run records is the match's position in MPI order,
					// whatever the matcher walked to find it (docs/goal.md).
					if gok && gd != wd {
						t.Fatalf("%s seed %d step %d: take(%d,%d) at depth %d, its position in the list is %d", name, seed, step, src, tag, gd, wd)
					}
				}
				if _, err := m.End(); err != nil {
					t.Fatalf("%s seed %d: %v", name, seed, err)
				}
				if q.Len() != ref.Len() || !slices.Equal(q.Entries(), ref.Entries()) {
					t.Fatalf("%s seed %d step %d: queue %v, list %v", name, seed, step, q.Entries(), ref.Entries())
				}
			}
			if len(cfg.RTLNodes) > 0 && set.RTLSteps() < 100 {
				t.Errorf("%s seed %d: %d operations checked on the RTL", name, seed, set.RTLSteps())
			}
			st := set.Stats()[0]
			small := strings.Contains(spec.Kind, "alpu") && spec.Arg(0) <= 4 || spec.Kind == "hash" && spec.Arg(1) <= 16
			if small && spec.Full() == Overflow && (st.Fallbacks == 0 || st.Refills == 0) {
				t.Errorf("%s seed %d: %d fallbacks, %d refills: the test never filled the hardware list", name, seed, st.Fallbacks, st.Refills)
			}
			if small && spec.Full() == Onload && st.Switches < 2 {
				t.Errorf("%s seed %d: %d switches: the test never onloaded the queue and back", name, seed, st.Switches)
			}
			if spec.Kind == "lhs" && st.Fallbacks == 0 {
				t.Errorf("%s seed %d: no match in host memory: the test never filled the LH buffer", name, seed)
			}
			if err := set.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, ok := range []string{"list", "bins:1", "bins:65536", "alpu:1", "alpu:1024", "lhs", "lhs+alpu:1", "lhs+alpu:1024", "hash:1:4", "hash:64:1024", "hash:65536:16384", "hash:4:16:4:2", "hash:64:1024:1:8"} {
		s, err := Parse(ok)
		if err != nil || s.String() != ok {
			t.Errorf("Parse(%q) = %v, %v", ok, s, err)
		}
	}
	for _, bad := range []string{"", "lists", "list:4", "bins", "bins:0", "bins:65537", "alpu:0", "alpu:1025", "alpu:x", "alpu:-3", "lhs:4", "lhs+alpu", "lhs+alpu:0", "alpu+lhs:4",
		// hash:K:N: K and N powers of two, N at least 4 and within the XC2VP70's block RAM
		"hash", "hash:64", "hash:3:16", "hash:0:16", "hash:64:1000", "hash:64:2", "hash:64:32768", "hash:131072:16", "hash:64:1024:2",
		// hash:K:N:W:L: W a power of two with two entries a bank at least, L 1 to 8
		"hash:4:16:3:2", "hash:4:16:4:9", "hash:4:16:4:0", "hash:4:16:16:1", "hash:4:16:4:2:1"} {
		_, err := Parse(bad)
		if err == nil || !strings.Contains(err.Error(), Usage) {
			t.Errorf("Parse(%q): %v, want an error listing the matchers", bad, err)
		}
	}
}

// Search time grows with the depth searched on a list, not on an ALPU that holds the queue.
func TestMatchingTimeGrowsWithDepthOnLists(t *testing.T) {
	cost := func(name string, depth int) uint64 {
		spec, _ := Parse(name)
		set, _ := NewSet(spec, testConfig())
		m, _ := set.New(0)
		m.Begin(0)
		for i := 0; i < depth; i++ {
			m.Unexpected().Push(goal.Entry{Src: 1, Tag: uint32(i)})
		}
		m.End()
		m.Begin(1 << 40)
		if _, d, ok := m.Unexpected().Take(1, uint32(depth-1)); !ok || d != depth {
			t.Fatalf("%s: found %v at depth %d, want %d", name, ok, d, depth)
		}
		ps, _ := m.End()
		return ps
	}
	for _, c := range []struct {
		name   string
		growth bool
	}{{"list", true}, {"alpu:256", false}} {
		a, b := cost(c.name, 2), cost(c.name, 200)
		if (b > 10*a) != c.growth {
			t.Errorf("%s: %d ps at depth 2, %d at depth 200", c.name, a, b)
		}
	}
	if got, want := cost("alpu:256", 200), uint64(ALPUSearchCycles*10_000); got != want {
		t.Errorf("alpu:256 search: %d ps, want %d cycles at 100 MHz = %d ps", got, ALPUSearchCycles, want)
	}
}
