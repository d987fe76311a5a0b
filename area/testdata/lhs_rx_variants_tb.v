/*
 * The synthesis variants of lhs_rx are the same receive path (area.TestRTLVariantsAgree runs
 * this under Icarus). Three instances take the same random traffic, configuration, memory
 * back-pressure and host releases:
 *
 *   ref    LHS = 1, CNT_W = 32 (the default, what the simulator and the host driver use)
 *   narrow LHS = 1, CNT_W = IDX_W + 1 (the paper-like counters of Table 1)
 *   base   LHS = 0 (the receive path without LHS: the base of the LHS increment)
 *
 * Every output of narrow must equal ref's on every cycle, with lh_prod and lh_cons taken
 * modulo 2**CNT_W. While LHS is off, every output of base must equal ref's as well (the host
 * then releases no LH entries, which base ignores and ref would refuse). A difference prints
 * MISMATCH with the cycle and the signal and stops; the end prints what the run went through,
 * so that the test can check it exercised what it claims to.
 */

`timescale 1ns / 1ps
`default_nettype none

module lhs_rx_variants_tb;

parameter ENTRIES = 8;        // few entries: the LH ring fills and the narrow counters wrap often
parameter SEED = 1;
parameter PHASES = 24;        // each: reset, a random configuration, LHS on or off in turn
parameter PHASE_CYCLES = 4000;

localparam IDX_W = $clog2(ENTRIES);
localparam RAM_AW = IDX_W + 2;
localparam NARROW = IDX_W + 1;
localparam MEM_AW = 29;

integer seed = SEED;

reg clk = 1'b0;
reg rst = 1'b1;

reg  [127:0]      tdata = 0;
reg  [15:0]       tkeep = 0;
reg               tvalid = 1'b0;
reg               tlast = 1'b0;
reg               cfg_lhs_on = 1'b0;
reg  [1:0]        cfg_size_word = 2'd3;
reg  [1:0]        cfg_split_beats = 2'd3;
reg  [15:0]       cfg_max_msg = 16'd1024;
reg  [MEM_AW-5:0] cfg_tail_base = 0;
reg  [23:0]       cfg_tail_units = 24'd64;
reg               rel_lh_valid = 1'b0;
reg  [31:0]       rel_lh_count = 0;
reg               rel_tail_valid = 1'b0;
reg  [23:0]       rel_tail_units = 0;
reg               rd_en = 1'b0;
reg  [RAM_AW-1:0] rd_addr = 0;
reg               mem_ready = 1'b1;

// Outputs of the three instances: index 0 ref, 1 narrow, 2 base.
wire [2:0]        tready, rel_error, mem_valid, quiet, ev_commit, ev_msg_done, ev_mismatch, ev_too_long;
wire [127:0]      rd_data [0:2];
wire [MEM_AW-1:0] mem_addr [0:2];
wire [127:0]      mem_wdata [0:2];
wire [31:0]       lh_prod [0:2];
wire [31:0]       lh_cons [0:2];
wire [23:0]       tail_wptr [0:2];
wire [23:0]       tail_used [0:2];

