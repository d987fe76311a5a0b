package apptrace

// The arguments of one liballprof call, by its layout (lapLayouts), as the model's fields.

import (
	"fmt"
	"strings"
)

type lapDecoder struct {
	rd     *lapReader
	r      int
	a      []string
	layout string
	err    error
}

func (d *lapDecoder) fail(err error) {
	if d.err == nil && err != nil {
		d.err = err
	}
}

func (d *lapDecoder) num(i int) uint64 {
	v, err := count(d.a[i])
	d.fail(err)
	return v
}

func (d *lapDecoder) addr(i int) uint64 {
	v, err := address(d.a[i])
	d.fail(err)
	return v
}

// bytes is count field i times the size of datatype field j.
func (d *lapDecoder) bytes(i, j int) uint64 {
	n := d.num(i)
	s, err := typeSize(d.a[j])
	d.fail(err)
	return n * s
}

func (d *lapDecoder) peer(i int) int32 {
	v, err := d.rd.peer(d.a[i])
	d.fail(err)
	return v
}

func (d *lapDecoder) tag(i int) int32 {
	v, err := tagOf(d.a[i])
	d.fail(err)
	return v
}

// counts are count list i times the size of datatype j.
func (d *lapDecoder) counts(i, j int) []uint64 {
	s, err := typeSize(d.a[j])
	d.fail(err)
	var out []uint64
	for _, f := range strings.Split(d.a[i], ",") {
		n, err := count(f)
		d.fail(err)
		out = append(out, n*s)
	}
	return out
}

// newReq makes a request for the variable at address a.
func (d *lapDecoder) newReq(a uint64, persistent bool) uint64 {
	d.rd.nextReq++
	d.rd.reqs[a] = d.rd.nextReq
	if persistent {
		d.rd.persist[a] = true
	} else {
		delete(d.rd.persist, a)
	}
	return d.rd.nextReq
}

// complete is the request of the variable at a, if one is outstanding; a completed
// nonblocking request is gone (its variable becomes MPI_REQUEST_NULL), a persistent one stays.
func (d *lapDecoder) complete(a uint64) (uint64, bool) {
	id, ok := d.rd.reqs[a]
	if ok && !d.rd.persist[a] {
		delete(d.rd.reqs, a)
	}
	return id, ok
}

