//go:build ignore

// C ABI over the Verilated hashed matcher (rtl/hash_match.v): construct, reset, one clock per
// call, optional FST trace. Built into build/verilator/hash_match/libhash_match.a by
// scripts/verilate.sh. Another configuration's bridge (hash_match_small_bridge.cpp) includes
// this file with HM_MODEL, HM_HEADER and HM_FN defined: its functions, its model struct and
// its Verilated class then have their own names, so both libraries link into one program.
#ifndef HM_MODEL
#define HM_MODEL Vhash_match
#define HM_HEADER "Vhash_match.h"
#define HM_FN(name) hash_match_##name
#endif
#include "hash_match_bridge.h"

#include <memory>

#include HM_HEADER
#include "verilated.h"
#include "verilated_fst_c.h"

#define hash_match_model HM_FN(model)

struct hash_match_model {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<HM_MODEL> top;
    std::unique_ptr<VerilatedFstC> fst;
    uint64_t cycles = 0;
};

extern "C" hash_match_model *HM_FN(new)(const char *trace_path) {
    auto m = new hash_match_model;
    bool trace = trace_path && *trace_path;
    m->ctx.reset(new VerilatedContext);
    if (trace) m->ctx->traceEverOn(true);
    m->top.reset(new HM_MODEL{m->ctx.get(), "hash_match"});
    if (trace) {
        m->fst.reset(new VerilatedFstC);
        m->top->trace(m->fst.get(), 99);
        m->fst->open(trace_path);
    }
    m->top->clk = 0;
    m->top->rst = 0;
    m->top->eval();
    return m;
}

extern "C" void HM_FN(free)(hash_match_model *m) {
    if (!m) return;
    if (m->fst) m->fst->close();
    m->top->final();
    delete m;
}

extern "C" void HM_FN(cycle)(hash_match_model *m, hash_match_pins *p) {
    HM_MODEL *t = m->top.get();
    t->clk = 0;
    t->s_ins_tvalid = p->ins_valid;
    t->s_ins_src = p->ins_src;
    t->s_ins_tag = p->ins_tag;
    t->s_ins_ctx = p->ins_ctx;
    t->s_ins_handle = p->ins_handle;
    t->s_ins_src_any = p->ins_src_any;
    t->s_ins_tag_any = p->ins_tag_any;
    t->s_req_tvalid = p->req_valid;
    t->s_req_src = p->req_src;
    t->s_req_tag = p->req_tag;
    t->s_req_ctx = p->req_ctx;
    t->s_req_src_any = p->req_src_any;
    t->s_req_tag_any = p->req_tag_any;
    t->m_rsp_tready = p->rsp_ready;
    t->eval();
    if (m->fst) m->fst->dump(m->cycles * 10);

    p->ins_ready = t->s_ins_tready;
    p->req_ready = t->s_req_tready;
    p->rsp_valid = t->m_rsp_tvalid;
    p->rsp_hit = t->m_rsp_hit;
    p->rsp_handle = t->m_rsp_handle;
    p->rsp_seq = t->m_rsp_seq;
    p->rsp_walked = t->m_rsp_walked;
    p->ins_refused = t->ev_ins_refused;
    p->count = t->status_count;
    p->free_count = t->status_free;
    p->full = t->status_full;
    p->empty = t->status_empty;

    t->clk = 1;
    t->eval();
    if (m->fst) m->fst->dump(m->cycles * 10 + 5);
    m->cycles++;
}

extern "C" void HM_FN(reset)(hash_match_model *m, int n) {
    hash_match_pins idle = {};
    m->top->rst = 1;
    for (int i = 0; i < n; i++) HM_FN(cycle)(m, &idle);
    m->top->rst = 0;
}

extern "C" uint64_t HM_FN(cycles)(hash_match_model *m) { return m->cycles; }
