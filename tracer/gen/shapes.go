package main

// The record templates, one per shape of calls.txt: C run in the wrapper before the PMPI call
// (pre, to keep what the call overwrites: the requests a Wait frees) and after it (post, which
// writes the record: lht_begin(function, cpu, fields), the fields, lht_end). $name is the
// parameter's value (in C or converted from Fortran), $name[i] an array's element. The fields
// of each shape are the trace format's (docs/apps.md), read by apptrace/read.go.
type shape struct {
	pre, post string
	// nothing, for a poll, is true after the call when it completed or found nothing: then
	// it writes no record (lht.polls counts it) and reads no clock.
	nothing string
}

const p2pFields = `lht_u(c->id);
lht_i(lht_tag($tag));
`

// commFirst finds the communicator before the record begins: a communicator seen for the first
// time writes a record of its own.
const commFirst = "struct lht_comm *c = lht_comm($comm);\n"

// copyReqs keeps the values of an array of requests, which the call may set to MPI_REQUEST_NULL.
const copyReqs = `int n = $count;
uint64_t *pre = lht_scratch(n);
for (int i = 0; i < n; i++)
	pre[i] = $array_of_requests[i];
`

const copySomeReqs = `int n = $incount;
uint64_t *pre = lht_scratch(n);
for (int i = 0; i < n; i++)
	pre[i] = $array_of_requests[i];
`

const someDone = `int m = $outcount;
if (m == MPI_UNDEFINED || m < 0 || m > n)
	m = 0;
lht_begin($FID, cpu, 1 + m);
lht_u(m);
for (int i = 0; i < m; i++) {
	int j = $array_of_indices[i];
	lht_u(j >= 0 && j < n ? pre[j] : 0);
}
lht_end();
`

// coll writes a collective's fields: communicator, root (a world rank or -1), size, and n
// counts (written by the code that follows).
func coll(root, size, n string) string {
	return `lht_begin($FID, cpu, 4 + ` + n + `);
lht_u(c->id);
lht_i(` + root + `);
lht_u(` + size + `);
lht_u(` + n + `);
`
}

const collComm = "struct lht_comm *c = lht_comm($comm);\nint me = c->rank;\n(void)me;\n"

