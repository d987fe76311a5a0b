#!/usr/bin/env python3
"""lhsim traffic --preset booksim against BookSim2, side by side (docs/network.md).

Usage: BOOKSIM=/path/to/booksim LHSIM=build/bin/lhsim scripts/booksim-compare.py [config ...]

BOOKSIM is a BookSim2 binary you built yourself (github.com/booksim/booksim2, src/, make);
nothing of BookSim2 is in this repository. Without it the script says so and exits 0.
Configurations (all by default): torus8-1 torus8-16 fattree-1 fattree-16 torus16-1 torus16-16.
LSAT=x skips lhsim's bisection (its saturation, known from an earlier run). Each run is
noted on stderr as it ends.
QUICK=1 spends fewer BookSim2 runs (for the 4,096-node torus, where one takes many CPU
minutes): BookSim2's saturation only bracketed at 0.95 and 1.05 x lhsim's.

For each configuration both simulators run the same set-up (iq router, 4 VCs x 16 flits,
separable input-first VC and switch allocators, one-cycle stages, uniform random Bernoulli
traffic, injection_rate in flits, BookSim2's default measurement) and the table gives:
- saturation: the highest load each calls stable (BookSim2's own verdict: "Simulation
  unstable" when the mean latency passes latency_thres), found by bisection; lhsim first
  (cheap), then BookSim2 bisected inside [0.85, 1.15] x lhsim's;
- latency: average packet latency of both at 0.2, 0.4, 0.6 and 0.8 x BookSim2's saturation,
  the largest difference in per cent;
- zero-load: BookSim2's minimum and maximum packet latency at 0.0005 packets/cycle/node
  against lhsim's closed form for the nearest and farthest pairs (2+5H cycles on the fat
  tree, 1+6H on the torus, plus the flits behind the head), and both averages at that load;
- speed: flit-hops per CPU second of each at 0.6 x saturation, flit-hops estimated the same
  way for both (accepted flits/cycle/node x nodes x cycles run x (routers + 1)).
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

CONFIGS = {
    "torus8-1": ("torus:8x8x8", "topology = torus;\nk = 8;\nn = 3;\nrouting_function = dim_order;\n", 1, 512),
    "torus8-16": ("torus:8x8x8", "topology = torus;\nk = 8;\nn = 3;\nrouting_function = dim_order;\n", 16, 512),
    "fattree-1": ("fattree:4x3", "topology = fattree;\nk = 4;\nn = 3;\nrouting_function = nca;\n", 1, 64),
    "fattree-16": ("fattree:4x3", "topology = fattree;\nk = 4;\nn = 3;\nrouting_function = nca;\n", 16, 64),
    "torus16-1": ("torus:16x16x16", "topology = torus;\nk = 16;\nn = 3;\nrouting_function = dim_order;\n", 1, 4096),
    "torus16-16": ("torus:16x16x16", "topology = torus;\nk = 16;\nn = 3;\nrouting_function = dim_order;\n", 16, 4096),
}

COMMON = """num_vcs = 4;
vc_buf_size = 16;
vc_allocator = separable_input_first;
sw_allocator = separable_input_first;
alloc_iters = 1;
traffic = uniform;
injection_process = bernoulli;
injection_rate_uses_flits = 1;
"""


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_booksim(booksim, topo_cfg, flits, load, seed=1):
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(topo_cfg + COMMON + f"packet_size = {flits};\ninjection_rate = {load};\nseed = {seed};\n")
        name = f.name
    c0 = cpu_children()
    out = subprocess.run([booksim, name], capture_output=True, text=True).stdout
    cpu = cpu_children() - c0
    os.unlink(name)
    res = {"stable": "Simulation unstable" not in out and "Packet latency average" in out, "cpu": cpu}
    for line in out.splitlines():
        if line.startswith("Time taken is"):
            res["cycles"] = int(line.split()[3])
    # The overall block is the last one; its lines read "X average = v (1 samples)".
    tail = out[out.rfind("====== Overall Traffic Statistics"):] if "Overall Traffic" in out else ""
    lines = tail.splitlines()
    for i, line in enumerate(lines):
        for key, name in (("Packet latency average", "lat"), ("Accepted flit rate average", "acc"), ("Hops average", "hops")):
            if line.startswith(key):
                res[name] = float(line.split("=")[1].split()[0])
        if line.startswith("Packet latency average"):
            res["min"] = float(lines[i + 1].split("=")[1].split()[0])
            res["max"] = float(lines[i + 2].split("=")[1].split()[0])
    return res


def run_lhsim(lhsim, topo, flits, load, seed=1):
    c0 = cpu_children()
    p = subprocess.run([lhsim, "traffic", "--preset", "booksim", "--topology", topo, "--packet-flits", str(flits),
                        "--load", str(load), "--seed", str(seed), "--json"], capture_output=True, text=True)
    cpu = cpu_children() - c0
    if p.returncode != 0:
        sys.exit(f"lhsim failed: {p.stderr.strip()}")
    j = json.loads(p.stdout)
    row = j["rows"][0]
    # The CPU time of the run itself (network built, BookSim2's measurement), as lhsim
    # reports it; BookSim2's is its whole process, which is little more than its run.
    return {"stable": not row["saturated"], "lat": row["latency_cycles"], "acc": row["accepted"],
            "hops": row["mean_routers"], "cycles": row["events"], "cpu": j["cpu_seconds"], "proc_cpu": cpu,
            "min": row.get("min_latency_cycles", 0), "max": row.get("max_latency_cycles", 0),
            "zl": j["zero_load_by_routers"], "clock": j["clock_ns"]}


def note(what, load, r):
    """Each run as it ends, on stderr (the table comes at the end, on stdout)."""
    print(f"  {what} at {load}: {'stable' if r['stable'] else 'unstable'}, latency {r.get('lat', 0):.2f}, "
          f"accepted {r.get('acc', 0):.4f}, {r['cpu']:.1f} CPU s", file=sys.stderr, flush=True)
    return r


def bisect(run, lo, hi, steps):
    """The highest stable load in [lo, hi] to within (hi-lo)/2^steps; lo assumed stable."""
    for _ in range(steps):
        mid = round((lo + hi) / 2, 4)
        if run(mid)["stable"]:
            lo = mid
        else:
            hi = mid
    return lo


def flit_hops_per_s(r, nodes):
    return r["acc"] * nodes * r["cycles"] * (r["hops"] + 1) / r["cpu"] if r["cpu"] > 0 else 0


def main():
    booksim = os.environ.get("BOOKSIM", "")
    if not booksim:
        print("booksim-compare: skipped: give BOOKSIM=/path/to/booksim (a BookSim2 binary built from github.com/booksim/booksim2)")
        return 0
    if not os.access(booksim, os.X_OK):
        print(f"booksim-compare: BOOKSIM={booksim} is not an executable file", file=sys.stderr)
        return 2
    lhsim = os.environ.get("LHSIM", "build/bin/lhsim")
    bs, lh = run_booksim, run_lhsim
    run_b = lambda cfg, flits, load: note("BookSim2", load, bs(booksim, cfg, flits, load))
    run_l = lambda topo, flits, load: note("lhsim", load, lh(lhsim, topo, flits, load))
    quick = os.environ.get("QUICK", "") not in ("", "0")
    names = sys.argv[1:] or list(CONFIGS)
    lsat_given = os.environ.get("LSAT", "")  # skip lhsim's bisection: its saturation, known
    for n in names:
        if n not in CONFIGS:
            print(f"booksim-compare: unknown configuration {n!r} (want {', '.join(CONFIGS)})", file=sys.stderr)
            return 2
    rows = []
    for name in names:
        topo, bcfg, flits, nodes = CONFIGS[name]
        lsat = float(lsat_given) if lsat_given else bisect(lambda l: run_l(topo, flits, l), 0.0, 1.0, 7)
        fracs = (0.2, 0.4, 0.6, 0.8)
        if quick:
            # Two BookSim2 runs bracket its saturation around lhsim's: stable at 0.95 x and
            # unstable at 1.05 x means the two agree within 5 %.
            lo, hi = round(0.95 * lsat, 4), round(1.05 * lsat, 4)
            blo, bhi = run_b(bcfg, flits, lo)["stable"], run_b(bcfg, flits, hi)["stable"]
            bsat = lsat if blo and not bhi else (hi if bhi else lo)
            print(f"{name}: BookSim2 at {lo}: {'stable' if blo else 'unstable'}, at {hi}: {'stable' if bhi else 'unstable'}", flush=True)
        else:
            bsat = bisect(lambda l: run_b(bcfg, flits, l), round(0.85 * lsat, 4), round(1.15 * lsat, 4), 4)
        worst, lat_rows = 0.0, []
        for f in fracs:
            load = round(f * bsat, 4)
            b, l = run_b(bcfg, flits, load), run_l(topo, flits, load)
            d = (l["lat"] - b["lat"]) / b["lat"] * 100
            worst = d if abs(d) > abs(worst) else worst
            lat_rows.append((load, b["lat"], l["lat"], d))
            if f == 0.6:  # in both modes
                speed = (flit_hops_per_s(l, nodes), flit_hops_per_s(b, nodes))
        zload = 0.0005 * flits  # 0.0005 packets/cycle/node
        b0, l0 = run_b(bcfg, flits, zload), run_l(topo, flits, zload)
        zl = l0["zl"]
        zmin, zmax = zl[0]["closed_form_ns"] / l0["clock"], zl[-1]["closed_form_ns"] / l0["clock"]
        exact = b0["min"] == zmin and b0["max"] == zmax
        rows.append((name, lsat, bsat, worst, lat_rows, (b0["min"], b0["max"], zmin, zmax, exact), speed))
        print(f"{name}: lhsim saturates at {lsat:.4f}, BookSim2 at {bsat:.4f} (ratio {lsat / bsat:.3f}); latency "
              + "; ".join(f"{x[0]:.3f}: BookSim2 {x[1]:.2f} lhsim {x[2]:.2f} ({x[3]:+.1f}%)" for x in lat_rows)
              + f"; zero-load BookSim2 min/max {b0['min']:.0f}/{b0['max']:.0f}, lhsim closed form {zmin:.0f}/{zmax:.0f}"
              + f", averages at {zload}: BookSim2 {b0['lat']:.2f}, lhsim {l0['lat']:.2f}"
              + f"; speed lhsim {speed[0] / 1e6:.2f} M, BookSim2 {speed[1] / 1e6:.2f} M flit-hops/CPU s ({speed[0] / speed[1]:.1f}x)",
              flush=True)
    print()
    print("| network, packet size | saturation lhsim / BookSim2 | latency below 0.8 x saturation, worst | zero-load (min/max cycles) BookSim2 vs lhsim | speed lhsim / BookSim2 |")
    print("|---|---|---|---|---|")
    for name, lsat, bsat, worst, _, z, speed in rows:
        topo, _, flits, _ = CONFIGS[name]
        print(f"| {topo}, {flits} flit{'s' if flits > 1 else ''} | {lsat:.3f} / {bsat:.3f} = {lsat / bsat:.3f} | {worst:+.1f} % "
              f"| {z[0]:.0f}/{z[1]:.0f} vs {z[2]:.0f}/{z[3]:.0f} {'exact' if z[4] else 'DIFFERENT'} | {speed[0] / speed[1]:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
