package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// Event is one parsed trace event (the fields this package writes).
type Event struct {
	Ph   string         `json:"ph"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	ID   *uint64        `json:"id"`
	S    string         `json:"s"`
	Bp   string         `json:"bp"`
	Args map[string]any `json:"args"`
}

// Int is the event's argument k as an int, -1 when it has none.
func (e Event) Int(k string) int {
	v, ok := e.Args[k].(float64)
	if !ok {
		return -1
	}
	return int(v)
}

// Track is a (pid, tid) pair.
type Track struct{ Pid, Tid int }

// Parse reads a trace in the JSON Array Format, with or without its closing bracket (the
// format allows a trace to leave it out).
func Parse(b []byte) ([]Event, error) {
	b = bytes.TrimSpace(b)
	if !bytes.HasSuffix(b, []byte("]")) {
		b = append(bytes.TrimRight(b, ",\n"), ']')
	}
	var evs []Event
	if err := json.Unmarshal(b, &evs); err != nil {
		return nil, fmt.Errorf("timeline: not a JSON array of events: %w", err)
	}
	return evs, nil
}

const eps = 1e-9

// Validate checks a trace against the Trace Event Format and this package's promises:
// every event has its phase's fields; on each track the slices (X) nest (two either do not
// overlap or one holds the other) and events come in time order; every flow that starts
// (s) finishes (f), with the same category, its points in time order, each inside a slice
// of its track. partial: a filtered or cut-off trace, whose flows may have lost an end.
func Validate(evs []Event, partial bool) error {
	type span struct{ a, b float64 }
	slices := map[Track][]span{}
	last := map[Track]float64{}
	lastC := map[string]float64{}
	type point struct {
		ph string
		tr Track
		ts float64
	}
	flows := map[uint64][]point{}
	for i, e := range evs {
		if e.Ph == "" || e.Name == "" || e.Pid == nil || e.Tid == nil {
			return fmt.Errorf("event %d: ph, name, pid and tid are required: %+v", i, e)
		}
		tr := Track{*e.Pid, *e.Tid}
		if e.Ph == "M" {
			if e.Args == nil || (e.Args["name"] == nil && e.Args["sort_index"] == nil) {
				return fmt.Errorf("event %d: metadata %s without its argument", i, e.Name)
			}
			continue
		}
		if e.Ts == nil || *e.Ts < 0 || math.IsNaN(*e.Ts) {
			return fmt.Errorf("event %d (%s %s): no ts", i, e.Ph, e.Name)
		}
		ts := *e.Ts
		if e.Ph == "C" { // a counter's track is its process's and its name's
			key := fmt.Sprint(tr.Pid, " ", e.Name)
			if ts+eps < lastC[key] {
				return fmt.Errorf("event %d: counter %s of pid %d at %g µs: time goes back from %g µs", i, e.Name, tr.Pid, ts, lastC[key])
			}
			lastC[key] = ts
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					return fmt.Errorf("event %d: counter %s series %s is not a number", i, e.Name, k)
				}
			}
		}
		if e.Ph == "X" || e.Ph == "i" {
			if ts+eps < last[tr] {
				return fmt.Errorf("event %d (%s %s) at %g µs on pid %d tid %d: time goes back from %g µs", i, e.Ph, e.Name, ts, tr.Pid, tr.Tid, last[tr])
			}
			last[tr] = ts
		}
		switch e.Ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				return fmt.Errorf("event %d: slice %s without a duration", i, e.Name)
			}
			slices[tr] = append(slices[tr], span{ts, ts + *e.Dur})
		case "i":
			if e.S != "t" && e.S != "p" && e.S != "g" {
				return fmt.Errorf("event %d: instant %s with scope %q", i, e.Name, e.S)
			}
		case "C":
		case "s", "t", "f":
			if e.ID == nil || e.Cat == "" {
				return fmt.Errorf("event %d: flow %s without id or cat", i, e.Ph)
			}
			flows[*e.ID] = append(flows[*e.ID], point{e.Ph, tr, ts})
		default:
			return fmt.Errorf("event %d: phase %q is not one this package writes", i, e.Ph)
		}
	}
	for tr, ss := range slices {
		sort.Slice(ss, func(i, j int) bool { return ss[i].a < ss[j].a || (ss[i].a == ss[j].a && ss[i].b > ss[j].b) })
		var stack []span
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].b <= s.a+eps {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s.b > stack[len(stack)-1].b+eps {
				return fmt.Errorf("pid %d tid %d: slices [%g, %g] and [%g, %g] overlap without nesting", tr.Pid, tr.Tid, stack[len(stack)-1].a, stack[len(stack)-1].b, s.a, s.b)
			}
			stack = append(stack, s)
		}
	}
	inSlice := func(p point) bool {
		for _, s := range slices[p.tr] {
			if p.ts+eps >= s.a && p.ts <= s.b+eps {
				return true
			}
		}
		return false
	}
	ids := make([]uint64, 0, len(flows))
	for id := range flows {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		ps := flows[id]
		if !partial && (ps[0].ph != "s" || ps[len(ps)-1].ph != "f") {
			return fmt.Errorf("flow %d: want s first and f last, got %v", id, ps)
		}
		for k, p := range ps {
			if k > 0 && p.ts+eps < ps[k-1].ts {
				return fmt.Errorf("flow %d: goes back in time: %v", id, ps)
			}
			if !inSlice(p) {
				return fmt.Errorf("flow %d: its %s point at %g µs on pid %d tid %d is in no slice", id, p.ph, p.ts, p.tr.Pid, p.tr.Tid)
			}
		}
	}
	return nil
}

// CheckPackets parses a timeline of a fabric's packets (Packets) and checks each:
// its slice at the source's NIC starts its flow, which ends on a slice at the NIC of the
// node it was sent to, with the same size and the source as its peer; every packet that
// arrived has left. It returns the packets seen, or what is wrong.
func CheckPackets(b []byte) (int, error) {
	evs, err := Parse(b)
	if err != nil {
		return 0, err
	}
	if err := Validate(evs, false); err != nil {
		return 0, err
	}
	type pkt struct {
		tx, rx     *Event
		start, end *Event
	}
	byID := map[uint64]*pkt{}
	get := func(id uint64) *pkt {
		if byID[id] == nil {
			byID[id] = &pkt{}
		}
		return byID[id]
	}
	for i := range evs {
		e := &evs[i]
		switch {
		case e.Ph == "X" && *e.Tid == TidTx:
			get(uint64(e.Int("msg"))).tx = e
		case e.Ph == "X" && *e.Tid >= TidRx && *e.Tid < TidTx:
			get(uint64(e.Int("msg"))).rx = e
		case e.Ph == "s":
			get(*e.ID).start = e
		case e.Ph == "f":
			get(*e.ID).end = e
		}
	}
	for id, p := range byID {
		if p.start != nil && *p.start.Tid != TidTx {
			delete(byID, id) // a message's flow, not a packet's
			continue
		}
		if p.tx == nil || p.start == nil || p.rx == nil || p.end == nil {
			return 0, fmt.Errorf("packet %d: sent %v (flow %v), received %v (flow %v)", id, p.tx, p.start, p.rx, p.end)
		}
		base := *p.tx.Pid - *p.tx.Pid%MachinePids
		if *p.start.Pid != *p.tx.Pid || *p.start.Tid != *p.tx.Tid || *p.end.Pid != *p.rx.Pid || *p.end.Tid != *p.rx.Tid {
			return 0, fmt.Errorf("packet %d: flow from pid %d tid %d to pid %d tid %d, slices at %d/%d and %d/%d", id, *p.start.Pid, *p.start.Tid,
				*p.end.Pid, *p.end.Tid, *p.tx.Pid, *p.tx.Tid, *p.rx.Pid, *p.rx.Tid)
		}
		if base+p.tx.Int("peer") != *p.rx.Pid || base+p.rx.Int("peer") != *p.tx.Pid || p.tx.Int("bytes") != p.rx.Int("bytes") {
			return 0, fmt.Errorf("packet %d: sent %v from pid %d, received %v at pid %d", id, p.tx.Args, *p.tx.Pid, p.rx.Args, *p.rx.Pid)
		}
		if *p.end.Ts < *p.start.Ts {
			return 0, fmt.Errorf("packet %d: arrives at %g µs before it left at %g µs", id, *p.end.Ts, *p.start.Ts)
		}
		// Its flow starts as it leaves, the end of its wait at the head of the queue, and
		// ends as it arrives, the start of its slice at the destination (docs/timeline.md).
		if left := *p.tx.Ts + *p.tx.Dur; math.Abs(*p.start.Ts-left) > eps {
			return 0, fmt.Errorf("packet %d: its flow starts at %g µs, not when it left at %g µs", id, *p.start.Ts, left)
		}
		if math.Abs(*p.end.Ts-*p.rx.Ts) > eps {
			return 0, fmt.Errorf("packet %d: its flow ends at %g µs, not when it arrived at %g µs", id, *p.end.Ts, *p.rx.Ts)
		}
	}
	return len(byID), nil
}
