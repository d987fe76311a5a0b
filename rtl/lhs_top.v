/*
 * DIMMnet-style NIC receive path: the LHS receive block, the window memory with its vector
 * engine, the large-memory arbiter and the host register file (docs/design.md has the map).
 *
 * The host bus never stalls: a read returns two cycles after its request, whatever it reads
 * (registers, read window, or LH buffer), so PIO bursts pipeline one word per cycle.
 * Configuration registers change only while the receive block is quiet; other writes are
 * ignored and flagged, so a running receive never sees its rules change under it.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module lhs_top #
(
    // LH entries of 64 bytes (power of two)
    parameter ENTRIES = 1024,
    // Bytes in each window (power of two, 64..65536)
    parameter WIN_BYTES = 4096,
    // Large-memory address width: 2**MEM_AW bytes (512 MiB: two 256 MB SO-DIMMs)
    parameter MEM_AW = 29,
    // Derived widths
    parameter IDX_W = $clog2(ENTRIES),
    parameter WIN_AW = $clog2(WIN_BYTES) - 4
)
(
    input  wire         clk,
    input  wire         rst,

    // Network input
    input  wire [127:0] s_msg_tdata,
    input  wire [15:0]  s_msg_tkeep,
    input  wire         s_msg_tvalid,
    output wire         s_msg_tready,
    input  wire         s_msg_tlast,

    // Host bus
    input  wire         host_valid,
    input  wire         host_write,
    input  wire [19:0]  host_addr,
    input  wire [31:0]  host_wdata,
    output reg          host_rvalid = 1'b0,
    output reg  [31:0]  host_rdata = 32'd0,

    // Large memory (SO-DIMM)
    output wire         m_mem_valid,
    input  wire         m_mem_ready,
    output wire         m_mem_write,
    output wire [31:0]  m_mem_addr,
    output wire [127:0] m_mem_wdata,
    input  wire         s_mem_rvalid,
    input  wire [127:0] s_mem_rdata,

    // Events
    output wire         ev_commit,
    output wire         ev_msg_done,
    output wire         ev_vec_done
);

// Register map, bits and reset values: generated from hw/contract.json (go generate ./hw).
`include "lhs_regs.vh"

// The read values of CTRL, PARAMS and VEC_STATUS below are wired for these bit positions.
initial begin
    if (CTRL_ENABLE != 0 || CTRL_LHS_ON != 1 || PARAMS_LOG2_ENTRIES_LSB != 0 || PARAMS_LOG2_ENTRIES_W != 16 ||
        PARAMS_WIN_UNITS_LSB != 16 || PARAMS_WIN_UNITS_W != 16 || VEC_BUSY != 0 || VEC_DONE != 1 ||
        VEC_ERROR != 2 || VEC_CAUSE_LSB != 8 || VEC_CAUSE_W != 4) begin
        $display("lhs_top: the register bits in lhs_regs.vh are not the ones the read values are wired for");
        $finish;
    end
end

// Address decode of the request on the bus.
wire sel_reg = host_addr[19:16] == REGISTERS_BASE[19:16];
wire sel_rwin = host_addr[19:16] == READ_WINDOW_BASE[19:16];
wire sel_wwin = host_addr[19:16] == WRITE_WINDOW_BASE[19:16];
wire sel_lh = host_addr[19];
wire [7:0] reg_addr = host_addr[7:0];
wire reg_wr = host_valid && host_write && sel_reg && host_addr[15:8] == 0;
wire reg_rd = host_valid && !host_write;

// Registers: each x_reg takes x_next at the clock (the register file's always @* below).
reg         enable_reg = CTRL_RESET[CTRL_ENABLE], enable_next;
reg         lhs_on_reg = CTRL_RESET[CTRL_LHS_ON], lhs_on_next;
reg [1:0]   size_word_reg = SIZE_POS_RESET[3:2], size_word_next;         // bytes / 4
reg [1:0]   split_beats_reg = SPLIT_POS_RESET[5:4], split_beats_next;    // bytes / 16
reg [15:0]  max_msg_reg = MAX_MSG_RESET[15:0], max_msg_next;
reg [27:0]  tail_base_reg = TAIL_BASE_RESET[31:4], tail_base_next;       // bytes / 16
reg [23:0]  tail_units_reg = TAIL_SIZE_RESET[27:4], tail_units_next;     // bytes / 16
reg [31:0]  vec_mem_addr_reg = VEC_MEM_ADDR_RESET, vec_mem_addr_next;
reg [31:0]  vec_win_off_reg = VEC_WIN_OFF_RESET, vec_win_off_next;
reg [31:0]  vec_len_reg = VEC_LEN_RESET, vec_len_next;
reg [ERR_W-1:0] err_reg = 0, err_next;
reg [31:0]  msg_count_reg = 0, msg_count_next;
reg [31:0]  stall_reg = 0, stall_next;
reg [31:0]  drop_reg = 0, drop_next;
reg [31:0]  mismatch_count_reg = 0, mismatch_count_next;
reg [31:0]  stored_reg = 0, stored_next;

wire rx_quiet;
wire vec_busy;

// Configuration writes: only while the receive block is quiet, only legal values.
wire cfg_addr = reg_addr == REG_SIZE_POS || reg_addr == REG_SPLIT_POS || reg_addr == REG_MAX_MSG ||
                reg_addr == REG_TAIL_BASE || reg_addr == REG_TAIL_SIZE;
wire lhs_on_change = reg_addr == REG_CTRL && host_wdata[CTRL_LHS_ON] != lhs_on_reg;
wire cfg_wr = reg_wr && (cfg_addr || lhs_on_change);
wire cfg_busy = cfg_wr && !rx_quiet;
wire [32:0] tail_base_bytes = {1'b0, tail_base_reg, 4'd0};
wire [32:0] tail_size_bytes = {5'd0, tail_units_reg, 4'd0};
wire [32:0] mem_bytes = 33'd1 << MEM_AW;
reg cfg_bad;
always @* begin
    cfg_bad = 1'b0;
    case (reg_addr)
        REG_SIZE_POS: cfg_bad = host_wdata[1:0] != 0 || host_wdata > 12;
        REG_SPLIT_POS: cfg_bad = host_wdata[3:0] != 0 || host_wdata < 16 || host_wdata > 48;
        REG_MAX_MSG: cfg_bad = host_wdata > 32'hffff;
        REG_TAIL_BASE: cfg_bad = host_wdata[3:0] != 0 || {1'b0, host_wdata} + tail_size_bytes > mem_bytes;
        REG_TAIL_SIZE: cfg_bad = host_wdata[3:0] != 0 || host_wdata < 16 || host_wdata > TAIL_SIZE_MAX ||
                                 tail_base_bytes + {1'b0, host_wdata} > mem_bytes;
        default: cfg_bad = 1'b0;
    endcase
end
wire cfg_take = cfg_wr && rx_quiet && !cfg_bad;

wire vec_addr = reg_addr == REG_VEC_MEM_ADDR || reg_addr == REG_VEC_WIN_OFF ||
                reg_addr == REG_VEC_LEN || reg_addr == REG_VEC_CMD;
wire vec_wr_busy = reg_wr && vec_addr && vec_busy;
wire vec_take = reg_wr && vec_addr && !vec_busy;
wire vec_cmd = vec_take && reg_addr == REG_VEC_CMD;

wire rel_lh = reg_wr && reg_addr == REG_LH_RELEASE;
wire rel_tail = reg_wr && reg_addr == REG_TAIL_RELEASE;
// Not a 16-byte multiple, or 256 MiB or more (more than any ring holds): refused whole, never
// taken modulo the width of rel_tail_units.
wire rel_tail_bad = rel_tail && (host_wdata[3:0] != 0 || host_wdata[31:28] != 0);
// A new base or size starts the ring over at its base (it is empty: configuration waits).
wire ring_reset = cfg_take && (reg_addr == REG_TAIL_BASE || reg_addr == REG_TAIL_SIZE);
wire rel_error;

// Receive block.
wire [31:0]       lh_prod, lh_cons;
wire [23:0]       tail_wptr, tail_used;
wire [127:0]      lh_rd_data;
wire              rx_mem_valid, rx_mem_ready;
wire [MEM_AW-1:0] rx_mem_addr;
wire [127:0]      rx_mem_wdata;
wire              rx_mismatch, rx_too_long;

lhs_rx #(
    .ENTRIES(ENTRIES),
    .MEM_AW(MEM_AW)
)
rx (
    .clk(clk),
    .rst(rst),
    .s_msg_tdata(s_msg_tdata),
    .s_msg_tkeep(s_msg_tkeep),
    .s_msg_tvalid(s_msg_tvalid),
    .s_msg_tready(s_msg_tready),
    .s_msg_tlast(s_msg_tlast),
    .cfg_enable(enable_reg),
    .cfg_lhs_on(lhs_on_reg),
    .cfg_size_word(size_word_reg),
    .cfg_split_beats(split_beats_reg),
    .cfg_max_msg(max_msg_reg),
    .cfg_tail_base(tail_base_reg[MEM_AW-5:0]),
    .cfg_tail_units(tail_units_reg),
    .cfg_ring_reset(ring_reset),
    .rel_lh_valid(rel_lh),
    .rel_lh_count(host_wdata),
    .rel_tail_valid(rel_tail && !rel_tail_bad),
    .rel_tail_units(host_wdata[27:4]),
    .rel_error(rel_error),
    .rd_en(host_valid && !host_write && sel_lh),
    .rd_addr(host_addr[IDX_W+5:4]),
    .rd_data(lh_rd_data),
    .m_mem_valid(rx_mem_valid),
    .m_mem_ready(rx_mem_ready),
    .m_mem_addr(rx_mem_addr),
    .m_mem_wdata(rx_mem_wdata),
    .lh_prod(lh_prod),
    .lh_cons(lh_cons),
    .tail_wptr(tail_wptr),
    .tail_used(tail_used),
    .quiet(rx_quiet),
    .ev_commit(ev_commit),
    .ev_msg_done(ev_msg_done),
    .ev_mismatch(rx_mismatch),
    .ev_too_long(rx_too_long)
);

// Vector engine.
wire              vec_done, vec_error;
wire [3:0]        vec_cause;
wire [127:0]      rwin_rd_data;
wire              vec_mem_valid, vec_mem_ready, vec_mem_write;
wire [MEM_AW-1:0] vec_mem_addr;
wire [127:0]      vec_mem_wdata;

lhs_vector_engine #(
    .WIN_BYTES(WIN_BYTES),
    .MEM_AW(MEM_AW)
)
vec (
    .clk(clk),
    .rst(rst),
    .cmd_valid(vec_cmd),
    .cmd_op(host_wdata),
    .cmd_mem_addr(vec_mem_addr_reg),
    .cmd_win_off(vec_win_off_reg),
    .cmd_len(vec_len_reg),
    .busy(vec_busy),
    .done(vec_done),
    .error(vec_error),
    .cause(vec_cause),
    .ev_done(ev_vec_done),
    .rwin_rd_en(host_valid && !host_write && sel_rwin),
    .rwin_rd_addr(host_addr[WIN_AW+3:4]),
    .rwin_rd_data(rwin_rd_data),
    .wwin_wr_en(host_valid && host_write && sel_wwin && host_addr[15:WIN_AW+4] == 0),
    .wwin_wr_addr(host_addr[WIN_AW+3:2]),
    .wwin_wr_data(host_wdata),
    .m_mem_valid(vec_mem_valid),
    .m_mem_ready(vec_mem_ready),
    .m_mem_write(vec_mem_write),
    .m_mem_addr(vec_mem_addr),
    .m_mem_wdata(vec_mem_wdata),
    .s_mem_rvalid(s_mem_rvalid),
    .s_mem_rdata(s_mem_rdata)
);

// Large-memory arbiter: the network never waits behind a vector command.
assign rx_mem_ready = m_mem_ready;
assign vec_mem_ready = m_mem_ready && !rx_mem_valid;
assign m_mem_valid = rx_mem_valid || vec_mem_valid;
assign m_mem_write = rx_mem_valid || vec_mem_write;
assign m_mem_addr = {{(32-MEM_AW){1'b0}}, rx_mem_valid ? rx_mem_addr : vec_mem_addr};
assign m_mem_wdata = rx_mem_valid ? rx_mem_wdata : vec_mem_wdata;

// Register read value for the request on the bus.
reg [31:0] reg_value;
always @* begin
    reg_value = 32'd0;
    if (host_addr[15:8] == 0) begin
        case (reg_addr)
            REG_ID: reg_value = ID;
            REG_CTRL: reg_value = {30'd0, lhs_on_reg, enable_reg};
            REG_SIZE_POS: reg_value = {28'd0, size_word_reg, 2'd0};
            REG_SPLIT_POS: reg_value = {26'd0, split_beats_reg, 4'd0};
            REG_MAX_MSG: reg_value = {16'd0, max_msg_reg};
            REG_TAIL_BASE: reg_value = {tail_base_reg, 4'd0};
            REG_TAIL_SIZE: reg_value = {4'd0, tail_units_reg, 4'd0};
            REG_PARAMS: reg_value = {WIN_BYTES[19:4], IDX_W[15:0]};
            REG_LH_PROD: reg_value = lh_prod;
            REG_LH_CONS: reg_value = lh_cons;
            REG_TAIL_WPTR: reg_value = {4'd0, tail_wptr, 4'd0};
            REG_TAIL_USED: reg_value = {4'd0, tail_used, 4'd0};
            REG_VEC_MEM_ADDR: reg_value = vec_mem_addr_reg;
            REG_VEC_WIN_OFF: reg_value = vec_win_off_reg;
            REG_VEC_LEN: reg_value = vec_len_reg;
            REG_VEC_STATUS: reg_value = {20'd0, vec_cause, 5'd0, vec_error, vec_done, vec_busy};
            REG_ERR: reg_value = {{(32-ERR_W){1'b0}}, err_reg};
            REG_MSG_COUNT: reg_value = msg_count_reg;
            REG_STALL_CYCLES: reg_value = stall_reg;
            REG_DROP_COUNT: reg_value = drop_reg;
            REG_MISMATCH_COUNT: reg_value = mismatch_count_reg;
            REG_STORED_COUNT: reg_value = stored_reg;
            default: reg_value = 32'd0;
        endcase
    end
end

// Read pipeline: stage 1 holds the register value or waits for the RAM, stage 2 drives the bus.
// What stage 1 read from:
localparam [1:0]
    RD_SRC_REG = 2'd0,   // a register: its value is taken in stage 1
    RD_SRC_RWIN = 2'd1,  // the read window
    RD_SRC_LH = 2'd2,    // the LH buffer
    RD_SRC_ZERO = 2'd3;  // nothing there (an LH address past ENTRIES, an unmapped page): 0

reg        rd1_valid_reg = 1'b0, rd1_valid_next;
reg [1:0]  rd1_src_reg = RD_SRC_REG, rd1_src_next;
reg [1:0]  rd1_lane_reg = 2'd0, rd1_lane_next;
reg [31:0] rd1_value_reg = 32'd0, rd1_value_next;

// LH window addresses past ENTRIES read 0 (not an alias of a lower entry).
wire lh_beyond = |({13'd0, host_addr[18:0]} >> (IDX_W + 6));

wire [127:0] rd1_word = rd1_src_reg == RD_SRC_RWIN ? rwin_rd_data : lh_rd_data;
wire [31:0]  rd1_data = rd1_src_reg == RD_SRC_REG ? rd1_value_reg :
                        rd1_src_reg == RD_SRC_ZERO ? 32'd0 : rd1_word[32*rd1_lane_reg +: 32];

always @* begin
    rd1_valid_next = reg_rd && !rst;
    rd1_src_next = sel_lh ? (lh_beyond ? RD_SRC_ZERO : RD_SRC_LH) : sel_rwin ? RD_SRC_RWIN : sel_reg ? RD_SRC_REG : RD_SRC_ZERO;
    rd1_lane_next = host_addr[3:2];
    rd1_value_next = reg_value;
end

always @(posedge clk) begin
    rd1_valid_reg <= rd1_valid_next;
    rd1_src_reg <= rd1_src_next;
    rd1_lane_reg <= rd1_lane_next;
    rd1_value_reg <= rd1_value_next;
    host_rvalid <= rd1_valid_reg && !rst;
    host_rdata <= rd1_data;
end

// Register writes and statistics.
always @* begin
    enable_next = enable_reg;
    lhs_on_next = lhs_on_reg;
    size_word_next = size_word_reg;
    split_beats_next = split_beats_reg;
    max_msg_next = max_msg_reg;
    tail_base_next = tail_base_reg;
    tail_units_next = tail_units_reg;
    vec_mem_addr_next = vec_mem_addr_reg;
    vec_win_off_next = vec_win_off_reg;
    vec_len_next = vec_len_reg;
    err_next = err_reg;
    msg_count_next = msg_count_reg;
    stall_next = stall_reg;
    drop_next = drop_reg;
    mismatch_count_next = mismatch_count_reg;
    stored_next = stored_reg;

    if (reg_wr && reg_addr == REG_CTRL) begin
        enable_next = host_wdata[CTRL_ENABLE];
    end
    if (cfg_take) begin
        case (reg_addr)
            REG_CTRL: lhs_on_next = host_wdata[CTRL_LHS_ON];
            REG_SIZE_POS: size_word_next = host_wdata[3:2];
            REG_SPLIT_POS: split_beats_next = host_wdata[5:4];
            REG_MAX_MSG: max_msg_next = host_wdata[15:0];
            REG_TAIL_BASE: tail_base_next = host_wdata[31:4];
            REG_TAIL_SIZE: tail_units_next = host_wdata[27:4];
            default: ;
        endcase
    end
    if (vec_take) begin
        case (reg_addr)
            REG_VEC_MEM_ADDR: vec_mem_addr_next = host_wdata;
            REG_VEC_WIN_OFF: vec_win_off_next = host_wdata;
            REG_VEC_LEN: vec_len_next = host_wdata;
            default: ;
        endcase
    end

    if (reg_wr && reg_addr == REG_ERR) begin
        err_next = err_reg & ~host_wdata[ERR_W-1:0];
    end
    if (cfg_busy) err_next[ERR_CFG_BUSY] = 1'b1;
    if (cfg_wr && rx_quiet && cfg_bad) err_next[ERR_CFG_VALUE] = 1'b1;
    if (ev_msg_done && rx_mismatch) err_next[ERR_MISMATCH] = 1'b1;
    if (ev_msg_done && rx_too_long) err_next[ERR_TOO_LONG] = 1'b1;
    if (rel_error || rel_tail_bad) err_next[ERR_RELEASE] = 1'b1;
    if (vec_wr_busy) err_next[ERR_VEC_BUSY] = 1'b1;

    if (ev_msg_done) msg_count_next = msg_count_reg + 1;
    if (ev_msg_done && rx_mismatch) mismatch_count_next = mismatch_count_reg + 1;
    if (ev_msg_done && rx_too_long && !lhs_on_reg) drop_next = drop_reg + 1;
    if (ev_msg_done && !(rx_too_long && !lhs_on_reg)) stored_next = stored_reg + 1;
    if (s_msg_tvalid && !s_msg_tready) stall_next = stall_reg + 1;
end

always @(posedge clk) begin
    if (rst) begin
        enable_reg <= CTRL_RESET[CTRL_ENABLE];
        lhs_on_reg <= CTRL_RESET[CTRL_LHS_ON];
        size_word_reg <= SIZE_POS_RESET[3:2];
        split_beats_reg <= SPLIT_POS_RESET[5:4];
        max_msg_reg <= MAX_MSG_RESET[15:0];
        tail_base_reg <= TAIL_BASE_RESET[31:4];
        tail_units_reg <= TAIL_SIZE_RESET[27:4];
        vec_mem_addr_reg <= VEC_MEM_ADDR_RESET;
        vec_win_off_reg <= VEC_WIN_OFF_RESET;
        vec_len_reg <= VEC_LEN_RESET;
        err_reg <= 0;
        msg_count_reg <= 0;
        stall_reg <= 0;
        drop_reg <= 0;
        mismatch_count_reg <= 0;
        stored_reg <= 0;
    end else begin
        enable_reg <= enable_next;
        lhs_on_reg <= lhs_on_next;
        size_word_reg <= size_word_next;
        split_beats_reg <= split_beats_next;
        max_msg_reg <= max_msg_next;
        tail_base_reg <= tail_base_next;
        tail_units_reg <= tail_units_next;
        vec_mem_addr_reg <= vec_mem_addr_next;
        vec_win_off_reg <= vec_win_off_next;
        vec_len_reg <= vec_len_next;
        err_reg <= err_next;
        msg_count_reg <= msg_count_next;
        stall_reg <= stall_next;
        drop_reg <= drop_next;
        mismatch_count_reg <= mismatch_count_next;
        stored_reg <= stored_next;
    end
end

`ifdef FORMAL
// Properties of the register file and the memory arbiter (docs/formal.md; `lhsim formal`
// proves them with yosys-smtbmc). Assertions only: the environment's assumptions are in
// formal/lhs_formal.v, on this module's ports.

reg         f_past = 1'b0;   // a cycle out of reset came before this one
reg         f_quiet_was = 1'b0;
reg  [73:0] f_cfg_was = 74'd0;
wire [73:0] f_cfg = {lhs_on_reg, size_word_reg, split_beats_reg, max_msg_reg, tail_base_reg, tail_units_reg};
always @(posedge clk) begin
    f_past <= !rst;
    f_quiet_was <= rx_quiet;
    f_cfg_was <= f_cfg;
end

// Memory requests not taken, from either side, and host writes that may withdraw one.
reg               f_rx_waited = 1'b0, f_vec_waited = 1'b0, f_ctrl_written = 1'b0;
reg               f_vec_write_was = 1'b0;
reg  [MEM_AW-1:0] f_rx_addr_was = 0, f_vec_addr_was = 0;
reg  [127:0]      f_rx_wdata_was = 128'd0, f_vec_wdata_was = 128'd0;
always @(posedge clk) begin
    f_rx_waited <= !rst && rx_mem_valid && !rx_mem_ready;
    f_vec_waited <= !rst && vec_mem_valid && !vec_mem_ready;
    f_ctrl_written <= reg_wr && (reg_addr == REG_CTRL || cfg_addr);
    f_rx_addr_was <= rx_mem_addr;
    f_rx_wdata_was <= rx_mem_wdata;
    f_vec_addr_was <= vec_mem_addr;
    f_vec_wdata_was <= vec_mem_wdata;
    f_vec_write_was <= vec_mem_write;
end

wire [32:0] f_ring_lo = {1'b0, tail_base_reg, 4'd0};
wire [32:0] f_ring_hi = f_ring_lo + {5'd0, tail_units_reg, 4'd0};

always @* begin
    if (!rst) begin
        // Every write the splitter makes to large memory lies in [TAIL_BASE, TAIL_BASE +
        // TAIL_SIZE), whatever configuration writes, releases and messages came before.
        if (rx_mem_valid) begin
            top_tail_in_ring: assert (m_mem_write && {1'b0, m_mem_addr} >= f_ring_lo && {1'b0, m_mem_addr} < f_ring_hi);
        end
        // Configuration changes only at a clock edge where the splitter was quiet (between
        // messages, both rings empty), so no message sees its rules change under it.
        if (f_past && !f_quiet_was) begin
            top_cfg_stable: assert (f_cfg == f_cfg_was);
        end
        // A memory request not taken stays, unchanged, until it is taken: the vector engine's
        // always; the splitter's unless the host wrote CTRL or a configuration register in
        // the cycle before (a first beat that waits for the port is not yet taken, so the
        // splitter is still quiet and the write is taken: the request follows the new
        // configuration, or is withdrawn). At the port, a waiting vector request also gives
        // way to a tail write (the splitter's priority, docs/design.md).
        if (f_vec_waited) begin
            top_mem_vec_holds: assert (vec_mem_valid && vec_mem_write == f_vec_write_was && vec_mem_addr == f_vec_addr_was &&
                                       (!vec_mem_write || vec_mem_wdata == f_vec_wdata_was));
        end
        if (f_rx_waited && !f_ctrl_written) begin
            top_mem_rx_holds: assert (rx_mem_valid && rx_mem_addr == f_rx_addr_was && rx_mem_wdata == f_rx_wdata_was);
        end
        // The two ways a request at the port changes before it is taken, shown reachable.
        top_cover_mem_preempted: cover (f_vec_waited && rx_mem_valid);
        top_cover_mem_withdrawn: cover (f_rx_waited && f_ctrl_written && !rx_mem_valid);
        // The ring shrunk below the write pointer (the resize the first property guards).
        top_cover_ring_shrunk: cover (ring_reset && reg_addr == REG_TAIL_SIZE && host_wdata[27:4] <= tail_wptr);

        // Induction: the configuration is legal: the ring lies inside large memory.
        top_inv_cfg: assert (split_beats_reg != 0 && tail_units_reg != 0 && tail_units_reg <= TAIL_SIZE_MAX[27:4] &&
                              f_ring_hi <= mem_bytes);
    end
end
`endif

endmodule

`resetall
`default_nettype wire
