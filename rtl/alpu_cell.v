/*

One cell of the ALPU (rtl/alpu.v): a match field, its don't-care mask and a pointer held in
flip-flops, a valid bit, and the comparator against the request being matched.

Cells form a shift chain. A cell never chooses between two sources: it either holds or loads
its neighbour's content (d_*), so the data flip-flops need only a clock enable and no
multiplexer in front of them. That is what keeps an associative list of this kind cheap per
cell; the choice of which cells shift is made once, in alpu.v.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module alpu_cell #
(
    // Width of the match field (MPI source rank, tag and communicator)
    parameter FIELD_W = 42,
    // Width of the pointer returned on a match (where the message itself is stored)
    parameter PTR_W = 16,
    // 1: the cell stores a don't-care mask beside its field; 0: no cell mask (field + pointer)
    parameter CELL_MASK = 1
)
(
    input  wire                   clk,
    input  wire                   rst,

    // Load the d_* content this cycle (shift from the neighbour, or take a new entry)
    input  wire                   shift_en,
    input  wire                   d_valid,
    input  wire [FIELD_W-1:0] d_field,
    input  wire [FIELD_W-1:0] d_mask,
    input  wire [PTR_W-1:0]   d_ptr,

    // Content, to the next cell of the chain and to the pointer multiplexer
    output wire                   q_valid,
    output wire [FIELD_W-1:0] q_field,
    output wire [FIELD_W-1:0] q_mask,
    output wire [PTR_W-1:0]   q_ptr,

    // Request being matched: key and the bits that count (the complement of the request's
    // own don't-care mask)
    input  wire [FIELD_W-1:0] key,
    input  wire [FIELD_W-1:0] key_care,
    // The cell is valid and its field equals the key on every bit that both sides care about
    output wire                   match
);

reg                   valid_reg = 1'b0;
reg [FIELD_W-1:0] field_reg;
reg [PTR_W-1:0]   ptr_reg;

wire [FIELD_W-1:0] cell_care;

assign q_valid = valid_reg;
assign q_field = field_reg;
assign q_ptr = ptr_reg;

generate
    if (CELL_MASK) begin : g_mask
        reg [FIELD_W-1:0] mask_reg;

        always @(posedge clk) begin
            if (shift_en) begin
                mask_reg <= d_mask;
            end
        end

        assign q_mask = mask_reg;
        assign cell_care = ~mask_reg;
    end else begin : g_no_mask
        assign q_mask = {FIELD_W{1'b0}};
        assign cell_care = {FIELD_W{1'b1}};

        // d_mask has no use without a cell mask
        wire unused_mask = ^d_mask;
    end
endgenerate

assign match = valid_reg && ~|((field_reg ^ key) & key_care & cell_care);

// Data are not reset: only the valid bit says whether they mean anything
always @(posedge clk) begin
    if (shift_en) begin
        field_reg <= d_field;
        ptr_reg <= d_ptr;
    end
end

always @(posedge clk) begin
    if (shift_en) begin
        valid_reg <= d_valid;
    end

    if (rst) begin
        valid_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
