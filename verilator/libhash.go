package verilator

// LibHash identifies the RTL library linked into this binary (the first 16 hex digits of its
// SHA-256, written by scripts/verilate.sh). The out-of-process bridge compares it between the
// harness and the plugin, so that the two never run different builds of the RTL.
func LibHash() string { return libHash_lhs_top }
