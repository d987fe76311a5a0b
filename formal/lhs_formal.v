/*
 * Formal harness of the receive path: lhs_top at a small configuration (4 LH entries, 64-byte
 * windows) with every input free except for what docs/design.md promises of the environment.
 * The properties about the ports are here; those about a block's state sit in the block's
 * `ifdef FORMAL` section (rtl/*.v). `lhsim formal` (formal/*.go) proves them with
 * yosys-smtbmc; docs/formal.md says what is proven, how, and under which assumptions.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module lhs_formal #
(
    // LH entries: 4 lets a proof wrap the ring within a few cycles
    parameter ENTRIES = 4,
    // Bytes per window: the smallest legal
    parameter WIN_BYTES = 64
)
(
    input  wire         clk,
    input  wire         rst,

    input  wire [127:0] s_msg_tdata,
    input  wire [15:0]  s_msg_tkeep,
    input  wire         s_msg_tvalid,
    input  wire         s_msg_tlast,

    input  wire         host_valid,
    input  wire         host_write,
    input  wire [19:0]  host_addr,
    input  wire [31:0]  host_wdata,

    input  wire         m_mem_ready,
    input  wire         s_mem_rvalid,
    input  wire [127:0] s_mem_rdata
);

wire         s_msg_tready;
wire         host_rvalid;
wire [31:0]  host_rdata;
wire         m_mem_valid, m_mem_write;
wire [31:0]  m_mem_addr;
wire [127:0] m_mem_wdata;
wire         ev_commit, ev_msg_done, ev_vec_done;

lhs_top #(
    .ENTRIES(ENTRIES),
    .WIN_BYTES(WIN_BYTES)
)
lhs_top (
    .clk(clk),
    .rst(rst),
    .s_msg_tdata(s_msg_tdata),
    .s_msg_tkeep(s_msg_tkeep),
    .s_msg_tvalid(s_msg_tvalid),
    .s_msg_tready(s_msg_tready),
    .s_msg_tlast(s_msg_tlast),
    .host_valid(host_valid),
    .host_write(host_write),
    .host_addr(host_addr),
    .host_wdata(host_wdata),
    .host_rvalid(host_rvalid),
    .host_rdata(host_rdata),
    .m_mem_valid(m_mem_valid),
    .m_mem_ready(m_mem_ready),
    .m_mem_write(m_mem_write),
    .m_mem_addr(m_mem_addr),
    .m_mem_wdata(m_mem_wdata),
    .s_mem_rvalid(s_mem_rvalid),
    .s_mem_rdata(s_mem_rdata),
    .ev_commit(ev_commit),
    .ev_msg_done(ev_msg_done),
    .ev_vec_done(ev_vec_done)
);

// The environment (docs/design.md): reset in the first cycle only; host accesses 4-byte
// aligned; the network holds a beat it shows, unchanged, until it is taken (valid/ready).
reg f_first = 1'b1;
always @(posedge clk) begin
    f_first <= 1'b0;
end

reg         f_beat_waits = 1'b0;
reg [127:0] f_tdata_was = 128'd0;
reg [15:0]  f_tkeep_was = 16'd0;
reg         f_tlast_was = 1'b0;
always @(posedge clk) begin
    f_beat_waits <= !rst && s_msg_tvalid && !s_msg_tready;
    f_tdata_was <= s_msg_tdata;
    f_tkeep_was <= s_msg_tkeep;
    f_tlast_was <= s_msg_tlast;
end

always @* begin
    env_reset_first: assume (rst == f_first);
    env_host_aligned: assume (!host_valid || host_addr[1:0] == 2'd0);
    if (f_beat_waits) begin
        env_stream_holds: assume (s_msg_tvalid && s_msg_tdata == f_tdata_was && s_msg_tkeep == f_tkeep_was &&
                                  s_msg_tlast == f_tlast_was);
    end
end

// Host reads: host_rvalid exactly two cycles after each read request, never else.
reg f_read1 = 1'b0, f_read2 = 1'b0;
reg f_run1 = 1'b0, f_run2 = 1'b0; // out of reset one and two cycles ago
always @(posedge clk) begin
    f_read1 <= host_valid && !host_write;
    f_read2 <= f_read1;
    f_run1 <= !rst;
    f_run2 <= f_run1;
end

// Large-memory requests: one the port has not taken stays, with its address, data and
// direction, until it is taken.
reg         f_mem_waits = 1'b0;
reg         f_write_was = 1'b0;
reg [31:0]  f_addr_was = 32'd0;
reg [127:0] f_wdata_was = 128'd0;
always @(posedge clk) begin
    f_mem_waits <= !rst && m_mem_valid && !m_mem_ready;
    f_write_was <= m_mem_write;
    f_addr_was <= m_mem_addr;
    f_wdata_was <= m_mem_wdata;
end

always @* begin
    if (!rst && f_run1 && f_run2) begin
        port_host_rvalid_two_cycles: assert (host_rvalid == f_read2);
    end
    if (!rst && f_mem_waits) begin
        port_mem_request_holds: assert (m_mem_valid && m_mem_write == f_write_was && m_mem_addr == f_addr_was &&
                                        (!f_write_was || m_mem_wdata == f_wdata_was));
    end
end

endmodule

`resetall
`default_nettype wire
