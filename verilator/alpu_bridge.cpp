//go:build ignore

// C ABI over the Verilated ALPU (rtl/alpu.v): construct, reset, one clock per call, optional
// FST trace. Built into build/verilator/alpu/libalpu.a by scripts/verilate.sh.
#include "alpu_bridge.h"

#include <memory>

#include "Valpu.h"
#include "verilated.h"
#include "verilated_fst_c.h"

struct alpu_model {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Valpu> top;
    std::unique_ptr<VerilatedFstC> fst;
    uint64_t cycles = 0;
};

extern "C" alpu_model *alpu_new(const char *trace_path) {
    auto m = new alpu_model;
    bool trace = trace_path && *trace_path;
    m->ctx.reset(new VerilatedContext);
    if (trace) m->ctx->traceEverOn(true);
    m->top.reset(new Valpu{m->ctx.get(), "alpu"});
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

extern "C" void alpu_free(alpu_model *m) {
    if (!m) return;
    if (m->fst) m->fst->close();
    m->top->final();
    delete m;
}

extern "C" void alpu_cycle(alpu_model *m, alpu_pins *p) {
    Valpu *t = m->top.get();
    t->clk = 0;
    t->s_ins_tvalid = p->ins_valid;
    t->s_ins_field = p->ins_field;
    t->s_ins_mask = p->ins_mask;
    t->s_ins_ptr = p->ins_ptr;
    t->s_req_tvalid = p->req_valid;
    t->s_req_field = p->req_field;
    t->s_req_mask = p->req_mask;
    t->m_rsp_tready = p->rsp_ready;
    t->overflow_clear = p->overflow_clear;
    t->eval();
    if (m->fst) m->fst->dump(m->cycles * 10);

    p->ins_ready = t->s_ins_tready;
    p->req_ready = t->s_req_tready;
    p->rsp_valid = t->m_rsp_tvalid;
    p->rsp_hit = t->m_rsp_hit;
    p->rsp_ptr = t->m_rsp_ptr;
    p->count = t->status_count;
    p->full = t->status_full;
    p->empty = t->status_empty;
    p->overflow = t->status_overflow;
    p->ins_refused = t->ev_ins_refused;

    t->clk = 1;
    t->eval();
    if (m->fst) m->fst->dump(m->cycles * 10 + 5);
    m->cycles++;
}

extern "C" void alpu_reset(alpu_model *m, int n) {
    alpu_pins idle = {};
    m->top->rst = 1;
    for (int i = 0; i < n; i++) alpu_cycle(m, &idle);
    m->top->rst = 0;
}

extern "C" uint64_t alpu_cycles(alpu_model *m) { return m->cycles; }
