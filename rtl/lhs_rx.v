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

`ifdef FORMAL
// Properties of the splitter and the LH buffer (docs/formal.md; `lhsim formal` proves them
// with yosys-smtbmc). They speak of the ports as docs/design.md does: which beat of a message
// is which comes from a shadow of the stream built from its handshakes alone, and what a
// message reserves from its size field as the contract reads it. Assertions only: the
// environment's assumptions are in formal/lhs_formal.v, on lhs_top's ports.

// The beat as the contract reads it: on a last beat the bytes from the highest set tkeep bit
// up read 0 (tkeep == 0: all 16 bytes).
reg  [4:0]   f_bytes;
reg          f_found;
reg  [127:0] f_data;
integer      f_i;
always @* begin
    f_bytes = 5'd16;
    f_found = 1'b0;
    if (s_msg_tlast) begin
        for (f_i = 15; f_i >= 0; f_i = f_i - 1) begin
            if (!f_found && s_msg_tkeep[f_i]) begin
                f_bytes = f_i[4:0] + 5'd1;
                f_found = 1'b1;
            end
        end
    end
    for (f_i = 0; f_i < 16; f_i = f_i + 1) begin
        f_data[8*f_i +: 8] = f_i < f_bytes ? s_msg_tdata[8*f_i +: 8] : 8'd0;
    end
end

// What the message on the bus reserves (docs/design.md, LHS rule and tail ring).
wire [31:0] f_size = f_data[32*cfg_size_word +: 32];
wire [33:0] f_units = cfg_lhs_on ? ({2'd0, f_size} + 34'd15 - {28'd0, cfg_split_beats, 4'd0}) >> 4
                    : (f_size == 0 ? 34'd1 : ({2'd0, f_size} + 34'd15) >> 4);
wire        f_inline = cfg_lhs_on && f_size <= INLINE_MAX;
wire        f_too_long = !f_inline && (f_size > {16'd0, cfg_max_msg} || f_units > {10'd0, cfg_tail_units});
wire [23:0] f_need = (f_inline || f_too_long) ? 24'd0 : f_units[23:0];
wire        f_room = {1'b0, used_reg} + {1'b0, f_need} <= {1'b0, cfg_tail_units};
wire        f_fire = s_msg_tvalid && s_msg_tready;
wire [31:0] f_occ = prod_reg - cons_reg;

// The stream as its handshakes show it.
reg         f_in_msg = 1'b0;      // a message's first beat was taken and its last not yet
reg         f_commit_due = 1'b0;  // LHS on: its last beat was taken the cycle before
reg  [15:0] f_beat = 16'd0;       // beats of the message taken so far (saturating)
reg  [1:0]  f_head = 2'd0;        // index of its first beat for large memory
reg  [23:0] f_need_reg = 24'd0;   // units it reserved
reg  [23:0] f_start = 24'd0;      // TAIL_WPTR at its first beat: where its units start
reg  [23:0] f_tw = 24'd0;         // its beats written to large memory so far
reg  [31:0] f_lhs_msgs = 32'd0;   // messages ended with LHS on

// Does the beat on the bus go to large memory, and to which ring offset?
wire [23:0] f_tail_idx = {8'd0, f_beat} - {22'd0, f_head};
wire        f_to_mem = f_in_msg ? f_beat >= {14'd0, f_head} && f_tail_idx < f_need_reg
                                : !f_commit_due && !cfg_lhs_on && f_need != 0;
wire [24:0] f_off_sum = {1'b0, f_start} + {1'b0, f_tw};
wire [23:0] f_off = !f_in_msg ? wptr_reg
                  : f_off_sum >= {1'b0, cfg_tail_units} ? f_off_sum[23:0] - cfg_tail_units : f_off_sum[23:0];

always @(posedge clk) begin
    if (rst) begin
        f_in_msg <= 1'b0;
        f_commit_due <= 1'b0;
        f_beat <= 16'd0;
        f_tw <= 24'd0;
        f_lhs_msgs <= 32'd0;
    end else begin
        f_commit_due <= f_fire && s_msg_tlast && cfg_lhs_on;
        if (f_fire) begin
            f_in_msg <= !s_msg_tlast;
            f_beat <= !f_in_msg ? 16'd1 : f_beat == 16'hffff ? f_beat : f_beat + 16'd1;
            f_tw <= (!f_in_msg ? 24'd0 : f_tw) + (f_to_mem ? 24'd1 : 24'd0);
            if (!f_in_msg) begin
                f_head <= cfg_lhs_on ? cfg_split_beats : 2'd0;
                f_need_reg <= f_need;
                f_start <= wptr_reg;
            end
            if (s_msg_tlast && cfg_lhs_on) begin
                f_lhs_msgs <= f_lhs_msgs + 32'd1;
            end
        end
    end
end

always @* begin
    if (!rst) begin
        // Every tail write is the beat on the bus that the contract sends to large memory, at
        // the next unit of its reservation, and moves exactly when that beat moves: no beat is
        // dropped on the way, none written twice.
        if (m_mem_valid) begin
            rx_tail_write_is_beat: assert (s_msg_tvalid && f_to_mem && m_mem_wdata == f_data &&
                                           m_mem_addr == {cfg_tail_base + {{(MEM_AW-28){1'b0}}, f_off}, 4'd0});
        end
        rx_tail_write_moves_beat: assert ((m_mem_valid && m_mem_ready) == (f_fire && f_to_mem));

        // The network waits only for the documented reasons: the commit cycle; at a message's
        // first beat ENABLE off, the LH buffer full (LHS on), no room in the tail ring, or the
        // memory port busy (LHS off); later, the memory port busy for a tail beat.
        if (s_msg_tvalid && !s_msg_tready) begin
            rx_tready_low_reason: assert (f_commit_due ||
                !f_in_msg && (!cfg_enable || cfg_lhs_on && f_occ == ENTRIES || !f_room ||
                              !cfg_lhs_on && f_need != 0 && !m_mem_ready) ||
                f_in_msg && f_to_mem && !m_mem_ready);
        end

        // One message, one entry (LHS on): it commits the cycle after its last beat, never
        // else; LH_PROD counts exactly the messages committed; every LH buffer write goes to
        // the entry of the message in order, and never into an entry the host holds
        // (LH_CONS <= e < LH_PROD).
        rx_commit_once: assert (ev_commit == f_commit_due && prod_reg + {31'd0, f_commit_due} == f_lhs_msgs);
        if (ram_wr_en) begin
            rx_lh_write_in_order: assert ((f_fire && cfg_lhs_on || f_commit_due) &&
                                          ram_wr_addr[RAM_AW-1:2] == prod_reg[IDX_W-1:0] &&
                                          prod_reg == f_lhs_msgs - {31'd0, f_commit_due});
            rx_lh_no_overwrite: assert ({{(32-IDX_W){1'b0}}, ram_wr_addr[RAM_AW-1:2] - cons_reg[IDX_W-1:0]} >= f_occ);
        end

        // Occupancy never exceeds the buffer or the ring, so neither count ever underflows.
        rx_lh_occupancy: assert (f_occ <= ENTRIES);
        rx_tail_used: assert (used_reg <= cfg_tail_units);

        // Depth: a tail that wraps to the ring's base, an LH entry used a second time.
        rx_cover_tail_wraps: cover (f_in_msg && f_to_mem && m_mem_ready && f_tw != 0 && f_off == 0);
        rx_cover_lh_wraps: cover (ev_commit && prod_reg[IDX_W-1:0] == 0 && prod_reg != 0);

        // Induction: the splitter's registers agree with the shadow of the stream.
        rx_inv_state: assert (state_reg != 2'd3 && f_in_msg == (state_reg == STATE_BODY) &&
                              f_commit_due == (state_reg == STATE_COMMIT) && wptr_reg < cfg_tail_units &&
                              (!(f_in_msg && cfg_lhs_on || f_commit_due) || f_occ < ENTRIES));
        if (f_in_msg) begin
            rx_inv_body: assert (beat_reg == f_beat && f_beat != 0 && f_start < cfg_tail_units &&
                                 f_need_reg <= 24'd4096 && f_need_reg <= cfg_tail_units && f_tw <= f_need_reg &&
                                 {11'd0, tail_left_reg} == f_need_reg - f_tw && tail_off_reg == f_off &&
                                 f_tw == (f_beat <= {14'd0, f_head} ? 24'd0 :
                                          f_tail_idx < f_need_reg ? f_tail_idx : f_need_reg) &&
                                 f_head == (cfg_lhs_on ? cfg_split_beats : 2'd0) &&
                                 (!cfg_lhs_on || f_need_reg == 0 || !inline_reg && cfg_split_beats != 0));
        end
    end
end
`endif

endmodule

`resetall
`default_nettype wire