genvar g;
generate
for (g = 0; g < 3; g = g + 1) begin : dut
    lhs_rx #(
        .ENTRIES(ENTRIES),
        .MEM_AW(MEM_AW),
        .LHS(g == 2 ? 0 : 1),
        .CNT_W(g == 1 ? NARROW : 32)
    )
    rx (
        .clk(clk),
        .rst(rst),
        .s_msg_tdata(tdata),
        .s_msg_tkeep(tkeep),
        .s_msg_tvalid(tvalid),
        .s_msg_tready(tready[g]),
        .s_msg_tlast(tlast),
        .cfg_enable(1'b1),
        .cfg_lhs_on(cfg_lhs_on),
        .cfg_size_word(cfg_size_word),
        .cfg_split_beats(cfg_split_beats),
        .cfg_max_msg(cfg_max_msg),
        .cfg_tail_base(cfg_tail_base),
        .cfg_tail_units(cfg_tail_units),
        .cfg_ring_reset(1'b0),
        .rel_lh_valid(rel_lh_valid),
        .rel_lh_count(rel_lh_count),
        .rel_tail_valid(rel_tail_valid),
        .rel_tail_units(rel_tail_units),
        .rel_error(rel_error[g]),
        .rd_en(rd_en),
        .rd_addr(rd_addr),
        .rd_data(rd_data[g]),
        .m_mem_valid(mem_valid[g]),
        .m_mem_ready(mem_ready),
        .m_mem_addr(mem_addr[g]),
        .m_mem_wdata(mem_wdata[g]),
        .lh_prod(lh_prod[g]),
        .lh_cons(lh_cons[g]),
        .tail_wptr(tail_wptr[g]),
        .tail_used(tail_used[g]),
        .quiet(quiet[g]),
        .ev_commit(ev_commit[g]),
        .ev_msg_done(ev_msg_done[g]),
        .ev_mismatch(ev_mismatch[g]),
        .ev_too_long(ev_too_long[g])
    );
end
endgenerate

// What the run went through.
integer cycles = 0, msgs = 0, commits = 0, mismatches = 0, too_long = 0, stalls = 0;
integer refused = 0, ring_wraps = 0, lh_wraps = 0, off_msgs = 0, split = 0;

// The message being sent: its size field, its real length, the next beat.
integer size_field, length, beat, beats;

task new_message;
    integer r;
    begin
        r = $random(seed) & 255;
        if (r < 100) size_field = 1 + ({$random(seed)} % 56);        // inline
        else if (r < 200) size_field = 57 + ({$random(seed)} % 200); // split
        else if (r < 240) size_field = 257 + ({$random(seed)} % 1300);
        else size_field = {$random(seed)} % 70000;                   // may exceed MAX_MSG
        length = size_field;
        if (({$random(seed)} % 16) == 0) length = 1 + ({$random(seed)} % 300); // a size field that lies
        if (length < 1) length = 1;
        if (length > 2000) length = 2000;
        beats = (length + 15) / 16;
        beat = 0;
    end
endtask

task drive_beat;
    integer k, last_bytes;
    begin
        tdata = {$random(seed), $random(seed), $random(seed), $random(seed)};
        if (beat == 0) tdata[32*cfg_size_word +: 32] = size_field;
        tlast = beat == beats - 1;
        tkeep = 16'hffff;
        if (tlast) begin
            last_bytes = length - 16 * (beats - 1);
            for (k = 0; k < 16; k = k + 1) tkeep[k] = k < last_bytes;
        end
    end
endtask

// Compare a signal of instance i with ref's; eq is the comparison already made.
task check(input eq, input integer i, input [8*16-1:0] name);
    begin
        if (!eq) begin
            $display("MISMATCH cycle %0d phase lhs_on=%0d: %0s of %0s differs from ref", cycles, cfg_lhs_on, name,
                     i == 1 ? "narrow" : "base");
            $finish;
        end
    end
endtask

localparam [31:0] NARROW_MASK = (64'd1 << NARROW) - 1;

task compare(input integer i);
    begin
        check(tready[i] === tready[0], i, "s_msg_tready");
        check(mem_valid[i] === mem_valid[0], i, "m_mem_valid");
        check(mem_addr[i] === mem_addr[0], i, "m_mem_addr");
        check(mem_wdata[i] === mem_wdata[0], i, "m_mem_wdata");
        check(tail_wptr[i] === tail_wptr[0], i, "tail_wptr");
        check(tail_used[i] === tail_used[0], i, "tail_used");
        check(quiet[i] === quiet[0], i, "quiet");
        check(ev_commit[i] === ev_commit[0], i, "ev_commit");
        check(ev_msg_done[i] === ev_msg_done[0], i, "ev_msg_done");
        check(ev_mismatch[i] === ev_mismatch[0], i, "ev_mismatch");
        check(ev_too_long[i] === ev_too_long[0], i, "ev_too_long");
        check(rel_error[i] === rel_error[0], i, "rel_error");
        if (i == 1) begin
            check(lh_prod[1] === (lh_prod[0] & NARROW_MASK), i, "lh_prod");
            check(lh_cons[1] === (lh_cons[0] & NARROW_MASK), i, "lh_cons");
            check(rd_data[1] === rd_data[0], i, "rd_data");
        end else begin
            check(lh_prod[2] === 0 && lh_prod[0] === 0, i, "lh_prod");
            check(lh_cons[2] === 0 && lh_cons[0] === 0, i, "lh_cons");
            check(rd_data[2] === 0, i, "rd_data");
        end
    end
endtask

always #5 clk = !clk;

integer phase, c, occ;
reg sending;
reg [23:0] last_wptr;
reg [31:0] last_prod;

initial begin
    for (phase = 0; phase < PHASES; phase = phase + 1) begin
        // Reset, then a configuration for the phase (configuration only changes in reset).
        rst = 1'b1;
        tvalid = 1'b0;
        rel_lh_valid = 1'b0;
        rel_tail_valid = 1'b0;
        cfg_lhs_on = phase % 2;
        cfg_size_word = {$random(seed)} % 4;
        cfg_split_beats = 1 + ({$random(seed)} % 3);
        cfg_max_msg = ({$random(seed)} % 4 == 0) ? {$random(seed)} % 600 : 16'd4096;
        cfg_tail_units = 16 + ({$random(seed)} % 240);
        cfg_tail_base = {$random(seed)} % 4096;
        sending = 1'b0;
        repeat (3) @(posedge clk);
        #1 rst = 1'b0;
        last_wptr = 0;
        last_prod = 0;
        for (c = 0; c < PHASE_CYCLES; c = c + 1) begin
            // Inputs for this cycle, set just after the edge.
            if (!sending && ({$random(seed)} % 4) != 0) begin
                new_message;
                sending = 1'b1;
                drive_beat;
            end
            tvalid = sending && ({$random(seed)} % 8) != 0;
            mem_ready = ({$random(seed)} % 4) != 0;
            occ = lh_prod[0] - lh_cons[0];
            rel_lh_valid = cfg_lhs_on && ({$random(seed)} % 6) == 0;
            // Sometimes too many, sometimes a count whose low CNT_W bits alone would fit.
            case ({$random(seed)} % 32)
                0, 1: rel_lh_count = occ + 1 + ({$random(seed)} % 3);
                2: rel_lh_count = occ + (1 << NARROW);
                default: rel_lh_count = {$random(seed)} % (occ + 1);
            endcase
            rel_tail_valid = ({$random(seed)} % 5) == 0;
            rel_tail_units = ({$random(seed)} % 16 == 0) ? tail_used[0] + 1 : {$random(seed)} % (tail_used[0] + 1);
            rd_en = {$random(seed)} % 2;
            rd_addr = $random(seed);
            #4;
            compare(1);
            if (!cfg_lhs_on) compare(2);
            if (tvalid && !tready[0]) stalls = stalls + 1;
            if (ev_msg_done[0]) begin
                msgs = msgs + 1;
                if (!cfg_lhs_on) off_msgs = off_msgs + 1;
                if (ev_mismatch[0]) mismatches = mismatches + 1;
                if (ev_too_long[0]) too_long = too_long + 1;
            end
            if (ev_commit[0]) commits = commits + 1;
            if (rel_error[0]) refused = refused + 1;
            if (mem_valid[0] && cfg_lhs_on) split = split + 1;
            @(posedge clk);
            #1;
            cycles = cycles + 1;
            if (tvalid && tready[0]) begin
                if (tlast) sending = 1'b0;
                else begin
                    beat = beat + 1;
                    drive_beat;
                end
            end
            if (tail_wptr[0] < last_wptr) ring_wraps = ring_wraps + 1;
            last_wptr = tail_wptr[0];
            if ((lh_prod[0] & NARROW_MASK) < (last_prod & NARROW_MASK)) lh_wraps = lh_wraps + 1;
            last_prod = lh_prod[0];
        end
    end
    $display("AGREE cycles=%0d messages=%0d lhs_off_messages=%0d commits=%0d mismatches=%0d too_long=%0d stalls=%0d refused=%0d tail_beats_lhs_on=%0d ring_wraps=%0d narrow_counter_wraps=%0d",
             cycles, msgs, off_msgs, commits, mismatches, too_long, stalls, refused, split, ring_wraps, lh_wraps);
    $finish;
end

endmodule

`default_nettype wire
