/* C ABI of the Verilated ALPU baseline (rtl/alpu.v), used by the Go package verilator/alpu. */
#ifndef ALPU_BRIDGE_H
#define ALPU_BRIDGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One cycle of ports. Must match alpu.Pins (verilator/alpu) field for field. Booleans are
 * 0 or 1. Outputs are the values during the cycle, before the clock edge: a handshake
 * happened in this cycle when valid and ready are both 1 here. */
typedef struct {
    /* inputs */
    uint64_t ins_field;      /* s_ins_field (42 bits) */
    uint64_t ins_mask;       /* s_ins_mask: 1 = don't care */
    uint64_t req_field;      /* s_req_field */
    uint64_t req_mask;       /* s_req_mask: 1 = don't care */
    uint16_t ins_ptr;        /* s_ins_ptr */
    uint8_t ins_valid, req_valid, rsp_ready, overflow_clear;

    /* outputs */
    uint16_t rsp_ptr;        /* m_rsp_ptr */
    uint16_t count;          /* status_count */
    uint8_t ins_ready, req_ready, rsp_valid, rsp_hit;
    uint8_t full, empty, overflow, ins_refused;
} alpu_pins;

typedef struct alpu_model alpu_model;

/* Builds a model; trace_path (may be NULL or empty) names an FST file that records every
 * cycle. */
alpu_model *alpu_new(const char *trace_path);
void alpu_free(alpu_model *m);
/* Holds reset for n cycles with idle inputs. */
void alpu_reset(alpu_model *m, int n);
/* Applies p's inputs, evaluates, writes the outputs back to p, then clocks once. */
void alpu_cycle(alpu_model *m, alpu_pins *p);
/* Cycles since construction. */
uint64_t alpu_cycles(alpu_model *m);

#ifdef __cplusplus
}
#endif

#endif
