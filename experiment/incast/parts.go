package incast

// The experiment's runs as parts (lhsim incast --jobs, --slurm), and their merge.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/lhsim/lhsim/experiment"
)

// same says which Speed rows received every message when the LHS-on run did, with its stalls.
func (r *Result) same() {
	for i := range r.Speed {
		s := &r.Speed[i]
		s.Same = r.On.Done != nil && slices.Equal(s.done, r.On.Done) && s.StallCycles == r.On.StallCycles
	}
}

// Parts are the experiment's runs, one each (LHS on, LHS off, each Speed row): they build
// their own machines and may run at once (lhsim incast --jobs). Each tells Progress (when
// set) of its one run.
func (cfg Config) Parts() []experiment.Part[Config] {
	return experiment.Split(cfg, cfg.plan(), func(k string) string { return k }, func(c *Config, k string) { c.Runs = []string{k} })
}

// Merge puts the parts' results (in Parts order) together into the whole run's.
func (cfg Config) Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("incast: no parts to merge")
	}
	for _, p := range parts { // read back from JSON, a part has its times here alone
		if t := p.Part; t != nil {
			p.On.Done, p.Off.Done = t.On, t.Off
			for i := range min(len(p.Speed), len(t.Speed)) {
				p.Speed[i].done = t.Speed[i]
			}
		}
	}
	res := *parts[0]
	res.Speed, res.Part = nil, nil
	for i, p := range parts {
		if p.Topology != res.Topology || p.Receivers != res.Receivers || p.Host != res.Host {
			return nil, fmt.Errorf("incast: part %d is of another run (%s, %d receivers, host %s)", i, p.Topology, p.Receivers, p.Host)
		}
		if p.On.Done != nil {
			res.On = p.On
		}
		if p.Off.Done != nil {
			res.Off = p.Off
		}
		res.Speed = append(res.Speed, p.Speed...)
		if p.SpeedNote != "" {
			res.SpeedNote = p.SpeedNote
		}
	}
	res.same()
	return &res, nil
}
