package match

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/netsim/goal"
)

// Kinds are the matchers, one line each: a new matcher is a file holding its Kind (and its
// queues) and its line here. Nothing outside this package compares matcher names: the
// experiments ask a Spec (Software, Hardware, RTL, Area, NIC, Memory, Dashed).
var Kinds = []*Kind{
	&listKind,
	&binsKind,
	&alpuKind,
	&lhsKind,
	&hybridKind,
	&hashKind,
}

// Kind is one kind of matcher: its name, its parameters, what it is built of and what it
// costs.
type Kind struct {
	// Name is the matcher's name before its parameters: list, bins, alpu.
	Name string
	// Params are its sizes, written after the name separated by colons (bins:64).
	Params []Param
	// Software kinds have no hardware: no area, 0 slices in the study, drawn dashed.
	Software bool
	// NIC kinds run the LHS receive path on every node (Config.NIC must be set; each rank
	// takes a device, NICBytes of memory).
	NIC bool
	// Policies: a hardware list with software behind it; the name takes /overflow or
	// /onload (Policy), overflow when none is given.
	Policies bool
	// Walks: a search walks entries out of MPI order (hash bins), so the depth the run
	// records is the entry's position in the queue and the entries examined are counted
	// apart (Stats.Examined).
	Walks bool
	// Fields are the source and tag bits its hardware holds (nil: any uint32); a schedule
	// whose ranks or tags do not fit is refused before the run (Spec.CheckFields).
	Fields func(Spec) (srcBits, tagBits int)
	// Check refuses sizes the hardware cannot be built with beyond Params' ranges (nil: none).
	Check func(Spec) error
	// RTL says whether a Spec of this kind runs as Verilated RTL on chosen nodes (nil: never).
	RTL func(Spec) bool
	// New makes one rank's posted and unexpected queues.
	New func(b *build) (posted, unexpected goal.Queue, err error)
	// Area is the synthesized designs a Spec's hardware is made of (nil: software).
	Area func(Spec) []AreaTerm
	// Memory is what a run's matchers take beyond the schedule's own state, in bytes, for
	// ranks ranks and ops operations (nil: nothing that grows with a parameter).
	Memory func(s Spec, ranks, ops int) int64
}

// Param is one size a matcher takes.
type Param struct {
	Name     string // as the usage writes it: K, N
	Min, Max int
	Pow2     bool // a power of two (the RTL's addressing)
	// Optional sizes come last and are given all or none (hash:K:N or hash:K:N:W:L); a
	// Spec's Arg is 0 for one not given.
	Optional bool
}

// AreaTerm is Count copies of one synthesized design (package area's top and parameters) in
// a matcher's hardware; a negative Count subtracts (an increment over a base design).
type AreaTerm struct {
	Top    string
	Params []AreaParam
	Count  int
}

// AreaParam is one parameter of a synthesized design.
type AreaParam struct {
	Name  string
	Value int
}

// NICBytes is the memory one rank's LHS receive path takes (device, SO-DIMM, host model):
// measured, lhs took 0.4 MB a rank more than list at 256 ranks; 1 MiB is the bound the
// estimate uses.
const NICBytes = 1 << 20

// build is what a Kind's New gets: the set, the rank's unit and whether it runs the RTL.
type build struct {
	set  *Set
	u    *unit
	spec Spec
	rank int
	rtl  bool
}

// list makes a software list in the rank's host memory at base.
func (b *build) list(base uint64) *swList {
	return newSWList(b.u.cpu, &b.set.cfg.Costs, base)
}

// Spec is a matcher by name: its kind and its sizes.
type Spec struct {
	Kind string
	// Args are the sizes, in the order of the kind's Params.
	Args []int
	// Policy is what the hardware list does when full, as written ("": Overflow).
	Policy Policy
	kind   *Kind
}

// Full is the policy the matcher follows (Overflow unless the name says).
func (s Spec) Full() Policy {
	if s.Policy == "" {
		return Overflow
	}
	return s.Policy
}

// Policies says whether the matcher is a hardware list that takes a policy.
func (s Spec) Policies() bool { k := s.k(); return k != nil && k.Policies }

// Arg is the i-th size (0 when the kind has fewer).
func (s Spec) Arg(i int) int {
	if i < len(s.Args) {
		return s.Args[i]
	}
	return 0
}

func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Kind)
	for _, a := range s.Args {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(a))
	}
	if s.Policy != "" {
		b.WriteString("/" + string(s.Policy))
	}
	return b.String()
}

func (s Spec) k() *Kind {
	if s.kind != nil {
		return s.kind
	}
	return kindNamed(s.Kind)
}

// Hardware says whether the matcher is hardware (it has an area).
func (s Spec) Hardware() bool { k := s.k(); return k != nil && !k.Software }

// Software says whether the matcher is software alone (no area; drawn dashed).
func (s Spec) Software() bool { k := s.k(); return k == nil || k.Software }

// NIC says whether the matcher runs the LHS receive path on every node.
func (s Spec) NIC() bool { k := s.k(); return k != nil && k.NIC }

// RTL says whether the matcher runs as Verilated RTL on chosen nodes (RTLUsage lists them).
func (s Spec) RTL() bool { k := s.k(); return k != nil && k.RTL != nil && k.RTL(s) }

// Area is the synthesized designs the matcher's hardware is made of (nil: software).
func (s Spec) Area() []AreaTerm {
	if k := s.k(); k != nil && k.Area != nil {
		return k.Area(s)
	}
	return nil
}

