#!/usr/bin/env python3
"""quadstep beside lavapipe, with the host's drift paired out.

Every figure is a ratio of two timings taken seconds apart: each round times lavapipe (lvp) and
quadstep back to back on the same work, turning the order round every other round, and the
report gives the median over the rounds of the per-round ratios, with their spread. Absolute
times move by tens of per cent within minutes on a shared VM; these ratios move far less.

Two kinds of case:
  frame    an lvp scene file (JSON), drawn by lvp and by quadstep's `raster_scenes` bench
           binary (which reads the same files). Timed on both sides: the render pass's clear
           (load op) plus the draw, into attachments kept from frame to frame; lvp from
           vkQueueSubmit to the fence, quadstep around `draw_into`. Median of N frames after
           warm-up, at each thread count (LP_NUM_THREADS / the rasterizer's threads).
  sampler  the texture unit alone, per sample: lavapipe's in-shader cost per sample is the
           difference between its sampling scene with 16 samples per pixel and with none,
           over 16·512² samples (one thread); quadstep's is the `sampler` bench's thread CPU
           time per sample for the matching case.

Before and after: `--baseline DIR` names another checkout of quadstep (a `git worktree` of the
commit before a change); its bench binaries are built there and timed in the same rounds, the
three sides in an order that turns round from round to round, and the table adds the
baseline's ratio to lavapipe and this checkout's time over the baseline's (median of the
per-round ratios). Scene files are this checkout's for both.

Usage:
  benches/paired.py [--rounds R] [--frames N] [--threads 1,2] [--baseline DIR]
                    [--markdown FILE [--marker NAME]] [CASE...]
CASE is a frame name (see FRAMES), `sampler:NAME` (see SAMPLER), or `frames`, `raster`,
`sampler` for a whole group; the default is every case. `--markdown BENCHMARKS.md` rewrites
the table between that file's `<!-- NAME:begin -->` and `<!-- NAME:end -->` lines (NAME is
`paired` unless `--marker` says otherwise).

It builds what it needs inside the repository: lvp into target/lvp (from tools/lvp),
the frame scenes (benches/lavapipe/frames/gen.py, benches/lavapipe/raster/gen.py) and the two
bench binaries. Needs glslangValidator, python3 and lavapipe (mesa-vulkan-drivers)."""
import argparse, datetime, json, os, platform, re, statistics as st, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LVP_SRC = os.path.join(ROOT, "tools", "lvp")
LVP = os.path.join(ROOT, "target", "lvp", "release", "lvp")
ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
FRAME_DIR = os.path.join(ROOT, "target", "bench-frames")
RASTER_DIR = os.path.join(ROOT, "benches", "lavapipe", "raster", "build")
SCENE_DIR = os.path.join(ROOT, "benches", "lavapipe", "scenes")

# frame name -> (scene file, what it is)
FRAMES = {
    "textured": (FRAME_DIR, "1024², exp2, trilinear texture(), dFdx/dFdy, Dref textureGrad"),
    "alu": (FRAME_DIR, "256², 64-iteration loop of fract/dot/sqrt/sin with a branch"),
    "varying_lod": (FRAME_DIR, "1024², four trilinear texture() per pixel, LOD varying by quad"),
    "grad": (FRAME_DIR, "1024², two trilinear textureGrad per pixel, varying anisotropic gradients"),
    "dref_grad": (FRAME_DIR, "1024², two Dref textureGrad (2×2 PCF) per pixel"),
    "uniforms": (FRAME_DIR, "1024², push-constant reads in a 16-step loop"),
    "material": (FRAME_DIR, "1024², normal-mapped Blinn-Phong, pow, 3×3 PCF shadow (11 samples)"),
    "msaa4": (FRAME_DIR, "1024², 4× MSAA: a 256-triangle fan, interpolated colour, resolve"),
    "fullscreen_trilinear": (RASTER_DIR, "1024², one trilinear texture() per pixel"),
    "small_triangles": (RASTER_DIR, "1024², 10 000 small triangles, interpolated colour"),
    "depth_scene": (RASTER_DIR, "1024², 512 triangles with perspective, depth test"),
    "blend_scene": (RASTER_DIR, "1024², 512 translucent triangles, alpha blending"),
}
GROUPS = {
    "frames": ["textured", "alu", "varying_lod", "grad", "dref_grad", "uniforms", "material",
               "msaa4"],
    "raster": ["fullscreen_trilinear", "small_triangles", "depth_scene", "blend_scene"],
}
# lavapipe sampling scene -> (quadstep sampler case, iterations of its 64-quad loop)
SAMPLER = {
    "nearest": ("nearest_rgba8_2d_wide", 200000),
    "bilinear": ("bilinear_rgba8_2d_wide", 200000),
    "trilinear": ("trilinear_rgba8_2d_wide", 200000),
    "dref_pcf": ("dref_pcf2x2_d32_wide", 200000),
    "cube_bilinear": ("cube_bilinear_rgba8_wide", 200000),
    "gather": ("gather_rgba8_2d_wide", 200000),
    "aniso16": ("aniso16_rgba8_2d", 10000),
}
GROUPS["sampler"] = ["sampler:" + k for k in SAMPLER]


