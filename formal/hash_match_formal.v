/*
 * Formal harness of the hashed matcher: hash_match at a small configuration (4 entries,
 * 2 bins, one bank, a one-cycle read, 2-bit source and tag, 1-bit context) with every input
 * free but the handle, which the harness numbers. Beside it a shadow queue of what was
 * inserted: each response must be the oldest shadow entry that matches the request (a miss:
 * none matches). The properties about a block's state sit in rtl/hash_match*.v's
 * `ifdef FORMAL` sections. `lhsim formal` proves them (docs/formal.md).
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
    parameter SEQ_W = 4
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

// The environment: reset in the first cycle only; fewer than 2**SEQ_W inserts (the sequence
// numbers do not wrap within a proof).
reg f_first = 1'b1;
always @(posedge clk) begin
    f_first <= 1'b0;
end
always @* begin
    env_reset_first: assume (rst == f_first);
    env_no_wrap: assume (f_inserts != {SEQ_W{1'b1}});
end

// The shadow queue: slot i holds the entry inserted as number sh_seq[i].
reg [ENTRIES-1:0] sh_valid = {ENTRIES{1'b0}};
reg [1:0]         sh_src [0:ENTRIES-1];
reg [1:0]         sh_tag [0:ENTRIES-1];
reg               sh_ctx [0:ENTRIES-1];
reg               sh_src_any [0:ENTRIES-1];
reg               sh_tag_any [0:ENTRIES-1];
reg [SEQ_W-1:0]   sh_seq [0:ENTRIES-1];
// the request being answered
reg [1:0] rq_src, rq_tag;
reg       rq_ctx, rq_src_any, rq_tag_any;

wire ins_taken = s_ins_tvalid && s_ins_tready && !status_full;
wire rsp_taken = m_rsp_tvalid && m_rsp_tready;

function sh_match(input integer i);
    begin
        sh_match = sh_valid[i] && sh_ctx[i] == rq_ctx &&
            (sh_src_any[i] || rq_src_any || sh_src[i] == rq_src) &&
            (sh_tag_any[i] || rq_tag_any || sh_tag[i] == rq_tag);
    end
endfunction

integer i;
reg [ENTRIES-1:0] f_free_slot; // the lowest free slot, one-hot
reg               f_is_rsp [0:ENTRIES-1];
reg               f_rsp_known, f_older_match, f_any_match, f_rsp_matches;
always @* begin
    f_free_slot = {ENTRIES{1'b0}};
    for (i = ENTRIES - 1; i >= 0; i = i - 1) begin
        if (!sh_valid[i]) begin
            f_free_slot = {ENTRIES{1'b0}};
            f_free_slot[i] = 1'b1;
        end
    end
    f_rsp_known = 1'b0;
    f_older_match = 1'b0;
    f_any_match = 1'b0;
    f_rsp_matches = 1'b0;
    for (i = 0; i < ENTRIES; i = i + 1) begin
        f_is_rsp[i] = sh_valid[i] && sh_seq[i] == m_rsp_seq;
        if (f_is_rsp[i]) begin
            f_rsp_known = 1'b1;
            f_rsp_matches = sh_match(i);
        end
        if (sh_match(i)) begin
            f_any_match = 1'b1;
            if (sh_seq[i] < m_rsp_seq) begin
                f_older_match = 1'b1;
            end
        end
    end
end

always @(posedge clk) begin
    if (s_req_tvalid && s_req_tready) begin
        rq_src <= s_req_src;
        rq_tag <= s_req_tag;
        rq_ctx <= s_req_ctx;
        rq_src_any <= s_req_src_any;
        rq_tag_any <= s_req_tag_any;
    end
    for (i = 0; i < ENTRIES; i = i + 1) begin
        if (ins_taken && f_free_slot[i]) begin
            sh_valid[i] <= 1'b1;
            sh_src[i] <= s_ins_src;
            sh_tag[i] <= s_ins_tag;
            sh_ctx[i] <= s_ins_ctx;
            sh_src_any[i] <= s_ins_src_any;
            sh_tag_any[i] <= s_ins_tag_any;
            sh_seq[i] <= f_inserts;
        end
        if (rsp_taken && m_rsp_hit && f_is_rsp[i]) begin
            sh_valid[i] <= 1'b0;
        end
    end
    if (ins_taken) begin
        f_inserts <= f_inserts + 1'b1;
    end
    if (rst) begin
        sh_valid <= {ENTRIES{1'b0}};
        f_inserts <= {SEQ_W{1'b0}};
    end
end

// Each response is the oldest entry that matches its request; a miss, when none does.
always @* begin
    if (!rst && m_rsp_tvalid) begin
        if (m_rsp_hit) begin
            hm_rsp_is_entry: assert (f_rsp_known && m_rsp_handle == m_rsp_seq);
            hm_rsp_matches: assert (f_rsp_matches);
            hm_rsp_oldest: assert (!f_older_match);
        end else begin
            hm_miss_is_right: assert (!f_any_match);
        end
    end
    // (a bank unlinks its match in the response's first cycle, the shadow when it is taken)
    if (!rst && !m_rsp_tvalid) begin
        hm_count_is_shadow: assert (status_count == sh_valid[0] + sh_valid[1] + sh_valid[2] + sh_valid[3]);
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
