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

/* Builds a model; trace_path (may be NULL) names an FST file that records every cycle. */
lhs_model *lhs_new(const char *trace_path);
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

/* The benchmark workload run in a C++ loop (see experiment/bench.go for its definition):
 * nmsgs messages from the seeded generator, memory always ready, host releasing each entry.
 * Returns the cycles it took; *ok is 0 if the loop saw a wrong entry count. */
uint64_t lhs_native_workload(uint64_t nmsgs, uint64_t seed, int *ok);

#ifdef __cplusplus
}
#endif

#endif
