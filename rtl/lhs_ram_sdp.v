/*
 * Simple dual-port RAM with a registered read: one write port, one read port, one clock.
 * Written in the Yosys memory-inference pattern so it maps to block RAM (RAMB16 on
 * Virtex-II Pro). A read of the address being written returns the old word. The read
 * register holds its value while rd_en is low. Contents are not reset.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module lhs_ram_sdp #
(
    // Word width in bits
    parameter DATA_W = 128,
    // Address width in bits (depth is 2**ADDR_W words)
    parameter ADDR_W = 8
)
(
    input  wire              clk,

    input  wire              wr_en,
    input  wire [ADDR_W-1:0] wr_addr,
    input  wire [DATA_W-1:0] wr_data,

    input  wire              rd_en,
    input  wire [ADDR_W-1:0] rd_addr,
    output reg  [DATA_W-1:0] rd_data
);

(* ram_style = "block" *)
reg [DATA_W-1:0] mem [0:(2**ADDR_W)-1];

always @(posedge clk) begin
    if (wr_en) begin
        mem[wr_addr] <= wr_data;
    end
    if (rd_en) begin
        rd_data <= mem[rd_addr];
    end
end

endmodule

`resetall
`default_nettype wire
