/* lhsim's MPI tracer (docs/apps.md): the runtime the generated wrappers (lht_wrappers.c) use. */
#ifndef LHT_H
#define LHT_H

#include <mpi.h>
#include <stdint.h>

/* The records lht.c writes itself; calls.txt's functions follow from LHT_F_FIRST. */
enum {
	LHT_F_END = 0,       /* the last record: how many records came before it */
	LHT_F_COMM = 1,      /* a communicator first seen in a call, not made by a traced one */
	LHT_F_INIT = 2,
	LHT_F_INIT_THREAD = 3,
	LHT_F_FINALIZE = 4,
	LHT_F_POLLS = 5,     /* how many polls that found nothing came before the next record */
	LHT_F_FIRST = 6,
};

extern const char *const lht_func_names[];
extern const int lht_nfuncs;

/* A communicator the tracer knows: its id in the trace (the same at every member), its size,
 * this rank's rank in it, and its members' world ranks (NULL: it is MPI_COMM_WORLD). */
struct lht_comm {
	uint64_t key; /* the handle's bits; 0: a free slot */
	uint64_t id;
	int size, rank;
	int *world;
};

struct lht_state {
	int on;                /* between MPI_Init and MPI_Finalize, and the trace file is open */
	int fd;
	int rank, size;
	uint64_t last_exit;    /* thread CPU time when the last traced call returned (ns) */
	uint64_t records;
	uint64_t polls;        /* Tests and probes that found nothing since the last record */
	uint64_t null_req, null_freq; /* MPI_REQUEST_NULL's value in C and in Fortran */
	unsigned char *p;      /* where the record being written goes */
	unsigned char *committed; /* the end of the last whole record */
};

extern struct lht_state lht;
extern unsigned char lht_buf[];

#define lht_handle(h) ((uint64_t)(uintptr_t)(h))
#define lht_fhandle(h) ((uint64_t)(int64_t)(h))

uint64_t lht_enter(void);
void lht_exit(void);
void lht_begin(int fid, uint64_t cpu, uint64_t nfields);
void lht_end(void);
struct lht_comm *lht_comm(MPI_Comm c);
void lht_forget(MPI_Comm c);
void lht_newcomm(int fid, uint64_t cpu, MPI_Comm parent, MPI_Comm made);
uint64_t *lht_scratch(int n);
uint64_t lht_tsize(MPI_Datatype t);
uint64_t lht_cancel_outcome(MPI_Request r);

static inline void lht_u(uint64_t v)
{
	unsigned char *p = lht.p;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	lht.p = p;
}

/* Signed fields zigzag, as protobuf's sint64: small negatives stay one byte. */
static inline void lht_i(int64_t v)
{
	lht_u(((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline int64_t lht_peer(const struct lht_comm *c, int r)
{
	if (r == MPI_ANY_SOURCE)
		return -1;
	if (r == MPI_PROC_NULL)
		return -2;
	if (r < 0 || r >= c->size)
		return -3; /* not a rank of c: the call failed */
	return c->world ? c->world[r] : r;
}

static inline int64_t lht_tag(int t)
{
	return t == MPI_ANY_TAG ? -1 : t;
}

static inline uint64_t lht_bytes(int count, MPI_Datatype t)
{
	return count > 0 ? (uint64_t)count * lht_tsize(t) : 0;
}

#endif