func (d *lapDecoder) decode(c Call) (Call, error) {
	// The communicator is the layout's C; a call on one whose members are not the world's
	// in order cannot have its peers made world ranks.
	if k := strings.IndexByte(d.layout, 'C'); k >= 0 {
		id, err := d.rd.commOf(d.r, d.a[k])
		if err != nil {
			return c, err
		}
		if id == noComm {
			c.Kind = KOther
			c.Func = c.Func + " on a communicator other than the world's ranks in order (liballprof records no members)"
			return c, nil
		}
		c.Comm = id
	}
	switch c.Func {
	case "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend":
		c.Kind, c.Size, c.Peer, c.Tag = KSend, d.bytes(1, 2), d.peer(3), d.tag(4)
	case "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend":
		c.Kind, c.Size, c.Peer, c.Tag, c.Req = KIsend, d.bytes(1, 2), d.peer(3), d.tag(4), d.newReq(d.addr(6), false)
	case "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init":
		c.Kind, c.Size, c.Peer, c.Tag, c.Req = KSendInit, d.bytes(1, 2), d.peer(3), d.tag(4), d.newReq(d.addr(6), true)
	case "MPI_Recv":
		c.Kind, c.Size, c.Peer, c.Tag = KRecv, d.bytes(1, 2), d.peer(3), d.tag(4)
	case "MPI_Irecv":
		c.Kind, c.Size, c.Peer, c.Tag, c.Req = KIrecv, d.bytes(1, 2), d.peer(3), d.tag(4), d.newReq(d.addr(6), false)
	case "MPI_Recv_init":
		c.Kind, c.Size, c.Peer, c.Tag, c.Req = KRecvInit, d.bytes(1, 2), d.peer(3), d.tag(4), d.newReq(d.addr(6), true)
	case "MPI_Sendrecv":
		c.Kind, c.Size, c.Peer, c.Tag = KSendrecv, d.bytes(1, 2), d.peer(3), d.tag(4)
		c.RecvSize, c.RecvPeer, c.RecvTag = d.bytes(6, 7), d.peer(8), d.tag(9)
	case "MPI_Sendrecv_replace":
		c.Kind, c.Size, c.Peer, c.Tag = KSendrecv, d.bytes(1, 2), d.peer(3), d.tag(4)
		c.RecvSize, c.RecvPeer, c.RecvTag = c.Size, d.peer(5), d.tag(6)
	case "MPI_Probe":
		c.Kind, c.Peer, c.Tag = KProbe, d.peer(0), d.tag(1)
	case "MPI_Mprobe":
		c.Kind, c.Peer, c.Tag = KMprobe, d.peer(0), d.tag(1)
		d.rd.nextReq++
		c.Req = d.rd.nextReq
		d.rd.msgs[d.addr(3)] = c.Req
	case "MPI_Mrecv", "MPI_Imrecv":
		c.Kind, c.Size = KMrecv, d.bytes(1, 2)
		a := d.addr(3)
		id, ok := d.rd.msgs[a]
		if !ok {
			return c, fmt.Errorf("no MPI_Mprobe made the message at %d", a)
		}
		delete(d.rd.msgs, a)
		c.Req = id
		if c.Func == "MPI_Imrecv" {
			c.Reqs = []uint64{d.newReq(d.addr(4), false)}
		}
	case "MPI_Wait":
		c.Kind = KComplete
		if id, ok := d.complete(d.addr(0)); ok {
			c.Reqs = []uint64{id}
		}
	case "MPI_Waitall":
		c.Kind = KComplete
		n, base, stride := d.num(0), d.addr(1), d.rd.lib.requestSize()
		for i := uint64(0); i < n; i++ {
			if id, ok := d.complete(base + i*stride); ok {
				c.Reqs = append(c.Reqs, id)
			}
		}
	case "MPI_Start":
		c.Kind = KStart
		if id, ok := d.rd.reqs[d.addr(0)]; ok {
			c.Reqs = []uint64{id}
		} else {
			return c, fmt.Errorf("MPI_Start of a request no MPI_Send_init or MPI_Recv_init made (its variable at %s)", d.a[0])
		}
	case "MPI_Startall":
		c.Kind = KStart
		n, base, stride := d.num(0), d.addr(1), d.rd.lib.requestSize()
		for i := uint64(0); i < n; i++ {
			id, ok := d.rd.reqs[base+i*stride]
			if !ok {
				return c, fmt.Errorf("MPI_Startall of a request no MPI_Send_init or MPI_Recv_init made (its variable at %d)", base+i*stride)
			}
			c.Reqs = append(c.Reqs, id)
		}
	case "MPI_Cancel":
		c.Kind = KCancel
		id, ok := d.rd.reqs[d.addr(0)]
		if !ok {
			c.Kind = KNop // a request already complete: nothing to cancel
		}
		c.Req = id
	case "MPI_Request_free":
		c.Kind = KRequestFree
		a := d.addr(0)
		id, ok := d.rd.reqs[a]
		if !ok {
			c.Kind = KNop
		}
		delete(d.rd.reqs, a)
		delete(d.rd.persist, a)
		c.Req = id
	default:
		d.coll(&c)
	}
	return c, d.err
}

// coll decodes a collective (lapColls) into Size, Counts and Root.
func (d *lapDecoder) coll(c *Call) {
	c.Kind, c.Coll = KColl, lapColls[c.Func]
	switch c.Coll {
	case Barrier:
	case Bcast:
		c.Size, c.Root = d.bytes(1, 2), d.peer(3)
	case Reduce:
		c.Size, c.Root = d.bytes(2, 3), d.peer(5)
	case Allreduce, ReduceScatterB, Scan, Exscan:
		c.Size = d.bytes(2, 3)
	case Gather:
		c.Size, c.Root = d.bytes(1, 2), d.peer(6)
	case Scatter:
		c.Size, c.Root = d.bytes(4, 5), d.peer(6)
	case Allgather, Alltoall:
		c.Size = d.bytes(1, 2)
	case Gatherv:
		c.Size, c.Root = d.bytes(1, 2), d.peer(7)
		if c.Root == int32(d.r) {
			c.Counts = d.counts(4, 6)
		}
	case Scatterv:
		c.Size, c.Root = d.bytes(5, 6), d.peer(7)
		if c.Root == int32(d.r) {
			c.Counts = d.counts(1, 3)
		}
	case Allgatherv:
		c.Size, c.Counts = d.bytes(1, 2), d.counts(4, 6)
	case Alltoallv:
		c.Counts = append(d.counts(1, 3), d.counts(5, 7)...)
	}
	if c.Root < 0 && c.Coll != Barrier && (c.Coll == Bcast || c.Coll == Reduce || c.Coll == Gather || c.Coll == Scatter || c.Coll == Gatherv || c.Coll == Scatterv) {
		d.fail(fmt.Errorf("root %d: want a rank", c.Root))
	}
	if c.Counts != nil && len(c.Counts)%d.rd.world != 0 {
		d.fail(fmt.Errorf("%d counts for a communicator of %d ranks", len(c.Counts), d.rd.world))
	}
}
