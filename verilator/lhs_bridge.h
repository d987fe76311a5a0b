/* C ABI of the Verilated receive path (lhs_top), used by the Go package through cgo. */
#ifndef LHS_BRIDGE_H
#define LHS_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One cycle of ports. Must match gosim.Pins field for field. */
typedef struct {
    uint64_t msg_data[2];
    uint64_t mem_rdata[2];
    uint32_t host_addr;
    uint32_t host_wdata;
    uint16_t msg_keep;
    uint8_t msg_valid, msg_last, mem_ready, mem_rvalid, host_valid, host_write;

    uint64_t mem_wdata[2];
    uint32_t mem_addr;
    uint32_t host_rdata;
    uint8_t msg_ready, mem_valid, mem_write, host_rvalid, ev_commit, ev_msg_done, ev_vec_done, pad_;
} lhs_pins;

typedef struct lhs_model lhs_model;

/* Builds a model; trace_path (may be NULL) names an FST file that records every cycle, its
 * value changes written out every flush_every cycles (0: at lhs_free only). NULL when the
 * trace file cannot be opened. */
lhs_model *lhs_new(const char *trace_path, uint64_t flush_every);
/* Writes the trace's value changes so far to its file (at the next cycle). */
void lhs_flush(lhs_model *m);
void lhs_free(lhs_model *m);
/* Holds reset for n cycles with idle inputs. */
void lhs_reset(lhs_model *m, int n);
/* Applies p's inputs, evaluates, writes the outputs back to p, then clocks once. */
void lhs_cycle(lhs_model *m, lhs_pins *p);
/* Cycles since construction. */
uint64_t lhs_cycles(lhs_model *m);

/* A stretch of cycles run in one call (gosim.Board's RunWhile, through verilator.RTL): the
 * board's network source, SO-DIMM and posted host writes around the model, as gosim.Board.Step
 * drives them, for a board whose source never idles or adds noise, whose memory has no read in
 * flight and no random back-pressure, and whose host has only posted writes queued. */
typedef struct {
    uint32_t addr, data;
} lhs_op; /* a posted host write */

typedef struct {
    uint64_t data[2];
    uint32_t addr, pad_;
} lhs_memw; /* a memory write the model made */

typedef struct {
    uint64_t cycle; /* cycles from the stretch's first (0) */
    uint32_t flags; /* ev_commit | ev_msg_done << 1 | ev_vec_done << 2 */
    uint32_t pad_;
} lhs_event;

enum {
    LHS_WHILE_ALWAYS = 1,  /* run max_cycles */
    LHS_WHILE_INPUT = 2,   /* run while messages are queued at the input */
    LHS_WHILE_HOST = 4,    /* run while host writes are queued */
    LHS_WHILE_COMMITS = 8, /* run while the commit count is not commit_target */
    LHS_RELEASE = 16,      /* after a cycle that commits, queue LH_RELEASE 1 and the entry's tail units */
    LHS_EVENTS = 32        /* record event pulses */
};

typedef struct {
    /* In. */
    uint64_t max_cycles;
    uint64_t commits;       /* the board's commit count at the start */
    uint64_t commit_target; /* LHS_WHILE_COMMITS */
    uint32_t flags;
    uint32_t msg_off;  /* bytes of the first queued message already taken (in and out) */
    uint32_t nops;     /* posted writes in ops (in and out: those left, oldest first) */
    uint32_t cap_ops;  /* room in ops */
    uint32_t nunits;   /* LHS_RELEASE: each committed entry's tail units, oldest first */
    uint32_t cap_writes, cap_events;
    /* Out. */
    uint32_t units_used, nwrites, nevents;
    uint32_t msgs_taken; /* messages whose last beat the input took */
    uint32_t read_req;   /* the last cycle run made a memory read request (the caller serves it) */
    uint64_t cycles, new_commits, msgs_done, vec_done, stalls, beats;
} lhs_run_ctl;

/* Runs cycles while the flags say and c->max_cycles allows, ending early when the write or
 * event buffer could overflow, when ops has no room for a release, or after a cycle that made a
 * memory read request. msgs holds the queued messages back to back (nlens lengths in lens); p
 * holds the ports as last driven and ends with the last cycle's. Every cycle is traced. */
void lhs_run(lhs_model *m, lhs_pins *p, const uint8_t *msgs, const uint32_t *lens, size_t nlens,
             lhs_op *ops, const uint32_t *units, lhs_memw *writes, lhs_event *events, lhs_run_ctl *c);

/* Checkpoints (Verilator --savable): lhs_save returns the model's whole state, cycle count
 * included, in a malloc'd buffer of *len bytes (NULL on failure); the caller frees it.
 * lhs_restore loads a state saved by the same library build into m; it returns -1, changing
 * nothing, when buf is not such a state. */
uint8_t *lhs_save(lhs_model *m, size_t *len);
int lhs_restore(lhs_model *m, const uint8_t *buf, size_t len);

/* What the native loop did: cycles from the first message, entries committed, messages
 * taken whole by the input; stalled when no entry committed for stall_limit cycles (held_off:
 * of those, the cycles the input was held off). */
typedef struct {
    uint64_t cycles, commits, sent, held_off;
    int stalled;
} lhs_native_result;

/* The benchmark workload run in a C++ loop (see experiment/bench.go for its definition):
 * nmsgs messages from the seeded generator, memory always ready, host releasing each entry,
 * a tail ring of tail_size bytes that is never released. It ends when every entry has
 * committed, or when none has for stall_limit cycles. */
void lhs_native_workload(uint64_t nmsgs, uint64_t seed, uint32_t tail_size, uint64_t stall_limit,
                         lhs_native_result *r);

#ifdef __cplusplus
}
#endif

#endif
