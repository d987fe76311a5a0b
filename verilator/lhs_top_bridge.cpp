//go:build ignore

// C ABI over the Verilated lhs_top: construct, reset, one clock per call, optional FST trace,
// and the benchmark workload as a plain C++ loop (the "native" reference speed).
#include "lhs_bridge.h"
#include "lhs_regs.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "Vlhs_top.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#include "verilated_save.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

struct lhs_model {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vlhs_top> top;
    std::unique_ptr<VerilatedFstC> fst;
    uint64_t cycles = 0;
    uint64_t flush_every = 0;  // cycles between trace flushes (0: only at close)
    uint64_t next_flush = 0;
};

static inline void put128(VlWide<4> &w, const uint64_t v[2]) {
    w[0] = (uint32_t)v[0];
    w[1] = (uint32_t)(v[0] >> 32);
    w[2] = (uint32_t)v[1];
    w[3] = (uint32_t)(v[1] >> 32);
}

static inline void get128(const VlWide<4> &w, uint64_t v[2]) {
    v[0] = (uint64_t)w[0] | ((uint64_t)w[1] << 32);
    v[1] = (uint64_t)w[2] | ((uint64_t)w[3] << 32);
}

#if VM_COVERAGE
// Coverage builds (scripts/verilate.sh --coverage) write each model's counters to a file of
// its own in $LHSIM_COVERAGE_DIR when the model is freed; scripts/coverage.sh merges them.
static void write_coverage(lhs_model *m) {
    static unsigned serial = 0;
    const char *dir = std::getenv("LHSIM_COVERAGE_DIR");
    if (!dir || !*dir) return;
    std::string path = std::string(dir) + "/lhs_top-" + std::to_string(getpid()) + "-" +
                       std::to_string(serial++) + ".dat";
    m->ctx->coveragep()->write(path.c_str());
}
#endif

// A trace is written so that a process that dies mid-run leaves a waveform that can be
// finished (verilator.FinishTrace): the FST writer keeps the hierarchy in "<trace>.hier"
// until close, and the value changes in memory until a flush. So the hierarchy is pushed to
// the file as soon as it is complete, and the values every flush_every cycles (lhs_flush too).
extern "C" lhs_model *lhs_new(const char *trace_path, uint64_t flush_every) {
    auto m = new lhs_model;
    m->ctx.reset(new VerilatedContext);
    if (trace_path && *trace_path) m->ctx->traceEverOn(true);
    m->top.reset(new Vlhs_top{m->ctx.get(), "lhs_top"});
    if (trace_path && *trace_path) {
        m->fst.reset(new VerilatedFstC);
        m->fst->set_time_resolution("1ns");  // dump times are ns: 10 per cycle at 100 MHz
        m->top->trace(m->fst.get(), 99);
        m->fst->open(trace_path);
        if (!m->fst->isOpen()) {
            m->fst.reset();
            m->top.reset();
            delete m;
            return nullptr;
        }
        // The writer's stdio buffers hold the end of the hierarchy file: push it out now
        // (fflush(NULL): the writer's FILE is not reachable from here).
        std::fflush(nullptr);
        m->flush_every = flush_every;
        m->next_flush = flush_every;
    }
    m->top->clk = 0;
    m->top->eval();
    return m;
}

extern "C" void lhs_flush(lhs_model *m) {
    // The FST writer writes the value changes at the next time step after this request.
    if (m->fst) m->fst->flush();
}

extern "C" void lhs_free(lhs_model *m) {
    if (!m) return;
    if (m->fst) m->fst->close();
    m->top->final();
#if VM_COVERAGE
    write_coverage(m);
#endif
    delete m;
}

