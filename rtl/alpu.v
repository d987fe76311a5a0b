/*

ALPU: associative list processing unit, the hardware baseline of the paper's Table 1.

An ordered list of CELLS cells in flip-flops (rtl/alpu_cell.v), each with a match field, a
don't-care mask, a pointer and a comparator. It keeps an MPI queue (unexpected messages or
posted receives) in arrival order and answers "oldest entry matching this request" in constant
time, deleting the entry it returns.

Organisation. Cell index orders the entries: a higher index is older. Every change moves
content the same way, from cell j-1 into cell j, for a prefix 0..k of the chain, with the new
entry (or nothing) entering cell 0; so a cell's flip-flops need only a clock enable and no input
multiplexer, which is what keeps an associative list of this kind cheap per cell.
  - A match deletes the oldest hit, cell h, by shifting cells 0..h: the newer entries move up
    one and close the hole at once (the list compacts in the cycle of the match).
  - An insert shifts cells 0..g, where g is the lowest free cell, and the new entry takes
    cell 0. Free cells collect on the newest side after matches (cell 0 first) and an insert
    reclaims the lowest one, so the list holds CELLS entries whenever it is full, never less.
  - An insert and a match in the same cycle shift cells 0..h only: the new entry fills cell 0
    while the hole at h closes.
Neither operation ever reorders entries, and a valid cell is only shifted out of the top of
the chain when it is the entry being deleted. The oldest hit is the highest-index hit; the
cells at or below it are a suffix OR of the hit vector, the cells below the lowest free cell a
prefix AND of the valid bits.

Timing. An insert takes effect at the clock edge that accepts it. A request is registered when
accepted, compared against every cell in the next cycle, and its response (hit and pointer) is
valid from the cycle after that: two cycles from request to response, the deletion happening at
the same edge as the response appears. When an insert and a request are accepted in the same
cycle, the insert is ordered first (the request sees it); an insert accepted while a request is
being compared is ordered after that request.

Overflow. s_ins_tready is always high: an insert is never held back. An insert that finds the
list full (and not freed by the match of the same cycle) is refused: nothing in the list
changes, ev_ins_refused pulses in the next cycle and the sticky status_overflow is set. While
status_overflow is set every insert is refused, so that software, which now keeps the refused
entries, sees the hardware list and its own as one queue in arrival order. Software clears the
flag (overflow_clear) once it has drained its own list.

*/

