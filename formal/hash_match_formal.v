/*
 * Formal harness of the hashed matcher: hash_match at a small configuration (4 entries, or
 * 2 with ENTRIES set; 2 bins, one bank, a one-cycle read, 2-bit source and tag, 1-bit
 * context, 3-bit sequence numbers) with every input free but the handle, which the harness
 * numbers.
 *
 * Beside it a shadow of what the matcher holds: per entry index, whether an entry is there,
 * its fields and its sequence number. An insert the matcher accepts writes the shadow's
 * index that the bank takes (the design chooses where an entry goes, the interface what it
 * is); a search, when it is accepted, computes its answer from the shadow (the oldest entry
 * that matches, or none) and removes that entry. Each response must be that answer.
 *
 * The properties about a block's own state sit in rtl/hash_match*.v's `ifdef FORMAL`
 * sections; the ones here that tie the RAM's lists to the shadow (`hm_inv_*`) make "the
 * oldest match" inductive. They read the design's registers and RAM words through the
 * probes (p_*), which `lhsim formal` connects after flattening (formal.HashMatch's Probes).
 * docs/formal.md says what is proven and how.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module hash_match_formal #
(
    // Entries: 4 fill within a few operations
    parameter ENTRIES = 4,
    // Bins: 2, so that bins collide and the wildcard list is walked beside a bin
    parameter BINS = 2,
    // Sequence numbers and handles: 3 bits, 6 inserts before they wrap (enough to fill,
    // refuse and drain 4 entries; fewer bits than the RTL's 32 make the solver's work smaller)
    parameter SEQ_W = 3
)
(
    input  wire       clk,
    input  wire       rst,

    input  wire       s_ins_tvalid,
    input  wire [1:0] s_ins_src,
    input  wire [1:0] s_ins_tag,
    input  wire       s_ins_ctx,
    input  wire       s_ins_src_any,
    input  wire       s_ins_tag_any,

    input  wire       s_req_tvalid,
    input  wire [1:0] s_req_src,
    input  wire [1:0] s_req_tag,
    input  wire       s_req_ctx,
    input  wire       s_req_src_any,
    input  wire       s_req_tag_any,

    input  wire       m_rsp_tready
);

localparam COUNT_W = $clog2(ENTRIES + 1);
localparam AW = $clog2(ENTRIES);
localparam BIN_W = BINS > 1 ? $clog2(BINS) : 1;
// the bank's entry word: sequence, handle, context, tag, source, source any, tag any, bin
localparam ENT_W = 2 * SEQ_W + 1 + 2 + 2 + 2 + BIN_W;

// the bank's states and walk phases, the top's states (rtl/hash_match_bank.v, hash_match.v)
localparam [2:0] S_IDLE = 3'd0, S_INS = 3'd1, S_WALK = 3'd2, S_DONE = 3'd3, S_UNLINK = 3'd4;
localparam [1:0] P_BIN = 2'd0, P_WILD = 2'd1, P_ARR = 2'd2;
localparam [1:0] T_IDLE = 2'd0, T_SEARCH = 2'd1, T_RSP = 2'd2;

wire              s_ins_tready, s_req_tready;
wire              m_rsp_tvalid, m_rsp_hit;
wire [SEQ_W-1:0]  m_rsp_handle, m_rsp_seq;
wire [COUNT_W-1:0] m_rsp_walked, status_count, status_free;
wire              ev_ins_refused, status_full, status_empty;

// the handle of an entry is its insert's number (the harness keeps them apart)
reg [SEQ_W-1:0] f_inserts = {SEQ_W{1'b0}};

hash_match #(
    .ENTRIES(ENTRIES),
    .BINS(BINS),
    .BANKS(1),
    .RD_LAT(1),
    .SRC_W(2),
    .TAG_W(2),
    .CTX_W(1),
    .HANDLE_W(SEQ_W),
    .SEQ_W(SEQ_W)
)
hash_match (
    .clk(clk),
    .rst(rst),
    .s_ins_tvalid(s_ins_tvalid),
    .s_ins_tready(s_ins_tready),
    .s_ins_src(s_ins_src),
    .s_ins_tag(s_ins_tag),
    .s_ins_ctx(s_ins_ctx),
    .s_ins_handle(f_inserts),
    .s_ins_src_any(s_ins_src_any),
    .s_ins_tag_any(s_ins_tag_any),
    .s_req_tvalid(s_req_tvalid),
    .s_req_tready(s_req_tready),
    .s_req_src(s_req_src),
    .s_req_tag(s_req_tag),
    .s_req_ctx(s_req_ctx),
    .s_req_src_any(s_req_src_any),
    .s_req_tag_any(s_req_tag_any),
    .m_rsp_tvalid(m_rsp_tvalid),
    .m_rsp_tready(m_rsp_tready),
    .m_rsp_hit(m_rsp_hit),
    .m_rsp_handle(m_rsp_handle),
    .m_rsp_seq(m_rsp_seq),
    .m_rsp_walked(m_rsp_walked),
    .ev_ins_refused(ev_ins_refused),
    .status_count(status_count),
    .status_free(status_free),
    .status_full(status_full),
    .status_empty(status_empty)
);

// Probes: the design's state (hash_match.state_reg, seq_reg; the bank's registers, list
// heads and tails, RAM words and RAM read registers), driven by formal.HashMatch's Probes.
wire [1:0]               p_top_state;
wire [SEQ_W-1:0]         p_seq;
wire [2:0]               p_state;
wire [1:0]               p_phase;
wire                     p_wait;
wire [AW-1:0]            p_cur, p_cur_next;
wire                     p_best, p_best_wild;
wire [AW-1:0]            p_best_idx, p_best_bnext, p_best_bprev, p_best_anext, p_best_aprev;
wire [SEQ_W-1:0]         p_best_seq, p_best_handle;
wire [BIN_W-1:0]         p_best_bin;
wire [BINS*AW-1:0]       p_bin_head, p_bin_tail;
wire [BINS-1:0]          p_bin_valid;
wire                     p_wild_valid, p_arr_valid;
wire [AW-1:0]            p_wild_head, p_wild_tail, p_arr_head, p_arr_tail;
wire [COUNT_W-1:0]       p_fresh, p_free_cnt, p_count;
wire [AW-1:0]            p_free_head;
wire                     p_free_pop;
wire [1:0]               p_key_src, p_key_tag;
wire                     p_key_ctx, p_key_src_any, p_key_tag_any;
wire [BIN_W-1:0]         p_key_bin;
wire [ENTRIES*ENT_W-1:0] p_ent;
wire [ENTRIES*AW-1:0]    p_bnext, p_bprev, p_anext, p_aprev, p_fnext;
wire [ENT_W-1:0]         p_ent_q;
wire [AW-1:0]            p_bnext_q, p_bprev_q, p_anext_q, p_aprev_q, p_fnext_q;

// The environment: reset in the first cycle only; fewer than 2**SEQ_W - 1 inserts (the
// sequence numbers do not wrap within a proof).
reg f_first = 1'b1;
always @(posedge clk) begin
    f_first <= 1'b0;
end
always @* begin
    env_reset_first: assume (rst == f_first);
    env_no_wrap: assume (f_inserts != {SEQ_W{1'b1}});
end

// bin of (source, tag), as rtl/hash_match.v folds it
function [BIN_W-1:0] bin_of(input [1:0] src, input [1:0] tag);
    integer k;
    reg [3:0] v;
    begin
        v = {tag, src};
        bin_of = {BIN_W{1'b0}};
        if (BINS > 1) begin
            for (k = 0; k < 4; k = k + 1) begin
                bin_of[k % BIN_W] = bin_of[k % BIN_W] ^ v[k];
            end
        end
    end
endfunction

// The shadow: index i holds the entry inserted as number sh_seq[i] when sh_valid[i].
reg [ENTRIES-1:0] sh_valid = {ENTRIES{1'b0}};
reg [1:0]         sh_src [0:ENTRIES-1];
reg [1:0]         sh_tag [0:ENTRIES-1];
reg               sh_ctx [0:ENTRIES-1];
reg               sh_src_any [0:ENTRIES-1];
reg               sh_tag_any [0:ENTRIES-1];
reg [SEQ_W-1:0]   sh_seq [0:ENTRIES-1];
// the request being answered and its answer: hit, the index and sequence number of the
// oldest entry that matched when it was accepted
reg [1:0]         rq_src, rq_tag;
reg               rq_ctx, rq_src_any, rq_tag_any;
reg               exp_hit = 1'b0;
reg [AW-1:0]      exp_idx;
reg [SEQ_W-1:0]   exp_seq;

wire ins_taken = s_ins_tvalid && s_ins_tready && !status_full;
wire req_taken = s_req_tvalid && s_req_tready;

function sh_match(input integer i, input [1:0] src, input [1:0] tag, input ctx, input src_any, input tag_any);
    begin
        sh_match = sh_ctx[i] == ctx &&
            (sh_src_any[i] || src_any || sh_src[i] == src) &&
            (sh_tag_any[i] || tag_any || sh_tag[i] == tag);
    end
endfunction

// the answer to the incoming request, from the shadow
integer ia;
reg               new_hit;
reg [AW-1:0]      new_idx;
always @* begin
    new_hit = 1'b0;
    new_idx = {AW{1'b0}};
    for (ia = 0; ia < ENTRIES; ia = ia + 1) begin
        if (sh_valid[ia] && sh_match(ia, s_req_src, s_req_tag, s_req_ctx, s_req_src_any, s_req_tag_any) &&
                (!new_hit || sh_seq[ia] < sh_seq[new_idx])) begin
            new_hit = 1'b1;
            new_idx = ia[AW-1:0];
        end
    end
end

always @(posedge clk) begin
    if (req_taken) begin
        rq_src <= s_req_src;
        rq_tag <= s_req_tag;
        rq_ctx <= s_req_ctx;
        rq_src_any <= s_req_src_any;
        rq_tag_any <= s_req_tag_any;
        exp_hit <= new_hit;
        exp_idx <= new_idx;
        exp_seq <= sh_seq[new_idx];
        if (new_hit) begin
            sh_valid[new_idx] <= 1'b0;
        end
    end
    if (ins_taken) begin
        sh_valid[p_cur_next] <= 1'b1;
        sh_src[p_cur_next] <= s_ins_src;
        sh_tag[p_cur_next] <= s_ins_tag;
        sh_ctx[p_cur_next] <= s_ins_ctx;
        sh_src_any[p_cur_next] <= s_ins_src_any;
        sh_tag_any[p_cur_next] <= s_ins_tag_any;
        sh_seq[p_cur_next] <= f_inserts;
        f_inserts <= f_inserts + 1'b1;
    end
    if (rst) begin
        sh_valid <= {ENTRIES{1'b0}};
        exp_hit <= 1'b0;
        f_inserts <= {SEQ_W{1'b0}};
    end
end

// Each response is the answer computed when its request was accepted: the oldest entry that
// matched, or a miss when none did. An insert goes to an index the shadow holds free.
always @* begin
    if (!rst && m_rsp_tvalid) begin
        if (m_rsp_hit) begin
            hm_rsp_oldest: assert (exp_hit && m_rsp_seq == exp_seq);
            hm_rsp_is_entry: assert (m_rsp_handle == m_rsp_seq);
        end else begin
            hm_miss_is_right: assert (!exp_hit);
        end
    end
    if (!rst && ins_taken) begin
        hm_ins_slot_free: assert (!sh_valid[p_cur_next]);
    end
end

// ---- The design's view of the shadow: what its lists hold ----
// The answer's entry stays linked in the design from the request's acceptance until the
// bank unlinks it (the first cycle of the response).
wire pending = exp_hit && (p_top_state == T_SEARCH || p_state == S_UNLINK);
reg [ENTRIES-1:0] lk;           // linked in the design
reg [ENTRIES-1:0] e_wild;       // the entry has a wildcard
reg [ENTRIES*BIN_W-1:0] e_bins;  // entry i's bin at [i*BIN_W +: BIN_W]
reg [BINS*ENTRIES-1:0] in_bins; // entry i on bin b's list: bit b*ENTRIES+i
reg [ENTRIES-1:0] in_wild;
reg [COUNT_W-1:0] n_linked;
integer iv, bv;
always @* begin
    lk = sh_valid;
    if (pending) begin
        lk[exp_idx] = 1'b1;
    end
    n_linked = {COUNT_W{1'b0}};
    for (iv = 0; iv < ENTRIES; iv = iv + 1) begin
        e_wild[iv] = sh_src_any[iv] || sh_tag_any[iv];
        e_bins[iv*BIN_W +: BIN_W] = bin_of(sh_src[iv], sh_tag[iv]);
        in_wild[iv] = lk[iv] && e_wild[iv];
        n_linked = n_linked + lk[iv];
    end
    for (bv = 0; bv < BINS; bv = bv + 1) begin
        for (iv = 0; iv < ENTRIES; iv = iv + 1) begin
            in_bins[bv*ENTRIES + iv] = lk[iv] && !e_wild[iv] && e_bins[iv*BIN_W +: BIN_W] == bv;
        end
    end
end

// a list of the entries in m is well formed when it is valid exactly when m has an entry, its
// head is m's oldest, its tail m's newest, each entry's next link names the next newer entry
// of m and its prev link the next older one: the list is acyclic, holds exactly m, in
// increasing sequence order
function list_ok(input [ENTRIES-1:0] m, input valid, input [AW-1:0] head, input [AW-1:0] tail,
                 input [ENTRIES*AW-1:0] nexts, input [ENTRIES*AW-1:0] prevs);
    integer x, y, z;
    reg ok, older, newer, between;
    begin
        // stated pair by pair (no search for the next entry): cheaper for the solver
        ok = valid == |m;
        for (x = 0; x < ENTRIES; x = x + 1) begin
            older = 1'b0;
            newer = 1'b0;
            for (z = 0; z < ENTRIES; z = z + 1) begin
                older = older || (m[z] && sh_seq[z] < sh_seq[x]);
                newer = newer || (m[z] && sh_seq[z] > sh_seq[x]);
            end
            if (m[x] && !older) begin
                ok = ok && head == x;
            end
            if (m[x] && !newer) begin
                ok = ok && tail == x;
            end
            for (y = 0; y < ENTRIES; y = y + 1) begin
                between = 1'b0;
                for (z = 0; z < ENTRIES; z = z + 1) begin
                    between = between || (m[z] && sh_seq[x] < sh_seq[z] && sh_seq[z] < sh_seq[y]);
                end
                if (m[x] && m[y] && sh_seq[x] < sh_seq[y] && !between) begin
                    ok = ok && nexts[x*AW +: AW] == y && prevs[y*AW +: AW] == x;
                end
            end
        end
        list_ok = ok;
    end
endfunction

// the entry word the bank wrote for shadow index i
function [ENT_W-1:0] word_of(input integer i);
    begin
        word_of = {sh_seq[i], sh_seq[i], sh_ctx[i], sh_tag[i], sh_src[i], sh_src_any[i], sh_tag_any[i], e_bins[i*BIN_W +: BIN_W]};
    end
endfunction

// the request's key matches shadow index i
function key_match(input integer i);
    begin
        key_match = sh_ctx[i] == rq_ctx &&
            (sh_src_any[i] || rq_src_any || sh_src[i] == rq_src) &&
            (sh_tag_any[i] || rq_tag_any || sh_tag[i] == rq_tag);
    end
endfunction

// The invariants that tie the RAM to the shadow.
integer i, j, b;
reg f_lists, f_words, f_seqs, f_free, f_walk, f_best;
reg [AW-1:0] chain;
reg [ENTRIES-1:0] seen, free_set;
reg [COUNT_W-1:0] n_free;
reg older_matches, bin_match, any_match;
reg [AW-1:0] bin_oldest, oldest;
always @* begin
    // every bin's list, the wildcard list and the arrival list
    f_lists = list_ok(in_wild, p_wild_valid, p_wild_head, p_wild_tail, p_bnext, p_bprev) &&
              list_ok(lk, p_arr_valid, p_arr_head, p_arr_tail, p_anext, p_aprev);
    for (b = 0; b < BINS; b = b + 1) begin
        f_lists = f_lists && list_ok(in_bins[b*ENTRIES +: ENTRIES], p_bin_valid[b], p_bin_head[b*AW +: AW], p_bin_tail[b*AW +: AW], p_bnext, p_bprev);
    end

    // every linked entry's word is its shadow's
    f_words = 1'b1;
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (lk[i]) begin
            f_words = f_words && p_ent[i*ENT_W +: ENT_W] == word_of(i);
        end
    end

    // sequence numbers: the counter above every linked entry's, no two linked alike, the
    // count the number linked
    f_seqs = p_seq == f_inserts && p_count == n_linked && status_count == n_linked;
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (lk[i]) begin
            f_seqs = f_seqs && sh_seq[i] < f_inserts;
        end
        for (j = 0; j < ENTRIES; j = j + 1) begin
            if (i != j && lk[i] && lk[j]) begin
                f_seqs = f_seqs && sh_seq[i] != sh_seq[j];
            end
        end
    end

    // free entries: the never-used ones (index fresh and up) hold nothing; the free list,
    // from its head (while an insert waits for the next head, from the link read), holds
    // free_cnt distinct entries, exactly the used ones not linked
    f_free = p_fresh <= ENTRIES;
    free_set = {ENTRIES{1'b0}};
    n_free = {COUNT_W{1'b0}};
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (i >= p_fresh) begin
            f_free = f_free && !lk[i];
        end else if (!lk[i]) begin
            free_set[i] = 1'b1;
            n_free = n_free + 1'b1;
        end
    end
    f_free = f_free && n_free == p_free_cnt;
    chain = (p_state == S_INS && p_free_pop) ? p_fnext_q : p_free_head;
    seen = {ENTRIES{1'b0}};
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (i < p_free_cnt) begin
            f_free = f_free && free_set[chain] && !seen[chain];
            seen[chain] = 1'b1;
            chain = p_fnext[chain*AW +: AW];
        end
    end

    // the bin's oldest match for the request (only the request's bin can hold one)
    bin_match = 1'b0;
    bin_oldest = {AW{1'b0}};
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (lk[i] && !e_wild[i] && key_match(i) && (!bin_match || sh_seq[i] < sh_seq[bin_oldest])) begin
            bin_match = 1'b1;
            bin_oldest = i[AW-1:0];
        end
    end
    // the oldest match of all linked entries
    any_match = 1'b0;
    oldest = {AW{1'b0}};
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (lk[i] && key_match(i) && (!any_match || sh_seq[i] < sh_seq[oldest])) begin
            any_match = 1'b1;
            oldest = i[AW-1:0];
        end
    end
    // a walk: the request is the bank's key; the entry it reads is linked and out of the
    // RAM; no entry older than it on the list it walks matches
    older_matches = 1'b0;
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (sh_seq[i] < sh_seq[p_cur] && key_match(i) &&
                (p_phase == P_ARR ? lk[i] : p_phase == P_WILD ? in_wild[i] : in_bins[p_key_bin*ENTRIES + i])) begin
            older_matches = 1'b1;
        end
    end
    f_walk = p_wait == 1'b0 && lk[p_cur] && !older_matches &&
             p_ent_q == p_ent[p_cur*ENT_W +: ENT_W] && p_bnext_q == p_bnext[p_cur*AW +: AW] &&
             p_bprev_q == p_bprev[p_cur*AW +: AW] && p_anext_q == p_anext[p_cur*AW +: AW] &&
             p_aprev_q == p_aprev[p_cur*AW +: AW];
    case (p_phase)
        P_BIN: f_walk = f_walk && !(rq_src_any || rq_tag_any) && in_bins[p_key_bin*ENTRIES + p_cur] && !p_best;
        P_WILD: f_walk = f_walk && !(rq_src_any || rq_tag_any) && in_wild[p_cur] && p_best == bin_match &&
                         (!p_best || p_best_idx == bin_oldest);
        P_ARR: f_walk = f_walk && (rq_src_any || rq_tag_any) && !p_best;
        default: f_walk = 1'b0;
    endcase

    // the best match kept is its entry, with the entry's links as the RAM holds them
    f_best = lk[p_best_idx] && p_best_seq == sh_seq[p_best_idx] && p_best_handle == sh_seq[p_best_idx] &&
             p_best_wild == e_wild[p_best_idx] && p_best_bin == e_bins[p_best_idx*BIN_W +: BIN_W] &&
             p_best_bnext == p_bnext[p_best_idx*AW +: AW] && p_best_bprev == p_bprev[p_best_idx*AW +: AW] &&
             p_best_anext == p_anext[p_best_idx*AW +: AW] && p_best_aprev == p_aprev[p_best_idx*AW +: AW];
end

wire key_is_rq = p_key_src == rq_src && p_key_tag == rq_tag && p_key_ctx == rq_ctx &&
                 p_key_src_any == rq_src_any && p_key_tag_any == rq_tag_any && p_key_bin == bin_of(rq_src, rq_tag);

always @* begin
    if (!rst) begin
        hm_inv_lists: assert (f_lists);
        hm_inv_words: assert (f_words);
        hm_inv_seqs: assert (f_seqs);
        hm_inv_free: assert (f_free);
        // the top and its bank: idle or inserting; walking or done; answering, the first
        // cycle of a hit unlinking
        case (p_top_state)
            T_IDLE: hm_inv_top_idle: assert (p_state == S_IDLE || p_state == S_INS);
            T_SEARCH: hm_inv_top_search: assert ((p_state == S_WALK || p_state == S_DONE) && key_is_rq);
            T_RSP: hm_inv_top_rsp: assert ((p_state == S_IDLE || (p_state == S_UNLINK && exp_hit)) && key_is_rq &&
                                           m_rsp_hit == exp_hit && (!exp_hit || (m_rsp_seq == exp_seq && m_rsp_handle == exp_seq)));
            default: hm_inv_top_state: assert (1'b0);
        endcase
        if (p_state == S_WALK) begin
            hm_inv_walk: assert (f_walk);
        end
        if ((p_state == S_WALK && p_best) || p_state == S_DONE && p_best || p_state == S_UNLINK) begin
            hm_inv_best: assert (p_best && f_best);
        end
        if (p_state == S_DONE || p_state == S_UNLINK) begin
            hm_inv_done: assert (p_best == exp_hit && (!exp_hit || p_best_idx == exp_idx));
        end
        // the answer's entry has left the shadow while the design still holds it
        if (pending) begin
            hm_inv_pending: assert (!sh_valid[exp_idx]);
        end
        // while the bank walks, the answer is still the oldest match of what it holds
        if (p_top_state == T_SEARCH) begin
            hm_inv_answer: assert (exp_hit == any_match && (!exp_hit || (exp_idx == oldest && exp_seq == sh_seq[exp_idx])));
        end
    end
end

// Reachable: the matcher full and refusing; a search that walks a bin and the wildcard list
// and finds a match.
always @* begin
    if (!rst) begin
        hm_cover_refused: cover (ev_ins_refused);
        hm_cover_wild_older: cover (m_rsp_tvalid && m_rsp_hit && !rq_src_any && !rq_tag_any && m_rsp_walked >= 2);
    end
end

endmodule

`resetall
`default_nettype wire