extern "C" void lhs_cycle(lhs_model *m, lhs_pins *p) {
    Vlhs_top *t = m->top.get();
    t->clk = 0;
    put128(t->s_msg_tdata, p->msg_data);
    t->s_msg_tkeep = p->msg_keep;
    t->s_msg_tvalid = p->msg_valid;
    t->s_msg_tlast = p->msg_last;
    t->m_mem_ready = p->mem_ready;
    t->s_mem_rvalid = p->mem_rvalid;
    put128(t->s_mem_rdata, p->mem_rdata);
    t->host_valid = p->host_valid;
    t->host_write = p->host_write;
    t->host_addr = p->host_addr;
    t->host_wdata = p->host_wdata;
    t->eval();
    if (m->fst) m->fst->dump(m->cycles * 10);

    p->msg_ready = t->s_msg_tready;
    p->mem_valid = t->m_mem_valid;
    p->mem_write = t->m_mem_write;
    p->mem_addr = t->m_mem_addr;
    get128(t->m_mem_wdata, p->mem_wdata);
    p->host_rvalid = t->host_rvalid;
    p->host_rdata = t->host_rdata;
    p->ev_commit = t->ev_commit;
    p->ev_msg_done = t->ev_msg_done;
    p->ev_vec_done = t->ev_vec_done;

    t->clk = 1;
    t->eval();
    if (m->fst) {
        m->fst->dump(m->cycles * 10 + 5);
        if (m->flush_every && m->cycles + 1 >= m->next_flush) {
            m->fst->flush();
            m->next_flush = m->cycles + 1 + m->flush_every;
        }
    }
    m->cycles++;
}

extern "C" void lhs_reset(lhs_model *m, int n) {
    lhs_pins idle = {};
    m->top->rst = 1;
    for (int i = 0; i < n; i++) lhs_cycle(m, &idle);
    m->top->rst = 0;
}

extern "C" uint64_t lhs_cycles(lhs_model *m) { return m->cycles; }