// CheckFields refuses, before a run, a schedule whose ranks (sources) or tags do not fit
// the matcher's hardware fields: maxSrc is the highest rank, maxTag the highest tag and line
// its line.
func (s Spec) CheckFields(maxSrc, maxTag uint32, line int) error {
	k := s.k()
	if k == nil || k.Fields == nil {
		return nil
	}
	sb, tb := k.Fields(s)
	if uint64(maxSrc) >= 1<<sb {
		return fmt.Errorf("matcher %s: rank %d does not fit its %d-bit source", s, maxSrc, sb)
	}
	if uint64(maxTag) >= 1<<tb {
		return fmt.Errorf("matcher %s: tag %d (line %d) does not fit its %d-bit tag", s, maxTag, line, tb)
	}
	return nil
}

// Memory is the matchers' share of a run's memory estimate on ranks ranks, and what it is
// (experiment/goal's MemoryUser): Footprint with an all-to-all's operations, ranks squared.
func (s Spec) Memory(ranks int) (int64, string) {
	return s.Footprint(ranks, ranks*ranks), fmt.Sprintf("matcher %s on %d ranks", s, ranks)
}

// Footprint is what a run's matchers take in bytes beyond the schedule's own state, for ranks
// ranks and ops operations: NICBytes a rank for the LHS receive path, and whatever the kind
// allocates as entries arrive (bins:K's bins).
func (s Spec) Footprint(ranks, ops int) int64 {
	k := s.k()
	if k == nil {
		return 0
	}
	var m int64
	if k.NIC {
		m += int64(ranks) * NICBytes
	}
	if k.Memory != nil {
		m += k.Memory(s, ranks, ops)
	}
	return m
}

func kindNamed(name string) *Kind {
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Usage lists the matchers, for error messages and -h.
var Usage = usage()

func usage() string {
	var out []string
	for _, k := range Kinds {
		s := k.Name
		var ranges []string
		optional := ""
		for _, p := range k.Params {
			if p.Optional {
				optional += ":" + p.Name
			} else {
				s += ":" + p.Name
			}
			r := fmt.Sprintf("%s from %d to %d", p.Name, p.Min, p.Max)
			if p.Pow2 {
				r = fmt.Sprintf("%s a power of two from %d to %d", p.Name, p.Min, p.Max)
			}
			ranges = append(ranges, r)
		}
		if optional != "" {
			s += "[" + optional + "]"
		}
		if k.Policies {
			s += "[/overflow|/onload]"
		}
		if len(ranges) > 0 {
			s += " (" + strings.Join(ranges, ", ") + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// RTLUsage says which matchers run as RTL, for error messages and -h.
var RTLUsage = fmt.Sprintf("lhs (the LHS receive path), alpu:N and lhs+alpu:N with N up to %d (the ALPU and, for lhs+alpu, the LHS receive path), hash:%d:%d and hash:%d:%d:%d:%d (hash_match as Verilated)",
	RTLCells, HashRTLParams.Bins, HashRTLParams.Entries, HashRTLSmall.Bins, HashRTLSmall.Entries, HashRTLSmall.Banks, HashRTLSmall.ReadLat)

// params are the kind's sizes (none for an unknown kind).
func (k *Kind) params() []Param {
	if k == nil {
		return nil
	}
	return k.Params
}

// Parse reads a matcher name; the error lists the matchers.
func Parse(s string) (Spec, error) {
	name, policy, hasPolicy := strings.Cut(s, "/")
	fields := strings.Split(name, ":")
	bad := func(why string) (Spec, error) {
		return Spec{}, fmt.Errorf("matcher %q: %s; matchers: %s", s, why, Usage)
	}
	k := kindNamed(fields[0])
	args := fields[1:]
	required := 0
	for _, p := range k.params() {
		if !p.Optional {
			required++
		}
	}
	switch {
	case k == nil:
		return bad("unknown")
	case len(k.Params) == 0 && len(args) > 0:
		return bad("takes no size")
	case len(k.Params) > 0 && len(args) == 0:
		return bad("needs a size")
	case required < len(k.Params) && len(args) != required && len(args) != len(k.Params):
		return bad(fmt.Sprintf("takes %d or %d sizes", required, len(k.Params)))
	case required == len(k.Params) && len(args) != len(k.Params):
		return bad(fmt.Sprintf("takes %d sizes", len(k.Params)))
	}
	spec := Spec{Kind: k.Name, kind: k}
	if hasPolicy {
		if !k.Policies {
			return bad("takes no policy (a hardware list with software behind it does: alpu, lhs+alpu, hash)")
		}
		p, err := parsePolicy(policy)
		if err != nil {
			return bad(err.Error())
		}
		spec.Policy = p
	}
	for i, p := range k.Params[:len(args)] {
		n, err := strconv.Atoi(args[i])
		if err != nil || n < p.Min || n > p.Max {
			what := "size"
			if len(k.Params) > 1 {
				what = p.Name
			}
			return bad(fmt.Sprintf("%s from %d to %d", what, p.Min, p.Max))
		}
		if p.Pow2 && n&(n-1) != 0 {
			return bad(fmt.Sprintf("%s must be a power of two", p.Name))
		}
		spec.Args = append(spec.Args, n)
	}
	if k.Check != nil {
		if err := k.Check(spec); err != nil {
			return bad(err.Error())
		}
	}
	return spec, nil
}
