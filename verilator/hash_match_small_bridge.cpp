//go:build ignore

// The hashed matcher at a second configuration, small so that it builds in seconds and fills
// within a few operations, with another bank count and block RAM latency than the study's:
// 16 entries, 4 bins, 4 banks of 4 entries, a two-cycle read (verilator/hash_match's Small).
// scripts/verilate.sh reads the three lines below.
// top-module: hash_match
// parameters: -GENTRIES=16 -GBINS=4 -GBANKS=4 -GRD_LAT=2
// go-package: verilator/hash_match
#define HM_MODEL Vhash_match_small
#define HM_HEADER "Vhash_match_small.h"
#define HM_FN(name) hash_match_small_##name
#include "hash_match_bridge.cpp"
