/*

Hashed matcher: one MPI queue (posted receives or unexpected messages) of ENTRIES entries in
block RAM, hashed into BINS bins, after Flajslik, Dinan and Underwood ("Mitigating MPI Message
Matching Misery", ISC 2016), as hardware: the design between the ALPU's cells
(rtl/alpu.v: every entry compared at once) and the LHS buffer (rtl/lhs_rx.v: the host walks it).

An entry holds a source, a tag, a context (communicator), a handle (the request or message it
stands for), a sequence number and its links. It is kept in one of BANKS banks
(rtl/hash_match_bank.v), the one holding fewest entries, each bank ENTRIES/BANKS entries with
its own bins, wildcard list and arrival list. Insert appends the entry to the list of bin
hash(source, tag) of its bank, or to the bank's wildcard list when it has a wildcard. A search
with a given source and tag walks, in every bank at once, that bin and the wildcard list; a
search with a wildcard walks every bank's arrival list; each bank reads one entry every
RD_LAT cycles (the block RAM's read latency, stated as a parameter), and the oldest match by
sequence number among the banks wins. MPI's order holds in every case: within a list entries
are in arrival order, and sequence numbers order entries across lists and banks. The match is
unlinked from its lists and returned to its bank's free list; its handle, sequence number and
the entries examined are the response.

A full matcher refuses an insert: the insert is accepted (s_ins_tready is not held low for
it), nothing changes, and ev_ins_refused pulses in the next cycle; the software keeping the
queue decides what follows (the overflow and onload policies, docs/matchers.md).

Timing (RD_LAT = L, from the cycle an operation is accepted): an insert occupies the matcher
for 1 + L cycles; a search's response is valid 2 + L * (the entries the slowest bank walks)
cycles after it is accepted; the matcher takes its next operation in the cycle after the
response is taken. netsim/match's model (hash_model.go, hash_bank.go) runs the same cycles and
is checked against this RTL on chosen nodes; TestHashCyclesAgainstOccupancy measures them.

Sequence numbers are SEQ_W bits: 2**SEQ_W inserts between two resets keep the order.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module hash_match #
(
    // Entries (power of two, at least 2 per bank)
    parameter ENTRIES = 1024,
    // Bins (power of two); every bank has its own list of each bin
    parameter BINS = 64,
    // Banks, each walking one entry every RD_LAT cycles (power of two)
    parameter BANKS = 2,
    // Block RAM read latency in cycles (at least 1)
    parameter RD_LAT = 1,
    // Field widths: source rank, tag, context (communicator), handle, sequence number
    parameter SRC_W = 16,
    parameter TAG_W = 16,
    parameter CTX_W = 8,
    parameter HANDLE_W = 16,
    parameter SEQ_W = 32,
    // Width of the counts: enough for 0..ENTRIES
    parameter COUNT_W = $clog2(ENTRIES + 1)
)
(
    input  wire                clk,
    input  wire                rst,

    // Insert: append an entry (the newest)
    input  wire                s_ins_tvalid,
    output wire                s_ins_tready,
    input  wire [SRC_W-1:0]    s_ins_src,
    input  wire [TAG_W-1:0]    s_ins_tag,
    input  wire [CTX_W-1:0]    s_ins_ctx,
    input  wire [HANDLE_W-1:0] s_ins_handle,
    input  wire                s_ins_src_any,
    input  wire                s_ins_tag_any,

    // Search: find, unlink and return the oldest entry matching
    input  wire                s_req_tvalid,
    output wire                s_req_tready,
    input  wire [SRC_W-1:0]    s_req_src,
    input  wire [TAG_W-1:0]    s_req_tag,
    input  wire [CTX_W-1:0]    s_req_ctx,
    input  wire                s_req_src_any,
    input  wire                s_req_tag_any,

    // Response: hit, the entry's handle and sequence number, entries examined (all banks)
    output wire                m_rsp_tvalid,
    input  wire                m_rsp_tready,
    output wire                m_rsp_hit,
    output wire [HANDLE_W-1:0] m_rsp_handle,
    output wire [SEQ_W-1:0]    m_rsp_seq,
    output wire [COUNT_W-1:0]  m_rsp_walked,

    // An insert refused because the matcher was full (a pulse, the cycle after)
    output wire                ev_ins_refused,

    // Status
    output wire [COUNT_W-1:0]  status_count,
    output wire [COUNT_W-1:0]  status_free,
    output wire                status_full,
    output wire                status_empty
);

localparam BANK_ENTRIES = ENTRIES / BANKS;
localparam BIN_W = BINS > 1 ? $clog2(BINS) : 1;
localparam BCNT_W = $clog2(BANK_ENTRIES + 1);
localparam BANK_W = BANKS > 1 ? $clog2(BANKS) : 1;

// check configuration
initial begin
    if (BANKS < 1 || (BANKS & (BANKS - 1)) != 0) begin
        $display("Error: BANKS must be a power of two (instance %m)");
        $finish;
    end
    if (ENTRIES < 2 * BANKS || (ENTRIES & (ENTRIES - 1)) != 0) begin
        $display("Error: ENTRIES must be a power of two, at least 2 per bank (instance %m)");
        $finish;
    end
    if (ENTRIES > 65536) begin
        $display("Error: ENTRIES must be at most 65536 (instance %m)");
        $finish;
    end
    if (BINS < 1 || BINS > 65536 || (BINS & (BINS - 1)) != 0) begin
        $display("Error: BINS must be a power of two up to 65536 (instance %m)");
        $finish;
    end
    if (RD_LAT < 1 || RD_LAT > 8) begin
        $display("Error: RD_LAT must be 1 to 8 (instance %m)");
        $finish;
    end
    if (COUNT_W < $clog2(ENTRIES + 1)) begin
        $display("Error: COUNT_W too small for ENTRIES (instance %m)");
        $finish;
    end
end

// bin of (source, tag): the bits of {tag, source} folded by XOR into BIN_W bits
function [BIN_W-1:0] bin_of(input [SRC_W-1:0] src, input [TAG_W-1:0] tag);
    integer i;
    reg [SRC_W+TAG_W-1:0] v;
    begin
        v = {tag, src};
        bin_of = {BIN_W{1'b0}};
        if (BINS > 1) begin
            for (i = 0; i < SRC_W + TAG_W; i = i + 1) begin
                bin_of[i % BIN_W] = bin_of[i % BIN_W] ^ v[i];
            end
        end
    end
endfunction

localparam [1:0]
    T_IDLE = 2'd0,
    T_SEARCH = 2'd1,
    T_RSP = 2'd2;

reg [1:0]          state_reg = T_IDLE, state_next;
reg [SEQ_W-1:0]    seq_reg = {SEQ_W{1'b0}}, seq_next;
reg                refused_reg = 1'b0, refused_next;
reg                rsp_hit_reg = 1'b0, rsp_hit_next;
reg [HANDLE_W-1:0] rsp_handle_reg = {HANDLE_W{1'b0}}, rsp_handle_next;
reg [SEQ_W-1:0]    rsp_seq_reg = {SEQ_W{1'b0}}, rsp_seq_next;
reg [COUNT_W-1:0]  rsp_walked_reg = {COUNT_W{1'b0}}, rsp_walked_next;

wire [BANKS-1:0]          bank_idle, bank_done, bank_found;
wire [BANKS*SEQ_W-1:0]    bank_seq;
wire [BANKS*HANDLE_W-1:0] bank_handle;
wire [BANKS*BCNT_W-1:0]   bank_walked, bank_count, bank_free;
reg  [BANKS-1:0]          ins_go, take, drop;
reg                       req_go;

wire [BIN_W-1:0] ins_bin = bin_of(s_ins_src, s_ins_tag);
wire [BIN_W-1:0] req_bin = bin_of(s_req_src, s_req_tag);

genvar g;
generate
    for (g = 0; g < BANKS; g = g + 1) begin : g_bank
        hash_match_bank #(
            .ENTRIES(BANK_ENTRIES),
            .BINS(BINS),
            .RD_LAT(RD_LAT),
            .SRC_W(SRC_W),
            .TAG_W(TAG_W),
            .CTX_W(CTX_W),
            .HANDLE_W(HANDLE_W),
            .SEQ_W(SEQ_W)
        )
        bank_inst (
            .clk(clk),
            .rst(rst),
            .ins_go(ins_go[g]),
            .ins_src(s_ins_src),
            .ins_tag(s_ins_tag),
            .ins_ctx(s_ins_ctx),
            .ins_handle(s_ins_handle),
            .ins_src_any(s_ins_src_any),
            .ins_tag_any(s_ins_tag_any),
            .ins_seq(seq_reg),
            .ins_bin(ins_bin),
            .req_go(req_go),
            .req_src(s_req_src),
            .req_tag(s_req_tag),
            .req_ctx(s_req_ctx),
            .req_src_any(s_req_src_any),
            .req_tag_any(s_req_tag_any),
            .req_bin(req_bin),
            .done(bank_done[g]),
            .found(bank_found[g]),
            .found_seq(bank_seq[g*SEQ_W +: SEQ_W]),
            .found_handle(bank_handle[g*HANDLE_W +: HANDLE_W]),
            .walked(bank_walked[g*BCNT_W +: BCNT_W]),
            .take(take[g]),
            .drop(drop[g]),
            .idle(bank_idle[g]),
            .count(bank_count[g*BCNT_W +: BCNT_W]),
            .free_count(bank_free[g*BCNT_W +: BCNT_W])
        );
    end
endgenerate

// totals over the banks; the bank with fewest entries (the lowest of equals) takes an insert
reg [COUNT_W-1:0] count_sum, free_sum, walked_sum;
reg [BANK_W-1:0]  ins_bank;
reg [BCNT_W-1:0]  ins_bank_count;
reg               best_found;
reg [BANK_W-1:0]  best_bank;
reg [SEQ_W-1:0]   best_seq;
integer b;

always @* begin
    count_sum = {COUNT_W{1'b0}};
    free_sum = {COUNT_W{1'b0}};
    walked_sum = {COUNT_W{1'b0}};
    ins_bank = {BANK_W{1'b0}};
    ins_bank_count = bank_count[0 +: BCNT_W];
    best_found = 1'b0;
    best_bank = {BANK_W{1'b0}};
    best_seq = {SEQ_W{1'b0}};
    for (b = 0; b < BANKS; b = b + 1) begin
        count_sum = count_sum + {{(COUNT_W-BCNT_W){1'b0}}, bank_count[b*BCNT_W +: BCNT_W]};
        free_sum = free_sum + {{(COUNT_W-BCNT_W){1'b0}}, bank_free[b*BCNT_W +: BCNT_W]};
        walked_sum = walked_sum + {{(COUNT_W-BCNT_W){1'b0}}, bank_walked[b*BCNT_W +: BCNT_W]};
        if (bank_count[b*BCNT_W +: BCNT_W] < ins_bank_count) begin
            ins_bank = b[BANK_W-1:0];
            ins_bank_count = bank_count[b*BCNT_W +: BCNT_W];
        end
        if (bank_found[b] && (!best_found || bank_seq[b*SEQ_W +: SEQ_W] < best_seq)) begin
            best_found = 1'b1;
            best_bank = b[BANK_W-1:0];
            best_seq = bank_seq[b*SEQ_W +: SEQ_W];
        end
    end
end

wire all_idle = &bank_idle;
wire full = count_sum == ENTRIES[COUNT_W-1:0];

assign s_ins_tready = state_reg == T_IDLE && all_idle;
assign s_req_tready = state_reg == T_IDLE && all_idle && !s_ins_tvalid;
assign m_rsp_tvalid = state_reg == T_RSP;
assign m_rsp_hit = rsp_hit_reg;
assign m_rsp_handle = rsp_handle_reg;
assign m_rsp_seq = rsp_seq_reg;
assign m_rsp_walked = rsp_walked_reg;
assign ev_ins_refused = refused_reg;
assign status_count = count_sum;
assign status_free = free_sum;
assign status_full = full;
assign status_empty = count_sum == {COUNT_W{1'b0}};

always @* begin
    state_next = state_reg;
    seq_next = seq_reg;
    refused_next = 1'b0;
    rsp_hit_next = rsp_hit_reg;
    rsp_handle_next = rsp_handle_reg;
    rsp_seq_next = rsp_seq_reg;
    rsp_walked_next = rsp_walked_reg;
    ins_go = {BANKS{1'b0}};
    take = {BANKS{1'b0}};
    drop = {BANKS{1'b0}};
    req_go = 1'b0;

    case (state_reg)
        T_IDLE: begin
            if (s_ins_tvalid && s_ins_tready) begin
                if (full) begin
                    refused_next = 1'b1;
                end else begin
                    ins_go[ins_bank] = 1'b1;
                    seq_next = seq_reg + 1'b1;
                end
            end else if (s_req_tvalid && s_req_tready) begin
                req_go = 1'b1;
                state_next = T_SEARCH;
            end
        end
        T_SEARCH: begin
            if (&bank_done) begin
                rsp_hit_next = best_found;
                rsp_handle_next = best_found ? bank_handle[best_bank*HANDLE_W +: HANDLE_W] : {HANDLE_W{1'b0}};
                rsp_seq_next = best_found ? best_seq : {SEQ_W{1'b0}};
                rsp_walked_next = walked_sum;
                drop = {BANKS{1'b1}};
                if (best_found) begin
                    take[best_bank] = 1'b1;
                    drop[best_bank] = 1'b0;
                end
                state_next = T_RSP;
            end
        end
        default: begin
            if (m_rsp_tready) begin
                state_next = T_IDLE;
            end
        end
    endcase
end

always @(posedge clk) begin
    state_reg <= state_next;
    seq_reg <= seq_next;
    refused_reg <= refused_next;
    rsp_hit_reg <= rsp_hit_next;
    rsp_handle_reg <= rsp_handle_next;
    rsp_seq_reg <= rsp_seq_next;
    rsp_walked_reg <= rsp_walked_next;

    if (rst) begin
        state_reg <= T_IDLE;
        seq_reg <= {SEQ_W{1'b0}};
        refused_reg <= 1'b0;
        rsp_hit_reg <= 1'b0;
        rsp_handle_reg <= {HANDLE_W{1'b0}};
        rsp_seq_reg <= {SEQ_W{1'b0}};
        rsp_walked_reg <= {COUNT_W{1'b0}};
    end
end

`ifdef FORMAL
// Properties of the matcher (docs/formal.md; formal/hash_match_formal.v is the harness).
reg f_refusing = 1'b0; // an insert was accepted while full in the last cycle
reg [SEQ_W-1:0] f_seq_was;
reg [COUNT_W-1:0] f_count_was;
always @(posedge clk) begin
    f_refusing <= !rst && s_ins_tvalid && s_ins_tready && full;
    f_seq_was <= seq_reg;
    f_count_was <= count_sum;
end
always @* begin
    if (!rst) begin
        hm_free_linked: assert (free_sum + count_sum == ENTRIES[COUNT_W-1:0]);
        // a full matcher gives no bank an insert
        hm_full_no_insert: assert (!full || ins_go == {BANKS{1'b0}});
        hm_inv_state: assert (state_reg != 2'd3);
    end
    if (f_refusing) begin
        // the refusal says so, and nothing changed: no sequence number taken, no entry
        hm_full_refuses: assert (refused_reg && seq_reg == f_seq_was && count_sum == f_count_was && state_reg == T_IDLE);
    end
end
`endif

endmodule

`resetall
`default_nettype wire