`resetall
`timescale 1ns / 1ps
`default_nettype none

module alpu #
(
    // Number of cells (list capacity)
    parameter CELLS = 128,
    // Width of the match field: 42 bits in the paper (source rank, tag, communicator)
    parameter FIELD_W = 42,
    // Width of the pointer returned on a match
    parameter PTR_W = 16,
    // 1: every cell stores a don't-care mask (posted receives with wildcards); 0: cells hold
    // field and pointer only, and only requests carry a mask
    parameter CELL_MASK = 1,
    // Width of status_count: enough for 0..CELLS
    parameter COUNT_W = $clog2(CELLS + 1)
)
(
    input  wire                   clk,
    input  wire                   rst,

    // Insert: append an entry (newest)
    input  wire                   s_ins_tvalid,
    output wire                   s_ins_tready,
    input  wire [FIELD_W-1:0] s_ins_field,
    input  wire [FIELD_W-1:0] s_ins_mask,
    input  wire [PTR_W-1:0]   s_ins_ptr,

    // Match request: find, return and delete the oldest entry matching field on the bits
    // where neither the request mask nor the cell's mask is set
    input  wire                   s_req_tvalid,
    output wire                   s_req_tready,
    input  wire [FIELD_W-1:0] s_req_field,
    input  wire [FIELD_W-1:0] s_req_mask,

    // Match response: hit, and the pointer of the deleted entry (0 on a miss)
    output wire                   m_rsp_tvalid,
    input  wire                   m_rsp_tready,
    output wire                   m_rsp_hit,
    output wire [PTR_W-1:0]   m_rsp_ptr,

    // Overflow handling
    input  wire                   overflow_clear,
    output wire                   ev_ins_refused,

    // Status, registered
    output wire [COUNT_W-1:0] status_count,
    output wire                   status_full,
    output wire                   status_empty,
    output wire                   status_overflow
);

// check configuration
initial begin
    if (CELLS < 2) begin
        $display("Error: CELLS must be at least 2 (instance %m)");
        $finish;
    end
    if (COUNT_W < $clog2(CELLS + 1)) begin
        $display("Error: COUNT_W too small for CELLS (instance %m)");
        $finish;
    end
end

reg                   cmp_reg = 1'b0, cmp_next;
reg [FIELD_W-1:0] key_reg;
reg [FIELD_W-1:0] key_care_reg;

reg                   rsp_valid_reg = 1'b0, rsp_valid_next;
reg                   rsp_hit_reg = 1'b0, rsp_hit_next;
reg [PTR_W-1:0]   rsp_ptr_reg = {PTR_W{1'b0}}, rsp_ptr_next;

reg [COUNT_W-1:0] count_reg = {COUNT_W{1'b0}}, count_next;
reg                   overflow_reg = 1'b0, overflow_next;
reg                   refused_reg = 1'b0, refused_next;

// Cell chain: cell j loads from cell j-1; cell 0 loads the new entry
wire [CELLS-1:0]             cell_valid;
wire [CELLS*FIELD_W-1:0] cell_field;
wire [CELLS*FIELD_W-1:0] cell_mask;
wire [CELLS*PTR_W-1:0]   cell_ptr;
wire [CELLS-1:0]             cell_match;

reg  [CELLS-1:0]             hit;
// at_or_below[j]: some hit at index >= j, i.e. cell j is at or below the oldest hit
reg  [CELLS:0]               at_or_below;
// full_below[j]: cells 0..j-1 are all valid, i.e. cell j is at or below the lowest free cell
reg  [CELLS:0]               full_below;
reg                          any_hit;
reg  [CELLS-1:0]             shift_en;

// Pointer of the oldest hit, as an AND-OR over the one-hot oldest[]. oldest[] and the pair
// terms are kept as signals of their own: two pointer bits per LUT4 then an OR tree, instead
// of the mapper folding the one-hot decode into every term (which costs about a third more
// LUTs in Yosys/ABC).
localparam PAIRS = (CELLS + 1) / 2;
(* keep *) wire [CELLS-1:0]           oldest;
(* keep *) wire [PAIRS*PTR_W-1:0] pair_ptr;
reg  [PTR_W-1:0]                  hit_ptr;

// The top cell shifts out of the chain only when it is the entry being deleted or when it is
// free, so its content goes nowhere
wire unused_top = ^{cell_valid[CELLS-1], cell_field[(CELLS-1)*FIELD_W +: FIELD_W],
    cell_mask[(CELLS-1)*FIELD_W +: FIELD_W]};

wire ins = s_ins_tvalid;
wire req = s_req_tvalid && s_req_tready;
wire full = count_reg == CELLS[COUNT_W-1:0];

// The insert of this cycle goes in unless the list is full (and no match frees a cell in the
// same cycle) or software has not yet cleared an earlier overflow
wire ins_refused = ins && (overflow_reg || (full && !any_hit));
wire ins_accept = ins && !ins_refused;

assign s_ins_tready = 1'b1;
// A new request may enter in the cycle its predecessor's response leaves
assign s_req_tready = !cmp_reg && (!rsp_valid_reg || m_rsp_tready);

assign m_rsp_tvalid = rsp_valid_reg;
assign m_rsp_hit = rsp_hit_reg;
assign m_rsp_ptr = rsp_ptr_reg;

assign ev_ins_refused = refused_reg;

assign status_count = count_reg;
assign status_full = full;
assign status_empty = count_reg == {COUNT_W{1'b0}};
assign status_overflow = overflow_reg;

genvar j;
generate
    for (j = 0; j < CELLS; j = j + 1) begin : g_cell
        wire                   d_valid;
        wire [FIELD_W-1:0] d_field;
        wire [FIELD_W-1:0] d_mask;
        wire [PTR_W-1:0]   d_ptr;

        if (j == 0) begin : g_head
            assign d_valid = ins_accept;
            assign d_field = s_ins_field;
            assign d_mask = s_ins_mask;
            assign d_ptr = s_ins_ptr;
        end else begin : g_body
            assign d_valid = cell_valid[j-1];
            assign d_field = cell_field[(j-1)*FIELD_W +: FIELD_W];
            assign d_mask = cell_mask[(j-1)*FIELD_W +: FIELD_W];
            assign d_ptr = cell_ptr[(j-1)*PTR_W +: PTR_W];
        end

        alpu_cell #(
            .FIELD_W(FIELD_W),
            .PTR_W(PTR_W),
            .CELL_MASK(CELL_MASK)
        )
        cell_inst (
            .clk(clk),
            .rst(rst),
            .shift_en(shift_en[j]),
            .d_valid(d_valid),
            .d_field(d_field),
            .d_mask(d_mask),
            .d_ptr(d_ptr),
            .q_valid(cell_valid[j]),
            .q_field(cell_field[j*FIELD_W +: FIELD_W]),
            .q_mask(cell_mask[j*FIELD_W +: FIELD_W]),
            .q_ptr(cell_ptr[j*PTR_W +: PTR_W]),
            .key(key_reg),
            .key_care(key_care_reg),
            .match(cell_match[j])
        );
    end
endgenerate

assign oldest = hit & ~at_or_below[CELLS:1];

genvar k;
generate
    for (k = 0; k < PAIRS; k = k + 1) begin : g_pair
        if (2*k + 1 < CELLS) begin : g_two
            assign pair_ptr[k*PTR_W +: PTR_W] =
                (cell_ptr[(2*k)*PTR_W +: PTR_W] & {PTR_W{oldest[2*k]}}) |
                (cell_ptr[(2*k+1)*PTR_W +: PTR_W] & {PTR_W{oldest[2*k+1]}});
        end else begin : g_one
            assign pair_ptr[k*PTR_W +: PTR_W] =
                cell_ptr[(2*k)*PTR_W +: PTR_W] & {PTR_W{oldest[2*k]}};
        end
    end
endgenerate

integer i;

always @* begin
    hit = cmp_reg ? cell_match : {CELLS{1'b0}};

    at_or_below[CELLS] = 1'b0;
    for (i = CELLS - 1; i >= 0; i = i - 1) begin
        at_or_below[i] = at_or_below[i+1] || hit[i];
    end
    any_hit = at_or_below[0];

    full_below[0] = 1'b1;
    for (i = 0; i < CELLS; i = i + 1) begin
        full_below[i+1] = full_below[i] && cell_valid[i];
    end
end

always @* begin
    hit_ptr = {PTR_W{1'b0}};
    for (i = 0; i < PAIRS; i = i + 1) begin
        hit_ptr = hit_ptr | pair_ptr[i*PTR_W +: PTR_W];
    end
end

// A match shifts the cells at or below the oldest hit (closing its hole, and taking the new
// entry into cell 0 if there is one); an insert alone shifts the cells up to the lowest free one
always @* begin
    for (i = 0; i < CELLS; i = i + 1) begin
        shift_en[i] = at_or_below[i] || (ins_accept && !any_hit && full_below[i]);
    end
end

always @* begin
    cmp_next = req;
    rsp_valid_next = rsp_valid_reg && !m_rsp_tready;
    rsp_hit_next = rsp_hit_reg;
    rsp_ptr_next = rsp_ptr_reg;
    count_next = count_reg;
    overflow_next = (overflow_reg && !overflow_clear) || ins_refused;
    refused_next = ins_refused;

    if (cmp_reg) begin
        rsp_valid_next = 1'b1;
        rsp_hit_next = any_hit;
        rsp_ptr_next = hit_ptr;
    end

    if (ins_accept && !any_hit) begin
        count_next = count_reg + 1'b1;
    end else if (any_hit && !ins_accept) begin
        count_next = count_reg - 1'b1;
    end
end

// The request is data: registered without reset, only cmp_reg says it is there
always @(posedge clk) begin
    if (req) begin
        key_reg <= s_req_field;
        key_care_reg <= ~s_req_mask;
    end
end

always @(posedge clk) begin
    cmp_reg <= cmp_next;
    rsp_valid_reg <= rsp_valid_next;
    rsp_hit_reg <= rsp_hit_next;
    rsp_ptr_reg <= rsp_ptr_next;
    count_reg <= count_next;
    overflow_reg <= overflow_next;
    refused_reg <= refused_next;

    if (rst) begin
        cmp_reg <= 1'b0;
        rsp_valid_reg <= 1'b0;
        rsp_hit_reg <= 1'b0;
        rsp_ptr_reg <= {PTR_W{1'b0}};
        count_reg <= {COUNT_W{1'b0}};
        overflow_reg <= 1'b0;
        refused_reg <= 1'b0;
    end
end

endmodule

`default_nettype wire
