package lhsnic

// When the network learns that a receive path took a message.

import "github.com/lhsim/lhsim/netsim"

// taken tells done that the message was taken whole at t (Config.TakenAtTime).
func (n *Node) taken(done func(now netsim.Time), t netsim.Time) {
	if !n.cfg.TakenAtTime {
		done(t)
		return
	}
	t = max(t, n.eng.Now()) // (a cycle run late, on a host access after a held-off wait)
	h := netsim.Func(func(now netsim.Time, _ int64) { done(now) })
	if n.cfg.TakenKeys != nil {
		n.eng.AtKey(t, n.cfg.TakenKeys.Next(), h, 0)
		return
	}
	n.eng.At(t, h, 0)
}
