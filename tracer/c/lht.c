/* lhsim's MPI tracer (docs/apps.md): a PMPI library preloaded into every rank of an MPI program
 * by lhsim goal record. Each rank streams its calls into LHSIM_TRACE_DIR/rank-R.lht through one
 * buffer: a record is written in place (no allocation per call) and the buffer goes to the file
 * when it is full, at MPI_Finalize, at exit, and on the signals that end a rank (the records
 * whole by then), so a rank killed midway leaves what it did. Between calls it keeps the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the computation a rank did, not its waiting,
 * even oversubscribed. Without LHSIM_TRACE_DIR it records nothing. */
#include "lht.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LHT_BUF (1 << 20)

struct lht_state lht = {.fd = -1};
static unsigned char lht_static_buf[LHT_BUF];
static unsigned char *buf_base = lht_static_buf;
static size_t buf_cap = LHT_BUF;

/* Communicators by handle: open addressing, tombstones for freed ones. */
#define LHT_COMMS 4096
static struct lht_comm comms[LHT_COMMS];
static unsigned char comm_used[LHT_COMMS]; /* 0 free, 1 used, 2 freed */
static struct lht_comm world_comm;
static uint64_t comms_made;

static uint64_t scratch_static[4096];
static uint64_t *scratch = scratch_static;
static size_t scratch_cap = 4096;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t lht_enter(void)
{
	uint64_t t = now_ns();
	return t > lht.last_exit ? t - lht.last_exit : 0;
}

void lht_exit(void)
{
	lht.last_exit = now_ns();
}