// A stretch of cycles: gosim.Board.Step's source, memory and host, cycle for cycle, for the
// boards lhs_run_ctl describes (verilator.RTL.RunStretch checks that the board is one). Only
// the fields Board.Step drives change in p: the others keep what they last held, as on the
// Go side, so a trace is the same either way.
extern "C" void lhs_run(lhs_model *m, lhs_pins *p, const uint8_t *msgs, const uint32_t *lens, size_t nlens,
                        lhs_op *ops, const uint32_t *units, lhs_memw *writes, lhs_event *events,
                        lhs_run_ctl *c) {
    const uint32_t f = c->flags;
    size_t mi = 0;          // message at the input
    size_t base = 0;        // its first byte in msgs
    uint32_t off = c->msg_off;
    uint32_t head = 0, nops = c->nops;
    const uint32_t cap = c->cap_ops;
    uint64_t n = 0, commits = c->commits;
    c->units_used = c->nwrites = c->nevents = c->msgs_taken = c->read_req = 0;
    c->new_commits = c->msgs_done = c->vec_done = c->stalls = c->beats = 0;
    while (n < c->max_cycles) {
        bool run = (f & LHS_WHILE_ALWAYS) || ((f & LHS_WHILE_INPUT) && mi < nlens) ||
                   ((f & LHS_WHILE_HOST) && nops > 0) || ((f & LHS_WHILE_COMMITS) && commits != c->commit_target);
        if (!run || c->nwrites == c->cap_writes || ((f & LHS_EVENTS) && c->nevents == c->cap_events) ||
            ((f & LHS_RELEASE) && cap - nops < 2))
            break;
        // Source.Drive (no idle cycles, no noise).
        p->msg_valid = p->msg_last = 0;
        p->msg_keep = 0;
        if (mi < nlens) {
            uint32_t left = lens[mi] - off, k = left < 16 ? left : 16;
            uint8_t beat[16] = {};
            std::memcpy(beat, msgs + base + off, k);
            std::memcpy(p->msg_data, beat, 16);  // little-endian, as gosim's getWord
            p->msg_valid = 1;
            if (k == left) {
                p->msg_last = 1;
                p->msg_keep = (uint16_t)((1u << k) - 1);
            }
        }
        // SODIMM.Drive: ready (no read in flight, no back-pressure), no read data.
        p->mem_ready = 1;
        p->mem_rvalid = 0;
        // The host bus: the oldest posted write.
        p->host_valid = p->host_write = 0;
        if (nops > 0) {
            p->host_valid = p->host_write = 1;
            p->host_addr = ops[head].addr;
            p->host_wdata = ops[head].data;
            head = head + 1 == cap ? 0 : head + 1;
            nops--;
        }
        lhs_cycle(m, p);
        // Source.Observe.
        if (p->msg_valid && p->msg_ready) {
            c->beats++;
            off += 16;
            if (p->msg_last) {
                base += lens[mi];
                mi++;
                off = 0;
                c->msgs_taken++;
            }
        }
        // SODIMM.Observe: a write lands; a read request ends the stretch for the caller.
        bool read = false;
        if (p->mem_valid) {
            if (p->mem_write) {
                lhs_memw &w = writes[c->nwrites++];
                w.addr = p->mem_addr;
                w.data[0] = p->mem_wdata[0];
                w.data[1] = p->mem_wdata[1];
            } else {
                read = true;
            }
        }
        uint32_t ev = (uint32_t)p->ev_commit | (uint32_t)p->ev_msg_done << 1 | (uint32_t)p->ev_vec_done << 2;
        if (p->ev_commit) {
            commits++;
            c->new_commits++;
        }
        if (p->ev_msg_done) c->msgs_done++;
        if (p->ev_vec_done) c->vec_done++;
        if (p->msg_valid && !p->msg_ready) c->stalls++;
        if (ev && (f & LHS_EVENTS)) events[c->nevents++] = lhs_event{n, ev, 0};
        if (p->ev_commit && (f & LHS_RELEASE)) {
            uint32_t t = head + nops;
            ops[t >= cap ? t - cap : t] = lhs_op{LHS_REG_LH_RELEASE, 1};
            nops++;
            if (c->units_used < c->nunits) {
                if (uint32_t u = units[c->units_used]) {
                    t = head + nops;
                    ops[t >= cap ? t - cap : t] = lhs_op{LHS_REG_TAIL_RELEASE, u * 16};
                    nops++;
                }
                c->units_used++;
            }
        }
        n++;
        if (read) {
            c->read_req = 1;
            break;
        }
    }
    // The writes still queued go back oldest first.
    if (head > 0 && cap > 0) std::rotate(ops, ops + head, ops + cap);
    c->nops = nops;
    c->msg_off = off;
    c->cycles = n;
}

// ---- Checkpoints: Verilator's --savable serialization, into and out of memory. ----

#if VM_COVERAGE
// Verilator cannot build a model both --coverage and --savable: coverage builds cannot save.
extern "C" uint8_t *lhs_save(lhs_model *, size_t *) { return nullptr; }
extern "C" int lhs_restore(lhs_model *, const uint8_t *, size_t) { return -1; }
#else

// Serializes into a growing byte vector instead of VerilatedSave's file, so that the Go side
// can put the RTL state and its own in one checkpoint file.
class MemSave final : public VerilatedSerialize {
public:
    std::vector<uint8_t> out;
    MemSave() {
        m_isOpen = true;
        header();
    }
    void flush() override {
        out.insert(out.end(), m_bufp, m_cp);
        m_cp = m_bufp;
    }
    void finish() {
        trailer();
        flush();
        m_isOpen = false;
    }
};

