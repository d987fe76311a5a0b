/*
 * LHS receive block: the receive message split controller and the LH buffer.
 *
 * Messages arrive error-free on a 128-bit valid/ready stream. At the first beat the
 * splitter reads the size field and applies the LHS rule (docs/design.md): a message of at
 * most 56 bytes goes whole into a 64-byte LH entry; a longer one leaves its head and a
 * pointer in the entry and streams its tail into the tail ring in large memory. With LHS off
 * every message goes whole into the tail ring. The LH buffer is a ring of entries in block
 * RAM; the host reads it through rd_* and releases consumed entries and tail space by count.
 * Tail space is reserved at the first beat from the size field, so a size field that lies
 * changes what is stored for that message only, never the ring layout.
 *
 * LHS = 0 builds the same block without LHS: the receive path DIMMnet-2 had before it, which
 * writes every message whole into the tail ring. Synthesizing both ways measures what LHS adds
 * (docs/area.md); CNT_W narrows the LH counters for the same purpose.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module lhs_rx #
(
    // LH entries of 64 bytes (power of two)
    parameter ENTRIES = 256,
    // Large-memory address width in bytes (2**MEM_AW bytes)
    parameter MEM_AW = 29,
    // 1: the LHS splitter and LH buffer; 0: without them (no LH buffer, cfg_lhs_on taken as 0,
    // LH releases ignored, lh_prod, lh_cons and rd_data 0): the receive path before LHS
    parameter LHS = 1,
    // Width of the LH producer and consumer counters, IDX_W+1..32: lh_prod and lh_cons count
    // modulo 2**CNT_W (the host driver relies on 32)
    parameter CNT_W = 32,
    // Entry index width
    parameter IDX_W = $clog2(ENTRIES),
    // LH buffer word address width (four 128-bit words per entry)
    parameter RAM_AW = IDX_W + 2
)
(
    input  wire              clk,
    input  wire              rst,

    // Network input
    input  wire [127:0]      s_msg_tdata,
    input  wire [15:0]       s_msg_tkeep,
    input  wire              s_msg_tvalid,
    output wire              s_msg_tready,
    input  wire              s_msg_tlast,

    // Configuration (stable while messages are in flight)
    input  wire              cfg_enable,
    input  wire              cfg_lhs_on,
    input  wire [1:0]        cfg_size_word,   // size field at byte 4*cfg_size_word
    input  wire [1:0]        cfg_split_beats, // SPLIT_POS / 16: 1, 2 or 3
    input  wire [15:0]       cfg_max_msg,
    input  wire [MEM_AW-5:0] cfg_tail_base,   // in 16-byte units
    input  wire [23:0]       cfg_tail_units,  // ring size in 16-byte units
    input  wire              cfg_ring_reset,  // TAIL_BASE or TAIL_SIZE taken (only while quiet): TAIL_WPTR to 0

    // Host releases (counts; refused when larger than what is in use)
    input  wire              rel_lh_valid,
    input  wire [31:0]       rel_lh_count,
    input  wire              rel_tail_valid,
    input  wire [23:0]       rel_tail_units,
    output wire              rel_error,

    // Host PIO read of the LH buffer (registered: data the cycle after rd_en)
    input  wire              rd_en,
    input  wire [RAM_AW-1:0] rd_addr,
    output wire [127:0]      rd_data,

    // Tail writes to large memory
    output wire              m_mem_valid,
    input  wire              m_mem_ready,
    output wire [MEM_AW-1:0] m_mem_addr,
    output wire [127:0]      m_mem_wdata,

    // Status
    output wire [31:0]       lh_prod,
    output wire [31:0]       lh_cons,
    output wire [23:0]       tail_wptr,
    output wire [23:0]       tail_used,
    output wire              quiet,        // between messages, both rings empty, no beat now
    output wire              ev_commit,
    output wire              ev_msg_done,
    output wire              ev_mismatch,  // with ev_msg_done: the size field lied
    output wire              ev_too_long   // with ev_msg_done: size over MAX_MSG or the ring
);

// Entry layout and flag bits: generated from hw/contract.json (go generate ./hw).
`include "lhs_regs.vh"

localparam [1:0]
    STATE_FIRST = 2'd0,
    STATE_BODY = 2'd1,
    STATE_COMMIT = 2'd2;

initial begin
    if (ENTRIES < 4 || (1 << IDX_W) != ENTRIES || MEM_AW < 28 || MEM_AW > 32) begin
        $display("lhs_rx: ENTRIES must be a power of two >= 4 and MEM_AW in 28..32 (got %0d, %0d)", ENTRIES, MEM_AW);
        $finish;
    end
    if ((LHS != 0 && LHS != 1) || CNT_W < IDX_W + 1 || CNT_W > 32) begin
        $display("lhs_rx: LHS must be 0 or 1 and CNT_W in %0d..32 (got %0d, %0d)", IDX_W + 1, LHS, CNT_W);
        $finish;
    end
    // The descriptor word (ram_wr_data at commit) is wired for this layout.
    if (ENTRY_BYTES != 64 || INLINE_MAX != 56 || ENTRY_LEN_OFFSET != 56 || ENTRY_FLAGS_OFFSET != 58 ||
        ENTRY_TAIL_PTR_OFFSET != 60 || FLAG_SPLIT != 0 || FLAG_MISMATCH != 1 || FLAG_TOO_LONG != 2) begin
        $display("lhs_rx: the entry layout in lhs_regs.vh is not the one the descriptor word is wired for");
        $finish;
    end
end

reg [1:0]        state_reg = STATE_FIRST, state_next;
reg [CNT_W-1:0]  prod_reg = 0, prod_next;
reg [CNT_W-1:0]  cons_reg = 0, cons_next;
reg [23:0]       wptr_reg = 0, wptr_next;
reg [23:0]       used_reg = 0, used_next;
reg [15:0]       beat_reg = 0, beat_next;        // index of the next beat, saturating
reg              inline_reg = 0, inline_next;
reg              split_reg = 0, split_next;
reg              too_long_reg = 0, too_long_next;
reg [31:0]       size_reg = 0, size_next;
reg [20:0]       delivered_reg = 0, delivered_next;
reg [23:0]       tail_off_reg = 0, tail_off_next;   // ring offset of the next tail unit
reg [12:0]       tail_left_reg = 0, tail_left_next; // tail units still reserved
reg [MEM_AW-5:0] tail_ptr_reg = 0, tail_ptr_next;   // first tail unit, for the entry
reg [63:0]       hold_reg = 0, hold_next;           // entry bytes 48..55
reg              short_reg = 0, short_next;         // the message ended before its size field did

// Bytes in this beat: all 16, or on the last beat the highest kept byte plus one.
reg [4:0] last_bytes;
integer i;
always @* begin
    last_bytes = 5'd16;
    if (s_msg_tkeep != 0) begin
        for (i = 0; i < 16; i = i + 1) begin
            if (s_msg_tkeep[i]) begin
                last_bytes = i[4:0] + 5'd1;
            end
        end
    end
end

// The beat as the message has it: on the last beat, bytes past the message's end are 0
// whatever the wire carried there, so nothing past tkeep reaches the size field, the LH
// buffer or large memory.
wire [127:0] keep_mask = s_msg_tlast ? {128{1'b1}} >> {(5'd16 - last_bytes), 3'd0} : {128{1'b1}};
wire [127:0] beat_data = s_msg_tdata & keep_mask;

// LHS as configured, and only where it is built.
wire lhs_on = LHS != 0 && cfg_lhs_on;

// First-beat decisions, from the size field of the beat on the bus.
wire [31:0] size = beat_data[32*cfg_size_word +: 32];
// A one-beat message that ends before byte SIZE_POS+4: its missing size bytes read as 0 and
// it is flagged MISMATCH, whatever the bytes it has say.
wire        size_short = s_msg_tlast && last_bytes < {1'b0, cfg_size_word, 2'd0} + 5'd4;
wire [16:0] split_bytes = {11'd0, cfg_split_beats, 4'd0};
wire        is_inline = lhs_on && size <= INLINE_MAX;
wire [16:0] span = lhs_on ? {1'b0, size[15:0]} + 17'd15 - split_bytes
                              : (size == 0 ? 17'd16 : {1'b0, size[15:0]} + 17'd15);
wire [12:0] units = span[16:4];
// span[3:0] only rounds up.
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0] span_unused = span[3:0];
/* verilator lint_on UNUSEDSIGNAL */
wire        too_long = !is_inline && (size > {16'd0, cfg_max_msg} || {11'd0, units} > cfg_tail_units);
wire [12:0] need = (is_inline || too_long) ? 13'd0 : units;
wire        fits = {1'b0, used_reg} + {12'd0, need} <= {1'b0, cfg_tail_units};
// The ring wraps at its end: a tail that reaches it goes on at TAIL_BASE.
wire [24:0] wptr_sum = {1'b0, wptr_reg} + {12'd0, need};
wire [23:0] wptr_after = wptr_sum >= {1'b0, cfg_tail_units} ? wptr_sum[23:0] - cfg_tail_units : wptr_sum[23:0];
wire [23:0] wptr_inc = wptr_reg + 24'd1 == cfg_tail_units ? 24'd0 : wptr_reg + 24'd1;
wire [23:0] tail_off_inc = tail_off_reg + 24'd1 == cfg_tail_units ? 24'd0 : tail_off_reg + 24'd1;
wire [CNT_W-1:0] lh_used = prod_reg - cons_reg;
wire        lh_full = {{(32-CNT_W){1'b0}}, lh_used} == ENTRIES;

// Where the beat on the bus goes.
wire        first = state_reg == STATE_FIRST;
wire [1:0]  head_beats = inline_reg ? 2'd3 : cfg_split_beats; // words 0..2; beat 3 is held
wire        beat_to_ram = lhs_on && (first || beat_reg < {14'd0, head_beats});
wire        beat_to_hold = lhs_on && !first && inline_reg && beat_reg == 16'd3;
wire        beat_to_mem = first ? (!lhs_on && !too_long && fits)
                                : (tail_left_reg != 0 && !beat_to_ram && !beat_to_hold);
wire        first_ok = cfg_enable && fits && (lhs_on ? !lh_full : (too_long || m_mem_ready));

assign s_msg_tready = first ? first_ok
                    : state_reg == STATE_BODY && (!beat_to_mem || m_mem_ready);
wire fire = s_msg_tvalid && s_msg_tready;

wire [MEM_AW-5:0] start_unit = cfg_tail_base + {{(MEM_AW-28){1'b0}}, wptr_reg};
wire [MEM_AW-5:0] mem_unit = cfg_tail_base + {{(MEM_AW-28){1'b0}}, first ? wptr_reg : tail_off_reg};
assign m_mem_valid = s_msg_tvalid && (first ? beat_to_mem && cfg_enable : state_reg == STATE_BODY && beat_to_mem);
assign m_mem_addr = {mem_unit, 4'd0};
assign m_mem_wdata = beat_data;

// Bytes delivered so far, counting this beat as the last one.
wire [20:0] delivered_now = first ? {16'd0, last_bytes} : {1'b0, beat_reg, 4'd0} + {16'd0, last_bytes};
wire [15:0] len_field = delivered_reg > 21'd65535 ? 16'hffff : delivered_reg[15:0];
wire        mismatch_reg_now = {11'd0, delivered_reg} != size_reg || short_reg;
wire [7:0]  flags = {5'd0, too_long_reg, mismatch_reg_now, split_reg}; // FLAG_*
wire [31:0] ptr_field = split_reg ? {{(32-MEM_AW){1'b0}}, tail_ptr_reg, 4'd0} : 32'd0;

// LH buffer write port: message beats, then the descriptor word at commit (entry bytes 48..63:
// bytes 48..55 of the message, len, flags, 0, tail pointer; checked against lhs_regs.vh above).
wire               commit = LHS != 0 && state_reg == STATE_COMMIT;
wire               ram_wr_en = commit || (fire && beat_to_ram);
wire [1:0]         ram_word = commit ? 2'd3 : (first ? 2'd0 : beat_reg[1:0]);
wire [RAM_AW-1:0]  ram_wr_addr = {prod_reg[IDX_W-1:0], ram_word};
wire [127:0]       ram_wr_data = commit ? {ptr_field, 8'd0, flags, len_field, hold_reg} : beat_data;

generate
if (LHS != 0) begin : g_lh_buffer
    lhs_ram_sdp #(
        .DATA_W(128),
        .ADDR_W(RAM_AW)
    )
    lh_ram (
        .clk(clk),
        .wr_en(ram_wr_en),
        .wr_addr(ram_wr_addr),
        .wr_data(ram_wr_data),
        .rd_en(rd_en),
        .rd_addr(rd_addr),
        .rd_data(rd_data)
    );
end else begin : g_no_lh_buffer
    assign rd_data = 128'd0;
    // Without the LH buffer its ports and write side drive nothing.
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_lh = &{1'b0, rd_en, rd_addr, ram_wr_en, ram_wr_addr, ram_wr_data};
    /* verilator lint_on UNUSEDSIGNAL */
end
endgenerate

// Host releases are checked against what is in use before this cycle's changes.
wire rel_lh_bad = LHS != 0 && rel_lh_valid && rel_lh_count > {{(32-CNT_W){1'b0}}, lh_used};
wire rel_tail_bad = rel_tail_valid && rel_tail_units > used_reg;
assign rel_error = rel_lh_bad || rel_tail_bad;

wire last_fire = fire && s_msg_tlast;
wire off_done = last_fire && !lhs_on;

assign ev_commit = commit;
assign ev_msg_done = commit || off_done;
assign ev_mismatch = commit ? mismatch_reg_now
                   : off_done && ({11'd0, delivered_now} != (first ? size : size_reg) || (first && size_short));
assign ev_too_long = commit ? too_long_reg : off_done && (first ? too_long : too_long_reg);

assign lh_prod = {{(32-CNT_W){1'b0}}, prod_reg};
assign lh_cons = {{(32-CNT_W){1'b0}}, cons_reg};
assign tail_wptr = wptr_reg;
assign tail_used = used_reg;
assign quiet = first && !fire && prod_reg == cons_reg && used_reg == 0;

always @* begin
    state_next = state_reg;
    prod_next = prod_reg;
    cons_next = cons_reg;
    wptr_next = wptr_reg;
    used_next = used_reg;
    beat_next = beat_reg;
    inline_next = inline_reg;
    split_next = split_reg;
    too_long_next = too_long_reg;
    size_next = size_reg;
    delivered_next = delivered_reg;
    tail_off_next = tail_off_reg;
    tail_left_next = tail_left_reg;
    tail_ptr_next = tail_ptr_reg;
    hold_next = hold_reg;
    short_next = short_reg;

    if (LHS != 0 && rel_lh_valid && !rel_lh_bad) begin
        cons_next = cons_reg + rel_lh_count[CNT_W-1:0];
    end
    if (rel_tail_valid && !rel_tail_bad) begin
        used_next = used_reg - rel_tail_units;
    end

    if (commit) begin
        prod_next = prod_reg + 1;
        state_next = STATE_FIRST;
    end

    if (fire) begin
        if (first) begin
            inline_next = is_inline;
            split_next = !is_inline && !too_long && lhs_on;
            too_long_next = too_long;
            size_next = size;
            hold_next = 64'd0;
            short_next = size_short;
            tail_ptr_next = start_unit;
            tail_off_next = beat_to_mem ? wptr_inc : wptr_reg;
            tail_left_next = need - (beat_to_mem ? 13'd1 : 13'd0);
            wptr_next = wptr_after;
            used_next = used_next + {11'd0, need};
        end else begin
            if (beat_to_hold) begin
                hold_next = beat_data[63:0];
            end
            if (beat_to_mem) begin
                tail_off_next = tail_off_inc;
                tail_left_next = tail_left_reg - 1;
            end
        end
        if (first) begin
            beat_next = 16'd1;
        end else if (beat_reg != 16'hffff) begin
            beat_next = beat_reg + 1;
        end
        if (s_msg_tlast) begin
            delivered_next = delivered_now;
            state_next = lhs_on ? STATE_COMMIT : STATE_FIRST;
        end else begin
            state_next = STATE_BODY;
        end
    end

    // Quiet, so no beat moves and the ring is empty: it starts over at its base.
    if (cfg_ring_reset) begin
        wptr_next = 24'd0;
    end
end

always @(posedge clk) begin
    if (rst) begin
        state_reg <= STATE_FIRST;
        prod_reg <= 0;
        cons_reg <= 0;
        wptr_reg <= 0;
        used_reg <= 0;
        beat_reg <= 0;
        inline_reg <= 0;
        split_reg <= 0;
        too_long_reg <= 0;
        tail_left_reg <= 0;
    end else begin
        state_reg <= state_next;
        prod_reg <= prod_next;
        cons_reg <= cons_next;
        wptr_reg <= wptr_next;
        used_reg <= used_next;
        beat_reg <= beat_next;
        inline_reg <= inline_next;
        split_reg <= split_next;
        too_long_reg <= too_long_next;
        tail_left_reg <= tail_left_next;
    end
    size_reg <= size_next;
    delivered_reg <= delivered_next;
    tail_off_reg <= tail_off_next;
    tail_ptr_reg <= tail_ptr_next;
    hold_reg <= hold_next;
    short_reg <= short_next;
end

endmodule

`resetall
`default_nettype wire
