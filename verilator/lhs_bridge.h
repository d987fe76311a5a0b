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