def run(cmd, env=None, cwd=ROOT):
    e = dict(os.environ, **(env or {}))
    r = subprocess.run(cmd, env=e, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"paired.py: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def bench_bin(name, root=ROOT):
    out = subprocess.run(["cargo", "bench", "--bench", name, "--no-run"], cwd=root,
                         capture_output=True, text=True)
    m = re.findall(r"Executable .*\((.*)\)", out.stdout + out.stderr)
    if out.returncode != 0 or not m:
        sys.exit(f"paired.py: cargo bench --bench {name} --no-run in {root} failed:\n"
                 f"{out.stderr}")
    return os.path.join(root, m[-1])


def prepare(cases, root=ROOT):
    # cargo rebuilds lvp when tools/lvp changed, and does nothing when it is current
    run(["cargo", "build", "--release", "--manifest-path",
         os.path.join(LVP_SRC, "Cargo.toml"), "--target-dir",
         os.path.join(ROOT, "target", "lvp")])
    if any(c in GROUPS["frames"] for c in cases):
        run(["python3", os.path.join(ROOT, "benches", "lavapipe", "frames", "gen.py")])
    if any(c in GROUPS["raster"] for c in cases):
        run(["python3", os.path.join(ROOT, "benches", "lavapipe", "raster", "gen.py")])
    return bench_bins(cases, root)


def bench_bins(cases, root):
    bins = {}
    if any(not c.startswith("sampler:") for c in cases):
        bins["frame"] = bench_bin("raster_scenes", root)
    if any(c.startswith("sampler:") for c in cases):
        bins["sampler"] = bench_bin("sampler", root)
    return bins


def lvp_ms(scene, threads, frames):
    out = run([LVP, scene, "--warmup", "2", "--iterations", str(frames)],
              {"VK_ICD_FILENAMES": ICD, "LP_NUM_THREADS": str(threads)})
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def qs_ms(binary, scene, threads, frames):
    out = run([binary], {"QS_SCENE_TIMES": "1", "QS_SCENE_ONCE": f"{scene}/{threads}t",
                         "QS_SCENE_REPEAT": str(frames + 2)})
    return float(re.search(r"median_ms ([0-9.]+)", out).group(1))


def lvp_ns(name):
    t = [lvp_ms(os.path.join(SCENE_DIR, f"{name}.{n}.json"), 1, 10) for n in (16, 0)]
    return (t[0] - t[1]) * 1e6 / (16 * 512 * 512)


def qs_ns(binary, name):
    case, iters = SAMPLER[name]
    out = run([binary], {"QS_SAMPLER_TIME": "1", "QS_CALLGRIND_CASE": case,
                         "QS_CALLGRIND_ITERS": str(iters)})
    return float(out.split()[2])


def measure(case, bins, rounds, frames, threads, base=None):
    """Rows of (lavapipe, quadstep[, baseline]) per thread count, one per round; the sides'
    order turns round every round (reversed every other round for two sides, rotated for
    three)."""
    if case.startswith("sampler:"):
        threads = [1]  # per-sample costs on one thread
    rows = {t: [] for t in threads}
    for r in range(rounds):
        for t in (threads if r % 2 == 0 else threads[::-1]):
            if case.startswith("sampler:"):
                name = case.split(":", 1)[1]
                sides = [lambda: lvp_ns(name)] + [
                    lambda b=b: qs_ns(b["sampler"], name) for b in [bins] + ([base] if base else [])]
            else:
                scene = os.path.join(FRAMES[case][0], case + ".json")
                sides = [lambda: lvp_ms(scene, t, frames)] + [
                    lambda b=b: qs_ms(b["frame"], scene, t, frames)
                    for b in [bins] + ([base] if base else [])]
            n = len(sides)
            order = (list(range(n)) if r % 2 == 0 else list(range(n))[::-1]) if n == 2 else \
                [(i + r) % n for i in range(n)]
            got = [None] * n
            for i in order:
                got[i] = sides[i]()
            rows[t].append(tuple(got))
            extra = f", baseline {got[2]:.3f}" if n == 3 else ""
            print(f"  {case} round {r + 1} {t}t: lavapipe {got[0]:.3f}, quadstep {got[1]:.3f}"
                  f"{extra}, ratio {got[1] / got[0]:.2f}", file=sys.stderr)
    return rows


def summary(rows):
    ratios = [x[1] / x[0] for x in rows]
    s = {"lavapipe": st.median(x[0] for x in rows), "quadstep": st.median(x[1] for x in rows),
         "ratio": st.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
         "rounds": len(rows)}
    if len(rows[0]) == 3:
        base = [x[2] / x[0] for x in rows]
        change = [x[1] / x[2] for x in rows]
        s.update(baseline=st.median(x[2] for x in rows), baseline_ratio=st.median(base),
                 change=st.median(change), change_min=min(change), change_max=max(change))
    return s


def markdown(results, command):
    based = any("change" in s for per in results.values() for s in per.values())
    if based:
        lines = ["| case | threads | quadstep | baseline | lavapipe | ratio | baseline's ratio "
                 "| quadstep ÷ baseline (spread) |",
                 "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    else:
        lines = ["| case | threads | quadstep | lavapipe | ratio (spread) | what |",
                 "| --- | --- | --- | --- | --- | --- |"]
    for case, per in results.items():
        sampler = case.startswith("sampler:")
        unit = "ns/sample" if sampler else "ms"
        what = ("texture unit alone vs lavapipe's in-shader cost per sample" if sampler
                else FRAMES[case][1])
        for t, s in per.items():
            if based:
                lines.append(f"| {case} | {t} | {s['quadstep']:.2f} {unit} | {s['baseline']:.2f} "
                             f"{unit} | {s['lavapipe']:.2f} {unit} | {s['ratio']:.2f}× | "
                             f"{s['baseline_ratio']:.2f}× | **{s['change']:.2f}×** "
                             f"({s['change_min']:.2f}–{s['change_max']:.2f}) |")
                continue
            lines.append(f"| {case} | {t} | {s['quadstep']:.2f} {unit} | {s['lavapipe']:.2f} {unit} "
                         f"| **{s['ratio']:.2f}×** ({s['ratio_min']:.2f}–{s['ratio_max']:.2f}) | {what} |")
    load = os.getloadavg()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    lines += ["", f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on "
              f"{os.cpu_count()} × {cpu} ({platform.system()} {platform.release()}), load average "
              f"{load[0]:.2f} at the end, with `{command}`. Ratio = quadstep's time ÷ lavapipe's "
              "(below 1: quadstep is faster): the median of the per-round ratios, and their range."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--markdown")
    ap.add_argument("--marker", default="paired")
    ap.add_argument("--baseline", help="another checkout of quadstep, timed in the same rounds")
    ap.add_argument("--json")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    cases = []
    for c in a.cases or ["frames", "raster", "sampler"]:
        cases += GROUPS.get(c, [c])
    for c in cases:
        if c not in FRAMES and not (c.startswith("sampler:") and c[8:] in SAMPLER):
            sys.exit(f"paired.py: unknown case {c} (frames: {', '.join(FRAMES)}; "
                     f"sampler:{{{','.join(SAMPLER)}}})")
    threads = [int(t) for t in a.threads.split(",")]
    bins = prepare(cases)
    base = bench_bins(cases, os.path.abspath(a.baseline)) if a.baseline else None
    results = {}
    for c in cases:
        rows = measure(c, bins, a.rounds, a.frames, threads, base)
        results[c] = {t: summary(r) for t, r in rows.items()}
        for t, s in results[c].items():
            extra = (f" baseline {s['baseline']:.3f} quadstep/baseline {s['change']:.3f} "
                     f"({s['change_min']:.3f}-{s['change_max']:.3f})" if "change" in s else "")
            print(f"{c} {t}t: quadstep {s['quadstep']:.3f} lavapipe {s['lavapipe']:.3f} "
                  f"ratio {s['ratio']:.2f} ({s['ratio_min']:.2f}-{s['ratio_max']:.2f}){extra}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.markdown:
        command = "benches/paired.py " + " ".join(sys.argv[1:])
        text = open(a.markdown).read()
        begin, end = f"<!-- {a.marker}:begin -->", f"<!-- {a.marker}:end -->"
        if begin not in text or end not in text:
            sys.exit(f"paired.py: {a.markdown} has no {begin} … {end} lines")
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1]
        with open(a.markdown, "w") as f:
            f.write(head + begin + "\n" + markdown(results, command) + "\n" + end + tail)


if __name__ == "__main__":
    main()
