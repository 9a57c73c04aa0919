#!/usr/bin/env python3
"""Independent checks of the rasterization scenes against exact / float64 evaluations of the
Vulkan rules, used to back the claims in README.md. Standard library only; no lavapipe needed.

- fill_fan, fill_subpixel: coverage by exact rational edge functions at pixel centres with the
  top-left rule (framebuffer y down), later triangles overwriting earlier ones; every pixel's
  colour must equal the owning triangle's flat colour, or the clear colour.
- deriv_varying, deriv_fragcoord: fine derivatives (pixel pairs of each quad) of the shader's
  function evaluated in float64 (varyings by barycentric interpolation, w = 1).
- deriv_finecoarse: whether lavapipe's coarse derivatives equal its fine ones.
- quad_swap_full, quad_swap_triangle: swapped gl_FragCoord = the neighbour's pixel centre.
- perspective: G, B = perspective-correct u/8, v/8 (pixels at least 0.02 barycentric inside).
- depth_always: B = the last triangle's z/w (pixels at least 0.02 inside).

Usage: tests/lavapipe/rasterref.py   prints one line per check.
"""
import json
import math
import os
import struct
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with open(os.path.join(HERE, "scenes", name + ".json")) as f:
        s = json.load(f)
    with open(os.path.join(HERE, "expected", name + ".lvp.f32"), "rb") as f:
        b = f.read()
    return s, struct.unpack("<%df" % (len(b) // 4), b)


def px(img, w, x, y):
    i = 4 * (y * w + x)
    return img[i:i + 4]


def screen(v, w, h):
    """Clip-space vertex -> (x, y, z, 1/w) in framebuffer pixels."""
    return ((v[0] / v[3] + 1) * w / 2, (v[1] / v[3] + 1) * h / 2, v[2] / v[3], 1 / v[3])


def fill_check(name):
    s, img = load(name)
    w, h = s["width"], s["height"]
    vs = s["vertices"]
    owner = [None] * (w * h)
    for t in range(0, len(vs), 3):
        tri = [((Fraction(v[0]) / Fraction(v[3]) + 1) * w / 2,
                (Fraction(v[1]) / Fraction(v[3]) + 1) * h / 2) for v in vs[t:t + 3]]
        (x0, y0), (x1, y1), (x2, y2) = tri
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0:
            continue
        if area < 0:
            tri = [tri[0], tri[2], tri[1]]
        edges = [(tri[i][0], tri[i][1], tri[(i + 1) % 3][0] - tri[i][0],
                  tri[(i + 1) % 3][1] - tri[i][1]) for i in range(3)]
        for y in range(h):
            for x in range(w):
                cx, cy = Fraction(2 * x + 1, 2), Fraction(2 * y + 1, 2)
                inside = True
                for ax, ay, dx, dy in edges:
                    e = dx * (cy - ay) - dy * (cx - ax)   # > 0 inside
                    # on the edge: inside only for a top edge (horizontal, interior below in
                    # y-down coordinates: dx > 0 here) or a left edge (interior to the right: dy < 0)
                    if e < 0 or (e == 0 and not ((dy == 0 and dx > 0) or dy < 0)):
                        inside = False
                        break
                if inside:
                    owner[y * w + x] = tuple(vs[t][4:8])
    bad = sum(1 for y in range(h) for x in range(w)
              if any(abs(a - b) > 1e-7 for a, b in
                     zip(px(img, w, x, y), owner[y * w + x] or s["clear_color"])))
    covered = sum(1 for o in owner if o)
    print("%s: %d of %d pixels differ from the exact top-left rule (%d covered)"
          % (name, bad, w * h, covered))


def barycentric(tri, x, y):
    (x0, y0), (x1, y1), (x2, y2) = [(t[0], t[1]) for t in tri]
    den = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
    b1 = ((x - x0) * (y2 - y0) - (x2 - x0) * (y - y0)) / den
    b2 = ((x1 - x0) * (y - y0) - (x - x0) * (y1 - y0)) / den
    return 1 - b1 - b2, b1, b2


def deriv_check():
    for name, k in (("deriv_varying", 8.0), ("deriv_fragcoord", 4.0)):
        s, img = load(name)
        vs = s["vertices"]
        tri = [screen(v, 64, 64) for v in vs]

        def f(x, y):
            if name == "deriv_varying":
                b = barycentric(tri, x, y)
                u = sum(b[i] * vs[i][4] for i in range(3))
                v = sum(b[i] * vs[i][5] for i in range(3))
                return math.sin(u * 6.0) * v * v + u * v
            qx, qy = x / 64, y / 64
            return qx * qx * 8 + qy ** 3 * 16 - qx * qy * 4
        worst = 0.0
        for y in range(64):
            for x in range(64):
                p = px(img, 64, x, y)
                if p[3] == 0:
                    continue
                cx, cy = x + 0.5, y + 0.5
                dx = (f((x | 1) + 0.5, cy) - f((x & ~1) + 0.5, cy)) * k
                dy = (f(cx, (y | 1) + 0.5) - f(cx, (y & ~1) + 0.5)) * k
                worst = max(worst, abs(p[0] - dx), abs(p[1] - dy), abs(p[2] - abs(dx) - abs(dy)))
        print("%s: max |diff| vs float64 fine derivatives = %.3g" % (name, worst))
    _, a = load("deriv_varying")
    _, b = load("deriv_finecoarse")
    n = same_fine = same_coarse = 0
    for i in range(0, len(a), 4):
        if a[i + 3] == 0:
            continue
        n += 1
        same_fine += a[i] == b[i] and a[i + 1] == b[i + 1]
        same_coarse += b[i] == b[i + 2] and b[i + 1] == b[i + 3]
    print("deriv_finecoarse: dFdx/dFdy == Fine on %d of %d covered pixels; Coarse == Fine on %d"
          % (same_fine, n, same_coarse))


def quad_check():
    for name in ("quad_swap_full", "quad_swap_triangle"):
        s, img = load(name)
        bad = n = 0
        for y in range(64):
            for x in range(64):
                p = px(img, 64, x, y)
                if name == "quad_swap_triangle" and p[0] == 0 and p[1] == 0:
                    continue
                n += 1
                want = ((x ^ 1) + 0.5, (y ^ 1) + 0.5, (x ^ 1) + 0.5, (y ^ 1) + 0.5)
                bad += any(p[c] * 64 != want[c] for c in range(4))
        print("%s: %d of %d written pixels wrong" % (name, bad, n))


def interp_check():
    s, img = load("perspective")
    vs = s["vertices"]
    worst = 0.0
    for t in range(0, len(vs), 3):
        tri = [screen(v, 64, 64) for v in vs[t:t + 3]]
        for y in range(64):
            for x in range(64):
                b = barycentric(tri, x + 0.5, y + 0.5)
                if min(b) < 0.02:
                    continue
                iw = sum(b[i] * tri[i][3] for i in range(3))
                u = sum(b[i] * vs[t + i][4] * tri[i][3] for i in range(3)) / iw
                v = sum(b[i] * vs[t + i][5] * tri[i][3] for i in range(3)) / iw
                p = px(img, 64, x, y)
                worst = max(worst, abs(p[1] - u / 8), abs(p[2] - v / 8))
    print("perspective: max |diff| of G, B vs float64 perspective-correct = %.3g" % worst)

    s, img = load("depth_always")
    vs = s["vertices"]
    last = {}
    for t in range(0, len(vs), 3):
        tri = [screen(v, 64, 64) for v in vs[t:t + 3]]
        for y in range(64):
            for x in range(64):
                b = barycentric(tri, x + 0.5, y + 0.5)
                if min(b) >= 0:
                    last[(x, y)] = (sum(b[i] * tri[i][2] for i in range(3)), min(b))
    worst = max(abs(px(img, 64, x, y)[2] - z) for (x, y), (z, m) in last.items() if m >= 0.02)
    print("depth_always: max |diff| of B (depth) vs float64 z = %.3g" % worst)


def main():
    fill_check("fill_fan")
    fill_check("fill_subpixel")
    deriv_check()
    quad_check()
    interp_check()


if __name__ == "__main__":
    main()