var shapes = map[string]shape{
	"send": {post: commFirst + `lht_begin($FID, cpu, 4);
` + p2pFields + `lht_i(lht_peer(c, $dest));
lht_u(lht_bytes($count, $datatype));
lht_end();
`},
	"recv": {post: commFirst + `lht_begin($FID, cpu, 4);
` + p2pFields + `lht_i(lht_peer(c, $source));
lht_u(lht_bytes($count, $datatype));
lht_end();
`},
	"isend": {post: commFirst + `lht_begin($FID, cpu, 5);
` + p2pFields + `lht_i(lht_peer(c, $dest));
lht_u(lht_bytes($count, $datatype));
lht_u($request);
lht_end();
`},
	"irecv": {post: commFirst + `lht_begin($FID, cpu, 5);
` + p2pFields + `lht_i(lht_peer(c, $source));
lht_u(lht_bytes($count, $datatype));
lht_u($request);
lht_end();
`},
	"sendrecv": {post: `struct lht_comm *c = lht_comm($comm);
lht_begin($FID, cpu, 7);
lht_u(c->id);
lht_i(lht_peer(c, $dest));
lht_i(lht_tag($sendtag));
lht_u(lht_bytes($sendcount, $sendtype));
lht_i(lht_peer(c, $source));
lht_i(lht_tag($recvtag));
lht_u(lht_bytes($recvcount, $recvtype));
lht_end();
`},
	"sendrecvreplace": {post: `struct lht_comm *c = lht_comm($comm);
uint64_t size = lht_bytes($count, $datatype);
lht_begin($FID, cpu, 7);
lht_u(c->id);
lht_i(lht_peer(c, $dest));
lht_i(lht_tag($sendtag));
lht_u(size);
lht_i(lht_peer(c, $source));
lht_i(lht_tag($recvtag));
lht_u(size);
lht_end();
`},
	// A probe's fields: communicator, tag, source, found (1 for the blocking ones), message.
	"probe": {post: commFirst + `lht_begin($FID, cpu, 5);
` + p2pFields + `lht_i(lht_peer(c, $source));
lht_u(1);
lht_u(0);
lht_end();
`},
	"iprobe": {nothing: "!$flag", post: commFirst + `lht_begin($FID, cpu, 5);
` + p2pFields + `lht_i(lht_peer(c, $source));
lht_u($flag != 0);
lht_u(0);
lht_end();
`},
	"mprobe": {post: commFirst + `lht_begin($FID, cpu, 5);
` + p2pFields + `lht_i(lht_peer(c, $source));
lht_u(1);
lht_u($message);
lht_end();
`},
	"improbe": {nothing: "!$flag", post: commFirst + `lht_begin($FID, cpu, 5);
` + p2pFields + `lht_i(lht_peer(c, $source));
lht_u($flag != 0);
lht_u($flag ? $message : 0);
lht_end();
`},
	// Mrecv: size, message; Imrecv: and the request it makes.
	"mrecv": {pre: "uint64_t msg = $message;\n", post: `lht_begin($FID, cpu, 2);
lht_u(lht_bytes($count, $type));
lht_u(msg);
lht_end();
`},
	"imrecv": {pre: "uint64_t msg = $message;\n", post: `lht_begin($FID, cpu, 3);
lht_u(lht_bytes($count, $type));
lht_u(msg);
lht_u($request);
lht_end();
`},
	// The completions: how many requests completed, then each.
	"wait": {pre: "uint64_t r0 = $request;\n", post: `int k = r0 != $NULLREQ;
lht_begin($FID, cpu, 1 + k);
lht_u(k);
if (k)
	lht_u(r0);
lht_end();
`},
	"test": {pre: "uint64_t r0 = $request;\n", nothing: "r0 == $NULLREQ || !$flag", post: `int k = r0 != $NULLREQ && $flag;
lht_begin($FID, cpu, 1 + k);
lht_u(k);
if (k)
	lht_u(r0);
lht_end();
`},
	"waitall": {pre: copyReqs, post: `int k = 0;
for (int i = 0; i < n; i++)
	if (pre[i] != $NULLREQ)
		pre[k++] = pre[i];
lht_begin($FID, cpu, 1 + k);
lht_u(k);
for (int i = 0; i < k; i++)
	lht_u(pre[i]);
lht_end();
`},
	"testall": {pre: copyReqs, nothing: "!$flag", post: `int k = 0;
for (int i = 0; $flag && i < n; i++)
	if (pre[i] != $NULLREQ)
		pre[k++] = pre[i];
lht_begin($FID, cpu, 1 + k);
lht_u(k);
for (int i = 0; i < k; i++)
	lht_u(pre[i]);
lht_end();
`},
	"waitany": {pre: copyReqs, post: `int j = $index;
int k = j != MPI_UNDEFINED && j >= 0 && j < n;
lht_begin($FID, cpu, 1 + k);
lht_u(k);
if (k)
	lht_u(pre[j]);
lht_end();
`},
	"testany": {pre: copyReqs, nothing: "!$flag || $index == MPI_UNDEFINED", post: `int j = $index;
int k = $flag && j != MPI_UNDEFINED && j >= 0 && j < n;
lht_begin($FID, cpu, 1 + k);
lht_u(k);
if (k)
	lht_u(pre[j]);
lht_end();
`},
	"waitsome": {pre: copySomeReqs, post: someDone},
	"testsome": {pre: copySomeReqs, nothing: "$outcount == 0 || $outcount == MPI_UNDEFINED", post: someDone},
	// Cancel: the request, and whether the cancel took effect (lht_cancel_outcome: 1 it did,
	// 2 it failed, the request having completed as it would have, 0 not known): a receive whose
	// cancel failed matched a message, which the schedule must keep.
	"cancel": {post: `uint64_t outcome = lht_cancel_outcome($CREQUEST);
lht_begin($FID, cpu, 2);
lht_u($request);
lht_u(outcome);
lht_end();
`},
	"requestfree": {pre: "uint64_t r0 = $request;\n", post: `lht_begin($FID, cpu, 1);
lht_u(r0);
lht_end();
`},
	// Start and Startall: how many requests, then each.
	"start": {pre: "uint64_t r0 = $request;\n", post: `lht_begin($FID, cpu, 2);
lht_u(1);
lht_u(r0);
lht_end();
`},
	"startall": {pre: copyReqs, post: `lht_begin($FID, cpu, 1 + n);
lht_u(n);
for (int i = 0; i < n; i++)
	lht_u(pre[i]);
lht_end();
`},
	"barrier":   {post: collComm + coll("-1", "0", "0") + "lht_end();\n"},
	"bcast":     {post: collComm + coll("lht_peer(c, $root)", "lht_bytes($count, $datatype)", "0") + "lht_end();\n"},
	"reduce":    {post: collComm + coll("lht_peer(c, $root)", "lht_bytes($count, $datatype)", "0") + "lht_end();\n"},
	"allreduce": {post: collComm + coll("-1", "lht_bytes($count, $datatype)", "0") + "lht_end();\n"},
	"scan":      {post: collComm + coll("-1", "lht_bytes($count, $datatype)", "0") + "lht_end();\n"},
	"exscan":    {post: collComm + coll("-1", "lht_bytes($count, $datatype)", "0") + "lht_end();\n"},
	"gather": {post: collComm + "uint64_t sz = me == $root ? lht_bytes($recvcount, $recvtype) : lht_bytes($sendcount, $sendtype);\n" +
		coll("lht_peer(c, $root)", "sz", "0") + "lht_end();\n"},
	"scatter": {post: collComm + "uint64_t sz = me == $root ? lht_bytes($sendcount, $sendtype) : lht_bytes($recvcount, $recvtype);\n" +
		coll("lht_peer(c, $root)", "sz", "0") + "lht_end();\n"},
	"allgather": {post: collComm + coll("-1", "lht_bytes($recvcount, $recvtype)", "0") + "lht_end();\n"},
	"alltoall":  {post: collComm + coll("-1", "lht_bytes($recvcount, $recvtype)", "0") + "lht_end();\n"},
	"gatherv": {post: collComm + `int isroot = me == $root;
int n = isroot ? c->size : 0;
uint64_t ts = lht_tsize($recvtype);
uint64_t sz = isroot ? (uint64_t)$recvcounts[me] * ts : lht_bytes($sendcount, $sendtype);
` + coll("lht_peer(c, $root)", "sz", "n") + `for (int i = 0; i < n; i++)
	lht_u((uint64_t)$recvcounts[i] * ts);
lht_end();
`},
	"scatterv": {post: collComm + `int isroot = me == $root;
int n = isroot ? c->size : 0;
uint64_t ts = lht_tsize($sendtype);
uint64_t sz = isroot ? (uint64_t)$sendcounts[me] * ts : lht_bytes($recvcount, $recvtype);
` + coll("lht_peer(c, $root)", "sz", "n") + `for (int i = 0; i < n; i++)
	lht_u((uint64_t)$sendcounts[i] * ts);
lht_end();
`},
	"allgatherv": {post: collComm + `int n = c->size;
uint64_t ts = lht_tsize($recvtype);
` + coll("-1", "(uint64_t)$recvcounts[me] * ts", "n") + `for (int i = 0; i < n; i++)
	lht_u((uint64_t)$recvcounts[i] * ts);
lht_end();
`},
	"alltoallv": {post: collComm + `int n = c->size;
int inplace = $INPLACE(sendbuf);
uint64_t sts = lht_tsize(inplace ? $recvtype : $sendtype), rts = lht_tsize($recvtype);
` + coll("-1", "0", "2 * n") + `for (int i = 0; i < n; i++)
	lht_u((uint64_t)(inplace ? $recvcounts[i] : $sendcounts[i]) * sts);
for (int i = 0; i < n; i++)
	lht_u((uint64_t)$recvcounts[i] * rts);
lht_end();
`},
	"reducescatter": {post: collComm + `int n = c->size;
uint64_t ts = lht_tsize($datatype);
` + coll("-1", "(uint64_t)$recvcounts[me] * ts", "n") + `for (int i = 0; i < n; i++)
	lht_u((uint64_t)$recvcounts[i] * ts);
lht_end();
`},
	"reducescatterblock": {post: collComm + coll("-1", "lht_bytes($recvcount, $datatype)", "0") + "lht_end();\n"},
	// A new communicator: lht_newcomm gives it an id all its members agree on and writes
	// parent, id and members.
	"commcreate": {post: "lht_newcomm($FID, cpu, $PARENT, $NEWCOMM);\n"},
	"commfree": {pre: "uint64_t id = lht_comm($comm)->id;\nlht_forget($comm);\n", post: `lht_begin($FID, cpu, 1);
lht_u(id);
lht_end();
`},
	// A call the conversion does not take: only that it happened.
	"other": {post: "lht_begin($FID, cpu, 0);\nlht_end();\n"},
}
