/*
 * Window memory and vector load/store engine (DIMMnet-2's way to the SO-DIMM).
 *
 * The host cannot map the large memory, so the NIC keeps a read window and a write window
 * and moves data between them and large memory on command: VL (memory -> read window) and
 * VS (write window -> memory), 16-byte beats, one per cycle when the memory takes them.
 * A command that names an out-of-range or misaligned span is refused at once with a cause
 * code and touches nothing. The write window is four 32-bit lanes so that 32-bit host
 * writes need no byte enables (Virtex-II Pro block RAM has none).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module lhs_vector_engine #
(
    // Bytes in each window (power of two, 64..65536)
    parameter WIN_BYTES = 4096,
    // Large-memory address width in bytes
    parameter MEM_AW = 29,
    // Window word (128-bit) address width
    parameter WIN_AW = $clog2(WIN_BYTES) - 4
)
(
    input  wire              clk,
    input  wire              rst,

    // Command (taken only while idle)
    input  wire              cmd_valid,
    input  wire [31:0]       cmd_op,
    input  wire [31:0]       cmd_mem_addr,
    input  wire [31:0]       cmd_win_off,
    input  wire [31:0]       cmd_len,
    output wire              busy,
    output wire              done,
    output wire              error,
    output wire [3:0]        cause,
    output wire              ev_done,

    // Host access to the windows
    input  wire              rwin_rd_en,
    input  wire [WIN_AW-1:0] rwin_rd_addr,
    output wire [127:0]      rwin_rd_data,
    input  wire              wwin_wr_en,
    input  wire [WIN_AW+1:0] wwin_wr_addr,   // 32-bit word address
    input  wire [31:0]       wwin_wr_data,

    // Large memory
    output wire              m_mem_valid,
    input  wire              m_mem_ready,
    output wire              m_mem_write,
    output wire [MEM_AW-1:0] m_mem_addr,
    output wire [127:0]      m_mem_wdata,
    input  wire              s_mem_rvalid,
    input  wire [127:0]      s_mem_rdata
);

localparam [1:0]
    STATE_IDLE = 2'd0,
    STATE_VL = 2'd1,
    STATE_VS = 2'd2;

// Opcodes and refusal causes: generated from hw/contract.json (go generate ./hw).
`include "lhs_regs.vh"

initial begin
    if (WIN_BYTES < 64 || WIN_BYTES > 65536 || (1 << (WIN_AW + 4)) != WIN_BYTES) begin
        $display("lhs_vector_engine: WIN_BYTES must be a power of two in 64..65536 (got %0d)", WIN_BYTES);
        $finish;
    end
end

reg [1:0]        state_reg = STATE_IDLE, state_next;
reg              done_reg = 0, done_next;
reg              error_reg = 0, error_next;
reg [3:0]        cause_reg = 0, cause_next;
reg [12:0]       req_left_reg = 0, req_left_next;  // beats still to request or write
reg [12:0]       rsp_left_reg = 0, rsp_left_next;  // VL beats still to come back
reg [MEM_AW-5:0] addr_reg = 0, addr_next;          // next memory unit
reg [WIN_AW-1:0] win_reg = 0, win_next;            // VL: next window word; VS: word in the read register

// Command check.
wire [32:0] win_end = {1'b0, cmd_win_off} + {1'b0, cmd_len};
wire [32:0] mem_end = {1'b0, cmd_mem_addr} + {1'b0, cmd_len};
reg  [3:0]  check;
always @* begin
    check = 4'd0;
    if (cmd_op != VEC_OP_VL && cmd_op != VEC_OP_VS) begin
        check = CAUSE_OPCODE;
    end else if (cmd_len == 0) begin
        check = CAUSE_LEN;
    end else if (cmd_mem_addr[3:0] != 0 || cmd_win_off[3:0] != 0) begin
        check = CAUSE_ALIGN;
    end else if (win_end > WIN_BYTES) begin
        check = CAUSE_WINDOW;
    end else if (mem_end > (33'd1 << MEM_AW)) begin
        check = CAUSE_MEMORY;
    end
end

wire        start = cmd_valid && state_reg == STATE_IDLE;
wire        start_ok = start && check == 0;
wire [12:0] beats = cmd_len[16:4] + (cmd_len[3:0] != 0 ? 13'd1 : 13'd0);

assign busy = state_reg != STATE_IDLE;
assign done = done_reg;
assign error = error_reg;
assign cause = cause_reg;

// Read window: written by VL responses, read by the host.
wire rwin_wr_en = state_reg == STATE_VL && s_mem_rvalid;

lhs_ram_sdp #(
    .DATA_W(128),
    .ADDR_W(WIN_AW)
)
rwin_ram (
    .clk(clk),
    .wr_en(rwin_wr_en),
    .wr_addr(win_reg),
    .wr_data(s_mem_rdata),
    .rd_en(rwin_rd_en),
    .rd_addr(rwin_rd_addr),
    .rd_data(rwin_rd_data)
);

// Write window: four 32-bit lanes written by the host, read together by VS.
assign m_mem_valid = state_reg == STATE_VL ? req_left_reg != 0 : state_reg == STATE_VS;
assign m_mem_write = state_reg == STATE_VS;
assign m_mem_addr = {addr_reg, 4'd0};
wire mem_fire = m_mem_valid && m_mem_ready;

wire              wwin_rd_en = start_ok || (state_reg == STATE_VS && mem_fire);
wire [WIN_AW-1:0] wwin_rd_addr = start ? cmd_win_off[WIN_AW+3:4] : win_reg + 1;

genvar lane;
generate
    for (lane = 0; lane < 4; lane = lane + 1) begin : wwin_lane
        lhs_ram_sdp #(
            .DATA_W(32),
            .ADDR_W(WIN_AW)
        )
        wwin_ram (
            .clk(clk),
            .wr_en(wwin_wr_en && wwin_wr_addr[1:0] == lane),
            .wr_addr(wwin_wr_addr[WIN_AW+1:2]),
            .wr_data(wwin_wr_data),
            .rd_en(wwin_rd_en),
            .rd_addr(wwin_rd_addr),
            .rd_data(m_mem_wdata[32*lane +: 32])
        );
    end
endgenerate

wire vl_last = state_reg == STATE_VL && s_mem_rvalid && rsp_left_reg == 1;
wire vs_last = state_reg == STATE_VS && mem_fire && req_left_reg == 1;
assign ev_done = (start && check != 0) || vl_last || vs_last;

always @* begin
    state_next = state_reg;
    done_next = done_reg;
    error_next = error_reg;
    cause_next = cause_reg;
    req_left_next = req_left_reg;
    rsp_left_next = rsp_left_reg;
    addr_next = addr_reg;
    win_next = win_reg;

    if (start) begin
        done_next = check != 0;
        error_next = check != 0;
        cause_next = check;
        if (check == 0) begin
            state_next = cmd_op == VEC_OP_VL ? STATE_VL : STATE_VS;
            req_left_next = beats;
            rsp_left_next = beats;
            addr_next = cmd_mem_addr[MEM_AW-1:4];
            win_next = cmd_win_off[WIN_AW+3:4];
        end
    end

    if (state_reg == STATE_VL) begin
        if (mem_fire) begin
            req_left_next = req_left_reg - 1;
            addr_next = addr_reg + 1;
        end
        if (s_mem_rvalid) begin
            rsp_left_next = rsp_left_reg - 1;
            win_next = win_reg + 1;
        end
        if (vl_last) begin
            state_next = STATE_IDLE;
            done_next = 1'b1;
        end
    end

    if (state_reg == STATE_VS && mem_fire) begin
        req_left_next = req_left_reg - 1;
        addr_next = addr_reg + 1;
        win_next = win_reg + 1;
        if (vs_last) begin
            state_next = STATE_IDLE;
            done_next = 1'b1;
        end
    end
end

always @(posedge clk) begin
    if (rst) begin
        state_reg <= STATE_IDLE;
        done_reg <= 1'b0;
        error_reg <= 1'b0;
        cause_reg <= 4'd0;
        req_left_reg <= 0;
        rsp_left_reg <= 0;
    end else begin
        state_reg <= state_next;
        done_reg <= done_next;
        error_reg <= error_next;
        cause_reg <= cause_next;
        req_left_reg <= req_left_next;
        rsp_left_reg <= rsp_left_next;
    end
    addr_reg <= addr_next;
    win_reg <= win_next;
end

`ifdef FORMAL
// Properties of the vector engine (docs/formal.md; `lhsim formal` proves them with
// yosys-smtbmc), and the one assumption about its memory: read data come back only for reads
// the port took (docs/design.md, large-memory port; the engine makes every read of lhs_top).

reg [13:0] f_reads = 14'd0; // reads taken at the port and not yet answered
always @(posedge clk) begin
    if (rst) begin
        f_reads <= 14'd0;
    end else begin
        f_reads <= f_reads + (m_mem_valid && m_mem_ready && !m_mem_write ? 14'd1 : 14'd0) - (s_mem_rvalid ? 14'd1 : 14'd0);
    end
end
always @* begin
    if (!rst) begin
        vec_env_answers_reads: assume (!s_mem_rvalid || f_reads != 0);
    end
end

// The refusal rules in their documented order: the cause is the first rule the command breaks.
wire [32:0] f_win_end = {1'b0, cmd_win_off} + {1'b0, cmd_len};
wire [32:0] f_mem_end = {1'b0, cmd_mem_addr} + {1'b0, cmd_len};
wire [3:0]  f_cause = cmd_op != VEC_OP_VL && cmd_op != VEC_OP_VS ? CAUSE_OPCODE
                    : cmd_len == 0 ? CAUSE_LEN
                    : cmd_mem_addr[3:0] != 0 || cmd_win_off[3:0] != 0 ? CAUSE_ALIGN
                    : f_win_end > WIN_BYTES ? CAUSE_WINDOW
                    : f_mem_end > (33'd1 << MEM_AW) ? CAUSE_MEMORY
                    : 4'd0;

reg       f_refused = 1'b0;   // the last command started was refused
reg [3:0] f_refused_cause = 4'd0;
always @(posedge clk) begin
    if (rst) begin
        f_refused <= 1'b0;
    end else if (cmd_valid && !busy) begin
        f_refused <= f_cause != 0;
        f_refused_cause <= f_cause;
    end
end

always @* begin
    if (!rst) begin
        // A refused VL or VS touches no memory, large or window, until the next command, and
        // says why: DONE and ERROR with the first broken rule's cause.
        if (f_refused) begin
            vec_refused_touches_nothing: assert (!busy && !m_mem_valid && !rwin_wr_en);
            vec_refused_status: assert (done && error && cause == f_refused_cause);
        end
        // Induction: the engine's counts agree with the port's reads in flight.
        vec_inv_reads: assert (f_reads == (state_reg == STATE_VL ? rsp_left_reg - req_left_reg : 13'd0) &&
                               state_reg != 2'd3 &&
                               (state_reg != STATE_VL || rsp_left_reg != 0 && req_left_reg <= rsp_left_reg) &&
                               (state_reg != STATE_VS || req_left_reg != 0));
    end
end
`endif

endmodule

`resetall
`default_nettype wire