class MemRestore final : public VerilatedDeserialize {
    const uint8_t *m_src;
    size_t m_left;

public:
    MemRestore(const uint8_t *src, size_t n) : m_src(src), m_left(n) {
        m_isOpen = true;
        m_endp = m_bufp;
        header();
    }
    // Refills the buffer from memory, padding with zeros past the end as VerilatedRestore does.
    void fill() override {
        uint8_t *rp = m_bufp;
        for (uint8_t *sp = m_cp; sp < m_endp; *rp++ = *sp++) {}
        m_endp = m_bufp + (m_endp - m_cp);
        m_cp = m_bufp;
        size_t room = m_bufp + bufferSize() - m_endp;
        size_t n = m_left < room ? m_left : room;
        std::memcpy(m_endp, m_src, n);
        m_src += n;
        m_left -= n;
        m_endp += n;
        while (m_endp < m_bufp + bufferSize()) *m_endp++ = 0;
    }
    void finish() {
        trailer();
        m_isOpen = false;
    }
};

static const char kSaveHeader[] = "verilatorsave02\n";
static const char kSaveTrailer[] = "vltsaved";

extern "C" uint8_t *lhs_save(lhs_model *m, size_t *len) {
    MemSave os;
    os << *m->top;
    os << m->cycles;
    os.finish();
    uint8_t *buf = static_cast<uint8_t *>(std::malloc(os.out.size()));
    if (!buf) return nullptr;
    std::memcpy(buf, os.out.data(), os.out.size());
    *len = os.out.size();
    return buf;
}

extern "C" int lhs_restore(lhs_model *m, const uint8_t *buf, size_t len) {
    // Verilator stops the process on a malformed state; refuse what is plainly not one first.
    size_t h = sizeof(kSaveHeader) - 1, t = sizeof(kSaveTrailer) - 1;
    if (len < h + t || std::memcmp(buf, kSaveHeader, h) != 0 ||
        std::memcmp(buf + len - t, kSaveTrailer, t) != 0)
        return -1;
    MemRestore is(buf, len);
    is >> *m->top;
    is >> m->cycles;
    is.finish();
    return 0;
}
#endif  // VM_COVERAGE

// ---- The benchmark workload, mirrored in Go by experiment.Workload. ----