/* write_all is async-signal-safe: the signal handlers call it. */
static void write_all(const unsigned char *p, size_t n)
{
	while (n > 0 && lht.fd >= 0) {
		ssize_t w = write(lht.fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(lht.fd);
			lht.fd = -1; /* the disk is full or gone: stop, the trace ends here */
			lht.on = 0;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void flush(void)
{
	write_all(buf_base, (size_t)(lht.committed - buf_base));
	lht.p = lht.committed = buf_base;
}

void lht_begin(int fid, uint64_t cpu, uint64_t nfields)
{
	/* Every field is a varint of at most 10 bytes; with function, cpu and count, and the
	 * polls' record that may come first. */
	size_t need = 10 * ((size_t)nfields + 3) + 40;
	if ((size_t)(lht.p - buf_base) + need > buf_cap) {
		flush();
		if (need > buf_cap) { /* one huge record (a Waitall of 100,000 requests): once */
			unsigned char *b = malloc(need);
			if (b) {
				if (buf_base != lht_static_buf)
					free(buf_base);
				buf_base = b;
				buf_cap = need;
				lht.p = lht.committed = b;
			}
		}
	}
	if (lht.polls > 0) {
		lht_u(LHT_F_POLLS);
		lht_u(0);
		lht_u(1);
		lht_u(lht.polls);
		lht.polls = 0;
		lht_end();
	}
	lht_u((uint64_t)fid);
	lht_u(cpu);
	lht_u(nfields);
}

void lht_end(void)
{
	lht.committed = lht.p;
	lht.records++;
}

uint64_t *lht_scratch(int n)
{
	if (n > 0 && (size_t)n > scratch_cap) {
		uint64_t *s = malloc((size_t)n * sizeof *s);
		if (s) {
			if (scratch != scratch_static)
				free(scratch);
			scratch = s;
			scratch_cap = (size_t)n;
		}
	}
	return scratch;
}

uint64_t lht_tsize(MPI_Datatype t)
{
	int s = 0;
	if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS || s < 0)
		return 0;
	return (uint64_t)s;
}

/* lht_cancel_outcome says whether MPI_Cancel of r took effect: 1 it did, 2 it failed (the
 * request completed as it would have: a receive matched a message, which the conversion must
 * keep), 0 not known. MPI completes a cancelled request locally, whatever the other ranks do,
 * so the tracer polls its status here (without freeing it: the program's own Wait or Test
 * still completes it) and asks MPI_Test_cancelled, as the program itself seldom does (HPCC
 * waits with MPI_STATUS_IGNORE). The polls are bounded: a send whose cancel the library
 * ignores (Open MPI's) may wait on its receiver; that outcome is then not known. */
#define LHT_CANCEL_POLLS 100000
uint64_t lht_cancel_outcome(MPI_Request r)
{
	if (r == MPI_REQUEST_NULL)
		return 0;
	for (int i = 0; i < LHT_CANCEL_POLLS; i++) {
		int done = 0, cancelled = 0;
		MPI_Status st;
		if (PMPI_Request_get_status(r, &done, &st) != MPI_SUCCESS)
			return 0;
		if (done)
			return PMPI_Test_cancelled(&st, &cancelled) == MPI_SUCCESS ? (cancelled ? 1 : 2) : 0;
	}
	return 0;
}

static size_t slot_of(uint64_t key)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (size_t)(key % LHT_COMMS);
}

static struct lht_comm *find(uint64_t key)
{
	for (size_t i = slot_of(key), n = 0; n < LHT_COMMS; i = (i + 1) % LHT_COMMS, n++) {
		if (comm_used[i] == 0)
			return NULL;
		if (comm_used[i] == 1 && comms[i].key == key)
			return &comms[i];
	}
	return NULL;
}

static struct lht_comm *insert(uint64_t key)
{
	for (size_t i = slot_of(key), n = 0; n < LHT_COMMS; i = (i + 1) % LHT_COMMS, n++) {
		if (comm_used[i] != 1) {
			comm_used[i] = 1;
			memset(&comms[i], 0, sizeof comms[i]);
			comms[i].key = key;
			return &comms[i];
		}
	}
	return NULL;
}

/* members fills c's size, rank and members' world ranks. */
static void members(struct lht_comm *c, MPI_Comm h)
{
	MPI_Group g, wg;
	PMPI_Comm_size(h, &c->size);
	PMPI_Comm_rank(h, &c->rank);
	c->world = malloc((size_t)c->size * sizeof(int));
	int *local = malloc((size_t)c->size * sizeof(int));
	if (!c->world || !local) {
		free(local);
		free(c->world);
		c->world = NULL;
		c->size = 0;
		return;
	}
	for (int i = 0; i < c->size; i++)
		local[i] = i;
	PMPI_Comm_group(h, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_translate_ranks(g, c->size, local, wg, c->world);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	free(local);
}

static void write_comm(int fid, uint64_t cpu, uint64_t parent, const struct lht_comm *c)
{
	lht_begin(fid, cpu, 3 + (uint64_t)c->size);
	lht_u(parent);
	lht_u(c->id);
	lht_u((uint64_t)c->size);
	for (int i = 0; i < c->size; i++)
		lht_i(c->world ? c->world[i] : i);
	lht_end();
}

/* lht_comm finds a communicator; one made by a call the tracer does not take apart
 * (MPI_COMM_SELF, MPI_Intercomm_merge, ...) gets an id from its members (FNV-1a of their world
 * ranks: the same at each of them) and an LHT_Comm record. */
struct lht_comm *lht_comm(MPI_Comm h)
{
	if (h == MPI_COMM_WORLD)
		return &world_comm;
	uint64_t key = lht_handle(h);
	struct lht_comm *c = find(key);
	if (c)
		return c;
	static struct lht_comm none = {.id = ~0ull};
	int inter = 0;
	if (h == MPI_COMM_NULL || PMPI_Comm_test_inter(h, &inter) != MPI_SUCCESS || inter)
		return &none;
	c = insert(key);
	if (!c)
		return &none;
	members(c, h);
	uint64_t f = 0xcbf29ce484222325ull;
	for (int i = 0; i < c->size; i++) {
		f ^= (uint64_t)(uint32_t)c->world[i];
		f *= 0x100000001b3ull;
	}
	c->id = (1ull << 62) | (f >> 2);
	write_comm(LHT_F_COMM, 0, 0, c);
	return c;
}

void lht_forget(MPI_Comm h)
{
	uint64_t key = lht_handle(h);
	struct lht_comm *c = find(key);
	if (c) {
		free(c->world);
		c->world = NULL;
		comm_used[c - comms] = 2;
	}
}

/* lht_newcomm records a communicator a traced call made. Its id is its first member's world
 * rank and count of communicators made there, sent to the others over the new communicator
 * (one PMPI_Bcast, not traced), so that every member names it alike. */
void lht_newcomm(int fid, uint64_t cpu, MPI_Comm parent, MPI_Comm made)
{
	struct lht_comm *p = lht_comm(parent);
	int inter = 0;
	if (made == MPI_COMM_NULL || PMPI_Comm_test_inter(made, &inter) != MPI_SUCCESS || inter) {
		struct lht_comm none = {.id = ~0ull};
		write_comm(fid, cpu, p->id, &none);
		return;
	}
	lht_forget(made); /* a handle MPI reuses */
	struct lht_comm *c = insert(lht_handle(made));
	if (!c)
		return;
	members(c, made);
	uint64_t id = 0;
	if (c->rank == 0)
		id = ((uint64_t)(lht.rank + 1) << 32) | ++comms_made;
	PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, made);
	c->id = id;
	write_comm(fid, cpu, p->id, c);
}

static void header(const char *lib)
{
	static const unsigned char magic[8] = {'L', 'H', 'T', 'R', 'A', 'C', 'E', 1};
	memcpy(lht.p, magic, 8);
	lht.p += 8;
	lht_u(1); /* version */
	lht_u((uint64_t)lht.rank);
	lht_u((uint64_t)lht.size);
	size_t n = strcspn(lib, "\n");
	if (n > 200)
		n = 200;
	lht_u(n);
	memcpy(lht.p, lib, n);
	lht.p += n;
	lht_u((uint64_t)lht_nfuncs);
	for (int i = 0; i < lht_nfuncs; i++) {
		size_t k = strlen(lht_func_names[i]);
		lht_u(k);
		memcpy(lht.p, lht_func_names[i], k);
		lht.p += k;
	}
	lht.committed = lht.p;
}

static const int fatal[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGUSR1, SIGUSR2};
static struct sigaction old_actions[sizeof fatal / sizeof fatal[0]];

/* on_fatal writes the whole records and lets the signal do what it did before. */
static void on_fatal(int sig)
{
	write_all(buf_base, (size_t)(lht.committed - buf_base));
	lht.p = lht.committed = buf_base;
	lht.on = 0;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		if (fatal[i] == sig)
			sigaction(sig, &old_actions[i], NULL);
	raise(sig);
}

static void at_exit(void)
{
	if (lht.fd >= 0)
		flush();
}

/* A child the rank forks (and that does not exec) must not write the parent's records again. */
static void in_child(void)
{
	lht.fd = -1;
	lht.on = 0;
}

static void start(int fid)
{
	const char *dir = getenv("LHSIM_TRACE_DIR");
	if (!dir || !*dir || lht.on)
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &lht.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &lht.size);
	world_comm.id = 0;
	world_comm.size = lht.size;
	world_comm.rank = lht.rank;
	char path[4096];
	snprintf(path, sizeof path, "%s/rank-%d.lht", dir, lht.rank);
	lht.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (lht.fd < 0) {
		fprintf(stderr, "lhsim tracer: rank %d: %s: %s\n", lht.rank, path, strerror(errno));
		return;
	}
	char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int len = 0;
	PMPI_Get_library_version(lib, &len);
	lht.p = lht.committed = buf_base;
	header(lib);
	lht.null_req = lht_handle(MPI_REQUEST_NULL);
	lht.null_freq = lht_fhandle(PMPI_Request_c2f(MPI_REQUEST_NULL));
	lht_begin(fid, 0, 0);
	lht_end();
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal[i], &sa, &old_actions[i]);
	}
	atexit(at_exit);
	pthread_atfork(NULL, NULL, in_child);
	lht.on = 1;
	lht_exit();
}

