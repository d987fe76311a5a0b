package mbcf

import "github.com/lhsim/lhsim/netsim"

// job is kernel work on a node's CPU: a system call or an interrupt routine. run happens when
// the CPU takes the job: it changes the kernel's state and memory and returns the job's cost;
// after, if any, runs when the cost has passed (the frames the routine sends leave then). No
// user code runs in between (user code runs only while the kernel is idle), so a memory
// change made at the start is seen by users at the end, as it would be.
type job struct {
	what string
	run  func(now netsim.Time) (cost netsim.Time, after func(now netsim.Time))
}

// cpu is a node's one processor. Kernel jobs run one at a time, first come first served, and
// preempt the users' computation; when the last one is done the CPU goes back to the users.
type cpu struct {
	n      *Node
	q      []job
	busy   bool
	kernel netsim.Time // time spent in kernel jobs

	computing  []*Task // tasks with computation left, in order
	slice      *Task   // the one running, since sliceStart
	sliceStart netsim.Time
	sliceGen   uint64
}

func (c *cpu) eng() *netsim.Engine { return c.n.s.eng }

// isBusy reports whether the kernel holds the CPU (the users' programs wait).
func (c *cpu) isBusy() bool { return c.busy }

// submit queues a kernel job at now.
func (c *cpu) submit(now netsim.Time, j job) {
	c.q = append(c.q, j)
	if !c.busy {
		c.preempt(now)
		c.next(now)
	}
}

func (c *cpu) next(now netsim.Time) {
	if len(c.q) == 0 {
		c.busy = false
		c.toUsers(now)
		return
	}
	j := c.q[0]
	c.q[0] = job{}
	c.q = c.q[1:]
	c.busy = true
	n := c.n
	n.posted, n.accepted = n.posted[:0], 0
	cost, after := j.run(now)
	c.kernel += cost
	if t := n.s.tr; t != nil {
		t.Kernel(int(n.id), j.what, now, now+cost, n.posted, n.accepted)
	}
	c.eng().At(now+cost, netsim.Func(func(t netsim.Time, _ int64) {
		if after != nil {
			after(t)
		}
		c.next(t)
	}), 0)
}

// preempt stops the user computation running, keeping what is left of it.
func (c *cpu) preempt(now netsim.Time) {
	if c.slice != nil {
		c.slice.computeLeft -= now - c.sliceStart
		c.slice = nil
		c.sliceGen++
	}
}

// toUsers is the kernel going idle: the users' waits are looked at and computation resumes.
func (c *cpu) toUsers(now netsim.Time) {
	c.n.wakeTasks(now)
	c.runSlice(now)
}

// compute queues t's computation (t.computeLeft) and runs it when the CPU is the users'.
func (c *cpu) compute(now netsim.Time, t *Task) {
	c.computing = append(c.computing, t)
	c.runSlice(now)
}

func (c *cpu) runSlice(now netsim.Time) {
	if c.busy || c.slice != nil || len(c.computing) == 0 {
		return
	}
	t := c.computing[0]
	c.slice, c.sliceStart = t, now
	c.sliceGen++
	gen := c.sliceGen
	c.eng().At(now+t.computeLeft, netsim.Func(func(at netsim.Time, _ int64) {
		if c.sliceGen != gen {
			return
		}
		t.computeLeft = 0
		c.slice = nil
		c.computing = c.computing[1:]
		t.wake(at)
		c.runSlice(at)
	}), 0)
}