static uint64_t splitmix64(uint64_t &s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Message i of the workload: a 16-byte envelope {source, tag, communicator, size} and
// payload bytes (i + j) & 0xff.
static std::vector<uint8_t> workload_message(uint64_t i, uint64_t &rng) {
    uint32_t size = 16 + (uint32_t)(splitmix64(rng) % 241);
    std::vector<uint8_t> b(size);
    uint32_t env[4] = {(uint32_t)(i % 64), (uint32_t)i, 0, size};
    for (int k = 0; k < 16; k++) b[k] = (uint8_t)(env[k / 4] >> (8 * (k % 4)));
    for (uint32_t j = 16; j < size; j++) b[j] = (uint8_t)(i + j);
    return b;
}

// Large memory for the native loop: stored like gosim.SODIMM, a megabyte at a time on first
// touch, so both loops do the same work per tail write.
struct native_memory {
    static constexpr size_t kChunks = LHS_MEM_BYTES >> 20;
    std::vector<std::unique_ptr<uint8_t[]>> chunks = std::vector<std::unique_ptr<uint8_t[]>>(kChunks);
    void write(uint32_t addr, const uint64_t d[2]) {
        auto &c = chunks[(addr >> 20) & (kChunks - 1)];
        if (!c) c.reset(new uint8_t[1 << 20]());
        memcpy(&c[addr & ((1 << 20) - 1)], d, 16);
    }
};

extern "C" void lhs_native_workload(uint64_t nmsgs, uint64_t seed, uint32_t tail_size, uint64_t stall_limit,
                                    lhs_native_result *r) {
    native_memory mem;
    lhs_model *m = lhs_new(nullptr, 0);
    lhs_reset(m, LHS_RESET_CYCLES);
    lhs_pins p = {};
    auto write = [&](uint32_t addr, uint32_t v) {
        p = lhs_pins{};
        p.host_valid = 1;
        p.host_write = 1;
        p.host_addr = addr;
        p.host_wdata = v;
        p.mem_ready = 1;
        lhs_cycle(m, &p);
    };
    write(LHS_REG_TAIL_SIZE, tail_size);
    write(LHS_REG_CTRL, LHS_CTRL_ENABLE | LHS_CTRL_LHS_ON);
    // The tail units each message sent and not yet committed reserved (0: inline or too
    // long), from its size field at the reset SIZE_POS, SPLIT_POS and MAX_MSG; messages
    // commit in order.
    auto units_of = [&](const std::vector<uint8_t> &b) -> uint32_t {
        uint8_t b0[16] = {};
        std::memcpy(b0, b.data(), b.size() < 16 ? b.size() : 16);
        uint32_t size = 0;
        for (int k = 0; k < 4; k++) size |= (uint32_t)b0[LHS_SIZE_POS_RESET + k] << (8 * k);
        if (size <= LHS_INLINE_MAX || size > LHS_MAX_MSG_RESET) return 0;
        uint32_t u = (size - LHS_SPLIT_POS_RESET + 15) / 16;
        return u <= tail_size / 16 ? u : 0;
    };
    struct host_write {
        uint32_t addr, data;
    };
    std::deque<uint32_t> sent_units;  // per message sent and not yet committed
    std::deque<host_write> writes;    // posted host writes, one a cycle in order
    uint64_t start = m->cycles;
    uint64_t rng = seed, sent = 0, commits = 0;
    uint64_t last_commit = m->cycles, held_off = 0;  // cycles since it, and of those with tready low
    std::vector<uint8_t> msg = workload_message(0, rng);
    if (nmsgs > 0) sent_units.push_back(units_of(msg));
    size_t off = 0;
    *r = lhs_native_result{};
    while (commits < nmsgs) {
        // Every wait ends: an entry that does not commit for stall_limit cycles stops the loop.
        if (m->cycles - last_commit >= stall_limit) {
            r->stalled = 1;
            r->held_off = held_off;
            break;
        }
        p = lhs_pins{};
        p.mem_ready = 1;
        if (sent < nmsgs) {
            uint64_t v[2] = {0, 0};
            size_t n = msg.size() - off < 16 ? msg.size() - off : 16;
            for (size_t k = 0; k < n; k++) v[k / 8] |= (uint64_t)msg[off + k] << (8 * (k % 8));
            p.msg_data[0] = v[0];
            p.msg_data[1] = v[1];
            p.msg_valid = 1;
            p.msg_last = off + 16 >= msg.size();
            p.msg_keep = (uint16_t)((1u << n) - 1);
        }
        if (!writes.empty()) {
            p.host_valid = 1;
            p.host_write = 1;
            p.host_addr = writes.front().addr;
            p.host_wdata = writes.front().data;
            writes.pop_front();
        }
        lhs_cycle(m, &p);
        if (p.mem_valid && p.mem_write) mem.write(p.mem_addr, p.mem_wdata);
        if (p.msg_valid && !p.msg_ready) held_off++;
        if (p.msg_valid && p.msg_ready) {
            off += 16;
            if (off >= msg.size()) {
                sent++;
                off = 0;
                if (sent < nmsgs) {
                    msg = workload_message(sent, rng);
                    sent_units.push_back(units_of(msg));
                }
            }
        }
        if (p.ev_commit) {
            commits++;
            // The host releases the entry the cycle after it commits, then a split
            // message's tail units.
            writes.push_back({LHS_REG_LH_RELEASE, 1});
            if (!sent_units.empty()) {
                if (uint32_t u = sent_units.front()) writes.push_back({LHS_REG_TAIL_RELEASE, u * 16});
                sent_units.pop_front();
            }
            last_commit = m->cycles;
            held_off = 0;
        }
    }
    r->cycles = m->cycles - start;
    r->commits = commits;
    r->sent = sent;
    lhs_free(m);
}