static void finish(void)
{
	if (!lht.on)
		return;
	uint64_t cpu = lht_enter();
	lht_begin(LHT_F_FINALIZE, cpu, 0);
	lht_end();
	uint64_t n = lht.records;
	lht_begin(LHT_F_END, 0, 1);
	lht_u(n);
	lht_end();
	lht.on = 0;
	flush();
	close(lht.fd);
	lht.fd = -1;
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);
	start(LHT_F_INIT);
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	start(LHT_F_INIT_THREAD);
	return rc;
}

int MPI_Finalize(void)
{
	finish();
	return PMPI_Finalize();
}

#ifdef LHT_FORTRAN
/* Open MPI's Fortran MPI_INIT calls PMPI_Init itself: these are its entry points. */
extern void pmpi_init_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_finalize_(MPI_Fint *ierr) __attribute__((weak));

void mpi_init_(MPI_Fint *ierr)
{
	pmpi_init_(ierr);
	start(LHT_F_INIT);
}
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
	pmpi_init_thread_(required, provided, ierr);
	start(LHT_F_INIT_THREAD);
}
void mpi_finalize_(MPI_Fint *ierr)
{
	finish();
	pmpi_finalize_(ierr);
}
void mpi_init(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
void mpi_init__(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
void MPI_INIT(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
void ompi_init_f(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
void mpi_init_thread(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
void mpi_init_thread__(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
void MPI_INIT_THREAD(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
void ompi_init_thread_f(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
void mpi_finalize(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
void mpi_finalize__(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
void MPI_FINALIZE(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
void ompi_finalize_f(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
#endif
