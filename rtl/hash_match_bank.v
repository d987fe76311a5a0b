/*

One bank of the hashed matcher (rtl/hash_match.v): ENTRIES entries in block RAM, each on two
lists, and a walk that reads one entry every RD_LAT cycles.

Lists. Every entry is on its bin's list (BINS bins, by a hash of source and tag) or, when it
has a wildcard, on the wildcard list; and on the arrival list, which holds every entry in
arrival order. The lists are doubly linked by index (bnext/bprev, anext/aprev) in block RAM;
their heads and tails are in distributed RAM (bins) and registers (wildcard and arrival
lists). A list ends at its tail, so a new entry needs no null link: an insert writes its own
back links and its predecessor's forward link in one cycle, and the forward link of a tail
is never read. Free entries are those never used (fresh_reg up to ENTRIES) and a free list
linked through fnext. free_cnt_reg + (ENTRIES - fresh_reg) + count_reg = ENTRIES always
(formal/hash_match_formal.v proves it).

Insert (ins_go, only when idle and not full; the top checks): the entry is written, linked
at the tails of its two lists, and taken from the never-used ones or the free list in the
cycle of ins_go; taking from the free list reads the next free entry's link, so the bank is
busy RD_LAT more cycles, whichever was used (the insert's time does not depend on history).

Search (req_go, only when idle): a request with source and tag both given walks its bin's
list, then the wildcard list, leaving the wildcard list at its first match or at the first
entry newer than the bin's match (sequence numbers order them); a request with a wildcard
walks the arrival list to its first match. The first read is issued in the cycle of req_go;
each entry's data is out RD_LAT cycles after its read and compared in that cycle, which also
issues the next read, so a walk examines one entry every RD_LAT cycles. When the walk ends the
bank holds its best match (done) until the top says take (unlink it: one cycle, then idle) or
drop (idle at once).

Match: the contexts are equal, and the sources (the tags) are equal or either side's is a
wildcard (MPI: a posted receive may have wildcards, a message has none).

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module hash_match_bank #
(
    // Entries in this bank (power of two, at least 2)
    parameter ENTRIES = 256,
    // Bins (power of two)
    parameter BINS = 16,
    // Block RAM read latency in cycles (1: the registered read; more adds output registers)
    parameter RD_LAT = 1,
    // Field widths: source rank, tag, context (communicator), handle, sequence number
    parameter SRC_W = 16,
    parameter TAG_W = 16,
    parameter CTX_W = 8,
    parameter HANDLE_W = 16,
    parameter SEQ_W = 32,
    // Entry index width
    parameter AW = $clog2(ENTRIES),
    // Bin index width (at least 1 so that the bin field exists when BINS is 1)
    parameter BIN_W = BINS > 1 ? $clog2(BINS) : 1,
    // Width of the entry and walk counters: enough for 0..ENTRIES
    parameter CNT_W = $clog2(ENTRIES + 1)
)
(
    input  wire                clk,
    input  wire                rst,

    // Insert (idle only)
    input  wire                ins_go,
    input  wire [SRC_W-1:0]    ins_src,
    input  wire [TAG_W-1:0]    ins_tag,
    input  wire [CTX_W-1:0]    ins_ctx,
    input  wire [HANDLE_W-1:0] ins_handle,
    input  wire                ins_src_any,
    input  wire                ins_tag_any,
    input  wire [SEQ_W-1:0]    ins_seq,
    input  wire [BIN_W-1:0]    ins_bin,

    // Search (idle only)
    input  wire                req_go,
    input  wire [SRC_W-1:0]    req_src,
    input  wire [TAG_W-1:0]    req_tag,
    input  wire [CTX_W-1:0]    req_ctx,
    input  wire                req_src_any,
    input  wire                req_tag_any,
    input  wire [BIN_W-1:0]    req_bin,

    // The walk's result, held while done; take unlinks it, drop forgets it
    output wire                done,
    output wire                found,
    output wire [SEQ_W-1:0]    found_seq,
    output wire [HANDLE_W-1:0] found_handle,
    output wire [CNT_W-1:0]    walked,
    input  wire                take,
    input  wire                drop,

    // State
    output wire                idle,
    output wire [CNT_W-1:0]    count,
    output wire [CNT_W-1:0]    free_count
);

// check configuration
initial begin
    if (ENTRIES < 2 || (ENTRIES & (ENTRIES - 1)) != 0) begin
        $display("Error: ENTRIES must be a power of two, at least 2 (instance %m)");
        $finish;
    end
    if (BINS < 1 || (BINS & (BINS - 1)) != 0) begin
        $display("Error: BINS must be a power of two (instance %m)");
        $finish;
    end
    if (RD_LAT < 1) begin
        $display("Error: RD_LAT must be at least 1 (instance %m)");
        $finish;
    end
end

localparam [2:0]
    S_IDLE = 3'd0,
    S_INS = 3'd1,
    S_WALK = 3'd2,
    S_DONE = 3'd3,
    S_UNLINK = 3'd4;

localparam [1:0]
    P_BIN = 2'd0,
    P_WILD = 2'd1,
    P_ARR = 2'd2;

// Entry word: sequence, handle, context, tag, source, source any, tag any, bin
localparam ENT_W = SEQ_W + HANDLE_W + CTX_W + TAG_W + SRC_W + 2 + BIN_W;
localparam LAT_W = $clog2(RD_LAT + 1);

reg [2:0]          state_reg = S_IDLE, state_next;
reg [1:0]          phase_reg = P_BIN, phase_next;
reg [LAT_W-1:0]    wait_reg = {LAT_W{1'b0}}, wait_next;
reg [AW-1:0]       cur_reg = {AW{1'b0}}, cur_next;
reg [CNT_W-1:0]    walked_reg = {CNT_W{1'b0}}, walked_next;

// the request being walked
reg [SRC_W-1:0]    key_src_reg;
reg [TAG_W-1:0]    key_tag_reg;
reg [CTX_W-1:0]    key_ctx_reg;
reg                key_src_any_reg, key_tag_any_reg;
reg [BIN_W-1:0]    key_bin_reg;

// the best match so far, with its links (for the unlink)
reg                best_reg = 1'b0, best_next;
reg [AW-1:0]       best_idx_reg, best_idx_next;
reg [SEQ_W-1:0]    best_seq_reg, best_seq_next;
reg [HANDLE_W-1:0] best_handle_reg, best_handle_next;
reg [AW-1:0]       best_bnext_reg, best_bnext_next;
reg [AW-1:0]       best_bprev_reg, best_bprev_next;
reg [AW-1:0]       best_anext_reg, best_anext_next;
reg [AW-1:0]       best_aprev_reg, best_aprev_next;
reg                best_wild_reg, best_wild_next;
reg [BIN_W-1:0]    best_bin_reg, best_bin_next;

// lists: bins in distributed RAM, the wildcard and arrival lists in registers
reg [AW-1:0]       bin_head_mem [0:BINS-1];
reg [AW-1:0]       bin_tail_mem [0:BINS-1];
reg [BINS-1:0]     bin_valid_reg = {BINS{1'b0}}, bin_valid_next;
reg                wild_valid_reg = 1'b0, wild_valid_next;
reg [AW-1:0]       wild_head_reg = {AW{1'b0}}, wild_head_next;
reg [AW-1:0]       wild_tail_reg = {AW{1'b0}}, wild_tail_next;
reg                arr_valid_reg = 1'b0, arr_valid_next;
reg [AW-1:0]       arr_head_reg = {AW{1'b0}}, arr_head_next;
reg [AW-1:0]       arr_tail_reg = {AW{1'b0}}, arr_tail_next;

// free entries
reg [CNT_W-1:0]    fresh_reg = {CNT_W{1'b0}}, fresh_next;
reg [AW-1:0]       free_head_reg = {AW{1'b0}}, free_head_next;
reg [CNT_W-1:0]    free_cnt_reg = {CNT_W{1'b0}}, free_cnt_next;
reg                free_pop_reg = 1'b0, free_pop_next;
reg [CNT_W-1:0]    count_reg = {CNT_W{1'b0}}, count_next;

// head/tail writes (one of each per cycle)
reg                bh_we, bt_we;
reg [BIN_W-1:0]    bh_addr, bt_addr;
reg [AW-1:0]       bh_data, bt_data;

// RAM ports: one read address for the walk (all five RAMs), one write per RAM per cycle
reg                rd_en;
reg [AW-1:0]       rd_addr;
reg                ent_we, bnext_we, bprev_we, anext_we, aprev_we, fnext_we;
reg [AW-1:0]       ent_wa, bnext_wa, bprev_wa, anext_wa, aprev_wa, fnext_wa;
reg [ENT_W-1:0]    ent_wd;
reg [AW-1:0]       bnext_wd, bprev_wd, anext_wd, aprev_wd, fnext_wd;

wire [ENT_W-1:0]   ent_q0;
wire [AW-1:0]      bnext_q0, bprev_q0, anext_q0, aprev_q0, fnext_q0;

lhs_ram_sdp #(.DATA_W(ENT_W), .ADDR_W(AW)) ent_ram (
    .clk(clk), .wr_en(ent_we), .wr_addr(ent_wa), .wr_data(ent_wd),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(ent_q0)
);
lhs_ram_sdp #(.DATA_W(AW), .ADDR_W(AW)) bnext_ram (
    .clk(clk), .wr_en(bnext_we), .wr_addr(bnext_wa), .wr_data(bnext_wd),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(bnext_q0)
);
lhs_ram_sdp #(.DATA_W(AW), .ADDR_W(AW)) bprev_ram (
    .clk(clk), .wr_en(bprev_we), .wr_addr(bprev_wa), .wr_data(bprev_wd),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(bprev_q0)
);
lhs_ram_sdp #(.DATA_W(AW), .ADDR_W(AW)) anext_ram (
    .clk(clk), .wr_en(anext_we), .wr_addr(anext_wa), .wr_data(anext_wd),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(anext_q0)
);
lhs_ram_sdp #(.DATA_W(AW), .ADDR_W(AW)) aprev_ram (
    .clk(clk), .wr_en(aprev_we), .wr_addr(aprev_wa), .wr_data(aprev_wd),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(aprev_q0)
);
lhs_ram_sdp #(.DATA_W(AW), .ADDR_W(AW)) fnext_ram (
    .clk(clk), .wr_en(fnext_we), .wr_addr(fnext_wa), .wr_data(fnext_wd),
    .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(fnext_q0)
);

// RD_LAT - 1 output registers after the block RAM's own
wire [ENT_W-1:0]   ent_q;
wire [AW-1:0]      bnext_q, bprev_q, anext_q, aprev_q, fnext_q;

generate
    if (RD_LAT > 1) begin : g_lat
        localparam Q_W = ENT_W + 5 * AW;
        reg [Q_W-1:0] pipe_reg [0:RD_LAT-2];
        integer i;
        always @(posedge clk) begin
            pipe_reg[0] <= {ent_q0, bnext_q0, bprev_q0, anext_q0, aprev_q0, fnext_q0};
            for (i = 1; i < RD_LAT - 1; i = i + 1) begin
                pipe_reg[i] <= pipe_reg[i-1];
            end
        end
        assign {ent_q, bnext_q, bprev_q, anext_q, aprev_q, fnext_q} = pipe_reg[RD_LAT-2];
    end else begin : g_nolat
        assign {ent_q, bnext_q, bprev_q, anext_q, aprev_q, fnext_q} = {ent_q0, bnext_q0, bprev_q0, anext_q0, aprev_q0, fnext_q0};
    end
endgenerate

// the entry word out of the RAM
wire [SEQ_W-1:0]    e_seq;
wire [HANDLE_W-1:0] e_handle;
wire [CTX_W-1:0]    e_ctx;
wire [TAG_W-1:0]    e_tag;
wire [SRC_W-1:0]    e_src;
wire                e_src_any, e_tag_any;
wire [BIN_W-1:0]    e_bin;
assign {e_seq, e_handle, e_ctx, e_tag, e_src, e_src_any, e_tag_any, e_bin} = ent_q;

wire e_match = e_ctx == key_ctx_reg &&
    (e_src_any || key_src_any_reg || e_src == key_src_reg) &&
    (e_tag_any || key_tag_any_reg || e_tag == key_tag_reg);

assign done = state_reg == S_DONE;
assign found = best_reg;
assign found_seq = best_seq_reg;
assign found_handle = best_handle_reg;
assign walked = walked_reg;
assign idle = state_reg == S_IDLE;
assign count = count_reg;
assign free_count = free_cnt_reg + (ENTRIES[CNT_W-1:0] - fresh_reg);

// the bins' heads and tails the logic reads (asynchronous reads of the distributed RAM)
wire [AW-1:0] ins_tail = bin_tail_mem[ins_bin];
wire [AW-1:0] req_head = bin_head_mem[req_bin];
wire [AW-1:0] key_tail = bin_tail_mem[key_bin_reg];
wire [AW-1:0] best_head = bin_head_mem[best_bin_reg];
wire [AW-1:0] best_tail = bin_tail_mem[best_bin_reg];

// start_wild: the bin walk is over; walk the wildcard list, or end
reg start_wild_go;
// take_this: the entry out of the RAM is the walk's best so far
reg take_this;

always @* begin
    state_next = state_reg;
    phase_next = phase_reg;
    wait_next = wait_reg;
    cur_next = cur_reg;
    walked_next = walked_reg;
    best_next = best_reg;
    best_idx_next = best_idx_reg;
    best_seq_next = best_seq_reg;
    best_handle_next = best_handle_reg;
    best_bnext_next = best_bnext_reg;
    best_bprev_next = best_bprev_reg;
    best_anext_next = best_anext_reg;
    best_aprev_next = best_aprev_reg;
    best_wild_next = best_wild_reg;
    best_bin_next = best_bin_reg;
    bin_valid_next = bin_valid_reg;
    wild_valid_next = wild_valid_reg;
    wild_head_next = wild_head_reg;
    wild_tail_next = wild_tail_reg;
    arr_valid_next = arr_valid_reg;
    arr_head_next = arr_head_reg;
    arr_tail_next = arr_tail_reg;
    fresh_next = fresh_reg;
    free_head_next = free_head_reg;
    free_cnt_next = free_cnt_reg;
    free_pop_next = free_pop_reg;
    count_next = count_reg;

    bh_we = 1'b0; bh_addr = {BIN_W{1'b0}}; bh_data = {AW{1'b0}};
    bt_we = 1'b0; bt_addr = {BIN_W{1'b0}}; bt_data = {AW{1'b0}};
    rd_en = 1'b0; rd_addr = cur_reg;
    ent_we = 1'b0; ent_wa = {AW{1'b0}}; ent_wd = {ENT_W{1'b0}};
    bnext_we = 1'b0; bnext_wa = {AW{1'b0}}; bnext_wd = {AW{1'b0}};
    bprev_we = 1'b0; bprev_wa = {AW{1'b0}}; bprev_wd = {AW{1'b0}};
    anext_we = 1'b0; anext_wa = {AW{1'b0}}; anext_wd = {AW{1'b0}};
    aprev_we = 1'b0; aprev_wa = {AW{1'b0}}; aprev_wd = {AW{1'b0}};
    fnext_we = 1'b0; fnext_wa = {AW{1'b0}}; fnext_wd = {AW{1'b0}};
    start_wild_go = 1'b0;
    take_this = 1'b0;

    case (state_reg)
        S_IDLE: begin
            if (ins_go) begin
                // the entry: a never-used one, else the free list's head
                if (fresh_reg != ENTRIES[CNT_W-1:0]) begin
                    cur_next = fresh_reg[AW-1:0];
                    fresh_next = fresh_reg + 1'b1;
                    free_pop_next = 1'b0;
                end else begin
                    cur_next = free_head_reg;
                    free_cnt_next = free_cnt_reg - 1'b1;
                    free_pop_next = 1'b1;
                    rd_en = 1'b1;
                    rd_addr = free_head_reg;
                end
                ent_we = 1'b1;
                ent_wa = cur_next;
                ent_wd = {ins_seq, ins_handle, ins_ctx, ins_tag, ins_src, ins_src_any, ins_tag_any, ins_bin};
                if (ins_src_any || ins_tag_any) begin
                    if (wild_valid_reg) begin
                        bnext_we = 1'b1; bnext_wa = wild_tail_reg; bnext_wd = cur_next;
                        bprev_we = 1'b1; bprev_wa = cur_next; bprev_wd = wild_tail_reg;
                    end else begin
                        wild_head_next = cur_next;
                    end
                    wild_tail_next = cur_next;
                    wild_valid_next = 1'b1;
                end else begin
                    if (bin_valid_reg[ins_bin]) begin
                        bnext_we = 1'b1; bnext_wa = ins_tail; bnext_wd = cur_next;
                        bprev_we = 1'b1; bprev_wa = cur_next; bprev_wd = ins_tail;
                    end else begin
                        bh_we = 1'b1; bh_addr = ins_bin; bh_data = cur_next;
                    end
                    bt_we = 1'b1; bt_addr = ins_bin; bt_data = cur_next;
                    bin_valid_next[ins_bin] = 1'b1;
                end
                if (arr_valid_reg) begin
                    anext_we = 1'b1; anext_wa = arr_tail_reg; anext_wd = cur_next;
                    aprev_we = 1'b1; aprev_wa = cur_next; aprev_wd = arr_tail_reg;
                end else begin
                    arr_head_next = cur_next;
                end
                arr_tail_next = cur_next;
                arr_valid_next = 1'b1;
                count_next = count_reg + 1'b1;
                wait_next = RD_LAT[LAT_W-1:0];
                state_next = S_INS;
            end else if (req_go) begin
                walked_next = {CNT_W{1'b0}};
                best_next = 1'b0;
                state_next = S_WALK;
                if (req_src_any || req_tag_any) begin
                    phase_next = P_ARR;
                    if (arr_valid_reg) begin
                        cur_next = arr_head_reg;
                        rd_en = 1'b1; rd_addr = arr_head_reg;
                        wait_next = RD_LAT[LAT_W-1:0] - 1'b1;
                    end else begin
                        state_next = S_DONE;
                    end
                end else if (bin_valid_reg[req_bin]) begin
                    phase_next = P_BIN;
                    cur_next = req_head;
                    rd_en = 1'b1; rd_addr = req_head;
                    wait_next = RD_LAT[LAT_W-1:0] - 1'b1;
                end else begin
                    start_wild_go = 1'b1;
                end
            end
        end
        S_INS: begin
            // the free list's next head arrives RD_LAT cycles after the read
            wait_next = wait_reg - 1'b1;
            if (wait_reg == 1) begin
                if (free_pop_reg) begin
                    free_head_next = fnext_q;
                end
                state_next = S_IDLE;
            end
        end
        S_WALK: begin
            if (wait_reg != 0) begin
                wait_next = wait_reg - 1'b1;
            end else begin
                walked_next = walked_reg + 1'b1;
                // the wildcard list's entries count only when older than the bin's match
                take_this = e_match && !(phase_reg == P_WILD && best_reg && e_seq > best_seq_reg);
                case (phase_reg)
                    P_BIN: begin
                        if (e_match) begin
                            best_next = 1'b1;
                            start_wild_go = 1'b1;
                        end else if (cur_reg == key_tail) begin
                            start_wild_go = 1'b1;
                        end else begin
                            cur_next = bnext_q;
                            rd_en = 1'b1; rd_addr = bnext_q;
                            wait_next = RD_LAT[LAT_W-1:0] - 1'b1;
                        end
                    end
                    P_WILD: begin
                        if (best_reg && e_seq > best_seq_reg) begin
                            state_next = S_DONE;
                        end else if (e_match) begin
                            best_next = 1'b1;
                            state_next = S_DONE;
                        end else if (cur_reg == wild_tail_reg) begin
                            state_next = S_DONE;
                        end else begin
                            cur_next = bnext_q;
                            rd_en = 1'b1; rd_addr = bnext_q;
                            wait_next = RD_LAT[LAT_W-1:0] - 1'b1;
                        end
                    end
                    default: begin
                        if (e_match) begin
                            best_next = 1'b1;
                            state_next = S_DONE;
                        end else if (cur_reg == arr_tail_reg) begin
                            state_next = S_DONE;
                        end else begin
                            cur_next = anext_q;
                            rd_en = 1'b1; rd_addr = anext_q;
                            wait_next = RD_LAT[LAT_W-1:0] - 1'b1;
                        end
                    end
                endcase
                if (take_this) begin
                    // this entry is the new best: keep it with its links
                    best_idx_next = cur_reg;
                    best_seq_next = e_seq;
                    best_handle_next = e_handle;
                    best_bnext_next = bnext_q;
                    best_bprev_next = bprev_q;
                    best_anext_next = anext_q;
                    best_aprev_next = aprev_q;
                    best_wild_next = e_src_any || e_tag_any;
                    best_bin_next = e_bin;
                end
            end
        end
        S_DONE: begin
            if (take) begin
                state_next = S_UNLINK;
            end else if (drop) begin
                state_next = S_IDLE;
            end
        end
        default: begin
            // S_UNLINK: out of its own list, out of the arrival list, onto the free list
            if (best_wild_reg) begin
                if (best_idx_reg == wild_head_reg && best_idx_reg == wild_tail_reg) begin
                    wild_valid_next = 1'b0;
                end else if (best_idx_reg == wild_head_reg) begin
                    wild_head_next = best_bnext_reg;
                end else if (best_idx_reg == wild_tail_reg) begin
                    wild_tail_next = best_bprev_reg;
                end else begin
                    bnext_we = 1'b1; bnext_wa = best_bprev_reg; bnext_wd = best_bnext_reg;
                    bprev_we = 1'b1; bprev_wa = best_bnext_reg; bprev_wd = best_bprev_reg;
                end
            end else begin
                if (best_idx_reg == best_head && best_idx_reg == best_tail) begin
                    bin_valid_next[best_bin_reg] = 1'b0;
                end else if (best_idx_reg == best_head) begin
                    bh_we = 1'b1; bh_addr = best_bin_reg; bh_data = best_bnext_reg;
                end else if (best_idx_reg == best_tail) begin
                    bt_we = 1'b1; bt_addr = best_bin_reg; bt_data = best_bprev_reg;
                end else begin
                    bnext_we = 1'b1; bnext_wa = best_bprev_reg; bnext_wd = best_bnext_reg;
                    bprev_we = 1'b1; bprev_wa = best_bnext_reg; bprev_wd = best_bprev_reg;
                end
            end
            if (best_idx_reg == arr_head_reg && best_idx_reg == arr_tail_reg) begin
                arr_valid_next = 1'b0;
            end else if (best_idx_reg == arr_head_reg) begin
                arr_head_next = best_anext_reg;
            end else if (best_idx_reg == arr_tail_reg) begin
                arr_tail_next = best_aprev_reg;
            end else begin
                anext_we = 1'b1; anext_wa = best_aprev_reg; anext_wd = best_anext_reg;
                aprev_we = 1'b1; aprev_wa = best_anext_reg; aprev_wd = best_aprev_reg;
            end
            fnext_we = 1'b1; fnext_wa = best_idx_reg; fnext_wd = free_head_reg;
            free_head_next = best_idx_reg;
            free_cnt_next = free_cnt_reg + 1'b1;
            count_next = count_reg - 1'b1;
            state_next = S_IDLE;
        end
    endcase

    if (start_wild_go) begin
        phase_next = P_WILD;
        if (wild_valid_reg) begin
            cur_next = wild_head_reg;
            rd_en = 1'b1; rd_addr = wild_head_reg;
            wait_next = RD_LAT[LAT_W-1:0] - 1'b1;
        end else begin
            state_next = S_DONE;
        end
    end
end

always @(posedge clk) begin
    if (bh_we) begin
        bin_head_mem[bh_addr] <= bh_data;
    end
    if (bt_we) begin
        bin_tail_mem[bt_addr] <= bt_data;
    end
    if (state_reg == S_IDLE && !ins_go && req_go) begin
        key_src_reg <= req_src;
        key_tag_reg <= req_tag;
        key_ctx_reg <= req_ctx;
        key_src_any_reg <= req_src_any;
        key_tag_any_reg <= req_tag_any;
        key_bin_reg <= req_bin;
    end
    best_idx_reg <= best_idx_next;
    best_seq_reg <= best_seq_next;
    best_handle_reg <= best_handle_next;
    best_bnext_reg <= best_bnext_next;
    best_bprev_reg <= best_bprev_next;
    best_anext_reg <= best_anext_next;
    best_aprev_reg <= best_aprev_next;
    best_wild_reg <= best_wild_next;
    best_bin_reg <= best_bin_next;
end

always @(posedge clk) begin
    state_reg <= state_next;
    phase_reg <= phase_next;
    wait_reg <= wait_next;
    cur_reg <= cur_next;
    walked_reg <= walked_next;
    best_reg <= best_next;
    bin_valid_reg <= bin_valid_next;
    wild_valid_reg <= wild_valid_next;
    wild_head_reg <= wild_head_next;
    wild_tail_reg <= wild_tail_next;
    arr_valid_reg <= arr_valid_next;
    arr_head_reg <= arr_head_next;
    arr_tail_reg <= arr_tail_next;
    fresh_reg <= fresh_next;
    free_head_reg <= free_head_next;
    free_cnt_reg <= free_cnt_next;
    free_pop_reg <= free_pop_next;
    count_reg <= count_next;

    if (rst) begin
        state_reg <= S_IDLE;
        phase_reg <= P_BIN;
        wait_reg <= {LAT_W{1'b0}};
        walked_reg <= {CNT_W{1'b0}};
        best_reg <= 1'b0;
        bin_valid_reg <= {BINS{1'b0}};
        wild_valid_reg <= 1'b0;
        arr_valid_reg <= 1'b0;
        fresh_reg <= {CNT_W{1'b0}};
        free_cnt_reg <= {CNT_W{1'b0}};
        free_pop_reg <= 1'b0;
        count_reg <= {CNT_W{1'b0}};
    end
end

`ifdef FORMAL
// Properties of a bank (docs/formal.md; `lhsim formal` proves them on
// formal/hash_match_formal.v). An entry is never used (index fresh_reg and up), free, or
// linked: free_count + count = ENTRIES, and the never-used ones are a suffix.
reg f_idle_was = 1'b0; // idle with no operation in the last cycle
reg [CNT_W-1:0] f_count_was;
reg f_valid_was_arr, f_valid_was_wild;
reg [AW-1:0] f_arr_head_was, f_arr_tail_was, f_free_head_was;
reg [BINS-1:0] f_bin_valid_was;
always @(posedge clk) begin
    f_idle_was <= !rst && state_reg == S_IDLE && !ins_go && !req_go;
    f_count_was <= count_reg;
    f_valid_was_arr <= arr_valid_reg;
    f_valid_was_wild <= wild_valid_reg;
    f_arr_head_was <= arr_head_reg;
    f_arr_tail_was <= arr_tail_reg;
    f_free_head_was <= free_head_reg;
    f_bin_valid_was <= bin_valid_reg;
end
always @* begin
    if (!rst) begin
        hm_bank_free_linked: assert (free_count + count_reg == ENTRIES[CNT_W-1:0]);
        hm_bank_fresh: assert (fresh_reg <= ENTRIES[CNT_W-1:0]);
        hm_bank_inv_wait: assert (state_reg != S_INS || (wait_reg >= 1 && wait_reg <= RD_LAT[LAT_W-1:0]));
        // an idle bank given nothing writes nothing
        if (state_reg == S_IDLE && !ins_go && !req_go) begin
            hm_bank_idle_writes_nothing: assert (!ent_we && !bnext_we && !bprev_we && !anext_we && !aprev_we && !fnext_we && !bh_we && !bt_we);
        end
    end
    if (f_idle_was) begin
        hm_bank_idle_holds: assert (count_reg == f_count_was && arr_valid_reg == f_valid_was_arr && wild_valid_reg == f_valid_was_wild &&
                                    arr_head_reg == f_arr_head_was && arr_tail_reg == f_arr_tail_was && free_head_reg == f_free_head_was &&
                                    bin_valid_reg == f_bin_valid_was);
    end
end
`endif

endmodule

`resetall
`default_nettype wire
