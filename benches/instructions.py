#!/usr/bin/env python3
"""quadstep's instruction counts: the figures that do not move with the host's load.

callgrind counts the instructions quadstep executes, the same on every run of the same binary
on the same inputs, whatever else the machine is doing; wall-clock ratios against lavapipe
(`benches/paired.py`) are the headline, these say where a change moved the work.

  frame    instructions per pixel of one draw (clear + draw, one rasterizer thread): a run
           drawing two frames less a run drawing one, so loading, compiling, uploading and
           first-use work (a texture's decoded plane) are out
  sampler  instructions per quad of the `sampler` bench case (`drive`: its 64-quad batch
           loop), QS_CALLGRIND_ITERS=100

Usage: benches/instructions.py [--markdown FILE] [CASE...]   (cases as in benches/paired.py)
`--markdown BENCHMARKS.md` rewrites the rows of the cases measured in the table between
`<!-- instructions:begin -->` and `<!-- instructions:end -->` and keeps the others' rows, in
the order of benches/paired.py's cases. Needs valgrind."""
import argparse, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import FRAMES, GROUPS, SAMPLER, ROOT, bench_bin, prepare, run  # noqa: E402


def callgrind(cmd, env, toggle=None):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        opts = [f"--toggle-collect={toggle}"] if toggle else []
        run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + opts + cmd, env)
        for line in open(out):
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    sys.exit(f"instructions.py: no totals in callgrind output of {cmd}")


def frame_pixels(scene):
    j = json.load(open(scene))
    return j["width"] * j["height"]


def count(case, bins):
    if case.startswith("sampler:"):
        name, iters = SAMPLER[case[8:]][0], 100
        ir = callgrind([bins["sampler"]], {"QS_CALLGRIND_CASE": name,
                                           "QS_CALLGRIND_ITERS": str(iters)}, "*drive*")
        return ir / (iters * 64), "per quad"
    scene = os.path.join(FRAMES[case][0], case + ".json")
    # the draw runs on the rasterizer's pool thread, outside any toggle on the calling
    # thread: a run of two frames less a run of one is exactly the second frame
    one = callgrind([bins["frame"]], {"QS_SCENE_ONCE": f"{scene}/1t", "QS_SCENE_REPEAT": "1"})
    two = callgrind([bins["frame"]], {"QS_SCENE_ONCE": f"{scene}/1t", "QS_SCENE_REPEAT": "2"})
    return (two - one) / frame_pixels(scene), "per pixel"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    cases = []
    for c in a.cases or ["frames", "raster", "sampler"]:
        cases += GROUPS.get(c, [c])
    bins = prepare(cases)
    rows = {}
    for c in cases:
        n, unit = count(c, bins)
        print(f"{c}: {n:.1f} instructions {unit}")
        rows[c] = f"| {c} | {n:,.0f} {unit} |"
    if a.markdown:
        text = open(a.markdown).read()
        begin, end = "<!-- instructions:begin -->", "<!-- instructions:end -->"
        if begin not in text or end not in text:
            sys.exit(f"instructions.py: {a.markdown} has no {begin} … {end} lines")
        head, rest = text.split(begin, 1)
        old, tail = rest.split(end, 1)
        # the rows of the cases this run did not measure stay as they were
        measured = len(rows)
        for line in old.splitlines():
            m = re.match(r"\| (\S+) \| [0-9,]+ per ", line)
            if m and m.group(1) not in rows:
                rows[m.group(1)] = line
        order = [c for g in ("frames", "raster", "sampler") for c in GROUPS[g]]
        ordered = sorted(rows, key=lambda c: order.index(c) if c in order else len(order))
        command = f"`benches/instructions.py {' '.join(sys.argv[1:])}`"
        note = (f"With {command}." if measured == len(rows) else
                f"With `benches/instructions.py --markdown BENCHMARKS.md CASE...`; the last "
                f"run was {command}, the other rows are from earlier runs.")
        table = "\n".join(["| case | quadstep instructions (callgrind, one thread) |",
                           "| --- | --- |"] + [rows[c] for c in ordered] + ["", note])
        with open(a.markdown, "w") as f:
            f.write(head + begin + "\n" + table + "\n" + end + tail)


if __name__ == "__main__":
    main()
