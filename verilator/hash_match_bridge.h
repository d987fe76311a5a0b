/* C ABI of the Verilated hashed matcher (rtl/hash_match.v), used by the Go package
 * verilator/hash_match. */
#ifndef HASH_MATCH_BRIDGE_H
#define HASH_MATCH_BRIDGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One cycle of ports. Must match hashmatch.Pins (verilator/hash_match) field for field.
 * Booleans are 0 or 1. Outputs are the values during the cycle, before the clock edge. */
typedef struct {
    /* inputs */
    uint32_t ins_src, ins_tag, req_src, req_tag;
    uint16_t ins_handle;
    uint8_t ins_ctx, req_ctx;
    uint8_t ins_valid, ins_src_any, ins_tag_any;
    uint8_t req_valid, req_src_any, req_tag_any, rsp_ready;

    /* outputs */
    uint32_t rsp_seq;
    uint16_t rsp_handle, rsp_walked, count, free_count;
    uint8_t ins_ready, req_ready, rsp_valid, rsp_hit, ins_refused, full, empty;
} hash_match_pins;

typedef struct hash_match_model hash_match_model;

/* Builds a model; trace_path (may be NULL or empty) names an FST file that records every
 * cycle. */
hash_match_model *hash_match_new(const char *trace_path);
void hash_match_free(hash_match_model *m);
/* Holds reset for n cycles with idle inputs. */
void hash_match_reset(hash_match_model *m, int n);
/* Applies p's inputs, evaluates, writes the outputs back to p, then clocks once. */
void hash_match_cycle(hash_match_model *m, hash_match_pins *p);
/* Cycles since construction. */
uint64_t hash_match_cycles(hash_match_model *m);

/* The same for the second configuration (verilator/hash_match_small_bridge.cpp). */
typedef struct hash_match_small_model hash_match_small_model;
hash_match_small_model *hash_match_small_new(const char *trace_path);
void hash_match_small_free(hash_match_small_model *m);
void hash_match_small_reset(hash_match_small_model *m, int n);
void hash_match_small_cycle(hash_match_small_model *m, hash_match_pins *p);
uint64_t hash_match_small_cycles(hash_match_small_model *m);

#ifdef __cplusplus
}
#endif

#endif
