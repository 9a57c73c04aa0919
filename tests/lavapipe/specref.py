#!/usr/bin/env python3
"""A float64 reference of the Vulkan sampling formulas for some of the scenes, used only to
measure how far lavapipe's output is from exact spec arithmetic (the numbers in README.md).
Standard library only; no lavapipe needed (it reads expected/*.lvp.f32).

Covered: addr_* (bilinear, every address mode and border colour), trilinear and lod_* (implicit
LOD from per-quad coarse derivatives, sampler bias and clamps, LINEAR mipmap mode), bias (shader
bias), grad (explicit gradients), array_lod (explicit LOD, layer rounding), tex3d_lod, gather,
gather_offsets, offset,
cube_* (seamless bilinear), dref_* (PCF: bilinear/trilinear of per-texel compare results), fmt_*.
Texture data is read from data/*.f32 and converted as lvp uploads it (unorm8, exact sRGB
decode of the stored byte, f16 round-to-nearest-even, f32).

Usage: tests/lavapipe/specref.py [--lvp-lod] [scene...]   prints a table of deviations (max,
99th percentile, mean, and the share of values off by more than 1/255 and 4/255).
"""
import json
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_f32(path):
    with open(path, "rb") as f:
        b = f.read()
    return struct.unpack("<%df" % (len(b) // 4), b)


def unorm8(v):
    return math.floor(min(max(v, 0.0), 1.0) * 255.0 + 0.5) / 255.0


def f16(v):
    return struct.unpack("<e", struct.pack("<e", v))[0]


def srgb8(v):
    """lvp's upload (encode, unorm8) followed by the exact decode of the stored byte."""
    v = min(max(v, 0.0), 1.0)
    e = 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    c = math.floor(e * 255.0 + 0.5) / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def convert(fmt, vals):
    """Stored-and-read-back values of lvp's RGBA f32 upload data in `fmt`; missing channels
    read as 0 (G, B) and 1 (A)."""
    out = []
    for i in range(0, len(vals), 4):
        r, g, b, a = vals[i:i + 4]
        if fmt == "D32_SFLOAT":
            out += [min(max(r, 0.0), 1.0), 0.0, 0.0, 1.0]
        elif fmt == "R8G8B8A8_UNORM":
            out += [unorm8(r), unorm8(g), unorm8(b), unorm8(a)]
        elif fmt == "R8G8B8A8_SRGB":
            out += [srgb8(r), srgb8(g), srgb8(b), unorm8(a)]
        elif fmt == "R16G16B16A16_SFLOAT":
            out += [f16(r), f16(g), f16(b), f16(a)]
        elif fmt == "R16_SFLOAT":
            out += [f16(r), 0.0, 0.0, 1.0]
        elif fmt == "R32G32_SFLOAT":
            out += [struct.unpack("<f", struct.pack("<f", r))[0],
                    struct.unpack("<f", struct.pack("<f", g))[0], 0.0, 1.0]
        else:
            raise SystemExit("specref.py does not model format %s" % fmt)
    return out


class Tex2D:
    """Levels of RGBA texels (converted as stored; layers concatenated) plus the sampler state of a scene's texture."""

    def __init__(self, t):
        raw = read_f32(os.path.join(HERE, "scenes", t["data"]))
        self.levels = []
        off = 0
        layers = t.get("layers", 6 if t.get("view_type") == "CUBE" else 1)
        for m in range(t.get("mip_levels", 1)):
            w, h = max(1, t["width"] >> m), max(1, t.get("height", 1) >> m)
            layers_m = max(1, t.get("depth", 1) >> m) if t.get("view_type") == "3D" else layers
            n = w * h * 4 * layers_m
            vals = convert(t["format"], raw[off:off + n])
            self.levels.append((w, h, [tuple(vals[i:i + 4]) for i in range(0, n, 4)]))
            off += n
        self.t = t
        self.ref = None   # depth reference for compare-enabled samplers

    def texel(self, level, i, j, layer=0):
        w, h, data = self.levels[level]
        data = data[layer * w * h:]
        mu, mv = self.t.get("address_u", "REPEAT"), self.t.get("address_v", "REPEAT")
        i, j = wrap(i, w, mu), wrap(j, h, mv)
        if i is None or j is None:
            return BORDERS[self.t.get("border_color", "FLOAT_TRANSPARENT_BLACK")]
        if "compare_op" in self.t:   # each texel is replaced by its compare result, then filtered
            r = 1.0 if COMPARE[self.t["compare_op"]](self.ref, data[j * w + i][0]) else 0.0
            return (r, r, r, r)
        return data[j * w + i]

    def bilinear(self, level, u, v, layer=0, offset=(0, 0)):
        w, h, _ = self.levels[level]
        x, y = u * w - 0.5, v * h - 0.5
        i0, j0 = math.floor(x) + offset[0], math.floor(y) + offset[1]
        a, b = x - math.floor(x), y - math.floor(y)
        t00, t10 = self.texel(level, i0, j0, layer), self.texel(level, i0 + 1, j0, layer)
        t01, t11 = self.texel(level, i0, j0 + 1, layer), self.texel(level, i0 + 1, j0 + 1, layer)
        return tuple((1 - a) * (1 - b) * t00[c] + a * (1 - b) * t10[c]
                     + (1 - a) * b * t01[c] + a * b * t11[c] for c in range(4))

    def trilinear(self, u, v, lam, layer=0):
        """lam = the biased, clamped LOD (lambda of the spec)."""
        q = len(self.levels) - 1
        if lam <= 0.0:
            return self.bilinear(0, u, v, layer)   # magnification (mag filter LINEAR)
        d = min(lam, float(q))
        lo = math.floor(d)
        hi = min(lo + 1, q)
        f = d - lo
        a, b = self.bilinear(lo, u, v, layer), self.bilinear(hi, u, v, layer)
        return tuple((1 - f) * a[c] + f * b[c] for c in range(4))

    def gather(self, u, v, comp, offset=(0, 0)):
        w, h, _ = self.levels[0]
        i0 = math.floor(u * w - 0.5) + offset[0]
        j0 = math.floor(v * h - 0.5) + offset[1]
        order = [(0, 1), (1, 1), (1, 0), (0, 0)]   # i0j1, i1j1, i1j0, i0j0
        return tuple(self.texel(0, i0 + di, j0 + dj)[comp] for di, dj in order)

    def gather_offsets(self, u, v, comp, offsets):
        """Component k is texel i0j0 of the footprint moved by offsets[k] (GLSL's rule)."""
        return tuple(self.gather(u, v, comp, o)[3] for o in offsets)

    def texel3d(self, level, i, j, k):
        w, h, data = self.levels[level]
        d = len(data) // (w * h)
        i, j, k = (min(max(c, 0), s - 1) for c, s in ((i, w), (j, h), (k, d)))  # CLAMP_TO_EDGE
        return data[(k * h + j) * w + i]

    def trilinear3d(self, u, v, r, lam):
        """Explicit-LOD 3D sampling, LINEAR everything (mag LINEAR when lam <= 0)."""
        def level_sample(m):
            w, h, data = self.levels[m]
            d = len(data) // (w * h)
            x, y, z = u * w - 0.5, v * h - 0.5, r * d - 0.5
            i0, j0, k0 = math.floor(x), math.floor(y), math.floor(z)
            a, b, c = x - i0, y - j0, z - k0
            acc = [0.0] * 4
            for di, wi in ((0, 1 - a), (1, a)):
                for dj, wj in ((0, 1 - b), (1, b)):
                    for dk, wk in ((0, 1 - c), (1, c)):
                        t = self.texel3d(m, i0 + di, j0 + dj, k0 + dk)
                        for ch in range(4):
                            acc[ch] += wi * wj * wk * t[ch]
            return acc
        q = len(self.levels) - 1
        if lam <= 0.0:
            return tuple(level_sample(0))
        dl = min(lam, float(q))
        lo = math.floor(dl)
        hi = min(lo + 1, q)
        f = dl - lo
        sa, sb = level_sample(lo), level_sample(hi)
        return tuple((1 - f) * sa[ch] + f * sb[ch] for ch in range(4))


BORDERS = {"FLOAT_TRANSPARENT_BLACK": (0.0, 0.0, 0.0, 0.0),
           "FLOAT_OPAQUE_BLACK": (0.0, 0.0, 0.0, 1.0),
           "FLOAT_OPAQUE_WHITE": (1.0, 1.0, 1.0, 1.0)}


# result = reference <op> texel depth
COMPARE = {"NEVER": lambda r, d: False, "LESS": lambda r, d: r < d, "EQUAL": lambda r, d: r == d,
           "LESS_OR_EQUAL": lambda r, d: r <= d, "GREATER": lambda r, d: r > d,
           "NOT_EQUAL": lambda r, d: r != d, "GREATER_OR_EQUAL": lambda r, d: r >= d,
           "ALWAYS": lambda r, d: True}


def mirror(a):
    return a if a >= 0 else -(1 + a)


def wrap(i, size, mode):
    if mode == "REPEAT":
        return i % size
    if mode == "MIRRORED_REPEAT":
        return (size - 1) - mirror((i % (2 * size)) - size)
    if mode == "CLAMP_TO_EDGE":
        return min(max(i, 0), size - 1)
    if mode == "CLAMP_TO_BORDER":
        return i if 0 <= i < size else None
    if mode == "MIRROR_CLAMP_TO_EDGE":
        return min(max(mirror(i), 0), size - 1)
    raise ValueError(mode)


# ---- cube maps (level 0, LINEAR, seamless) ----

def cube_face_st(r):
    """Vulkan's cube face selection: face index (+X -X +Y -Y +Z -Z) and (s, t) in [0, 1]."""
    x, y, z = r
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        f, sc, tc, ma = (0, -z, -y, ax) if x > 0 else (1, z, -y, ax)
    elif ay >= az:
        f, sc, tc, ma = (2, x, z, ay) if y > 0 else (3, x, -z, ay)
    else:
        f, sc, tc, ma = (4, x, -y, az) if z > 0 else (5, -x, -y, az)
    return f, 0.5 * (sc / ma + 1), 0.5 * (tc / ma + 1)


def cube_dir(f, s, t):
    """Inverse of cube_face_st on the plane of face f (s, t may lie outside [0, 1])."""
    sc, tc = 2 * s - 1, 2 * t - 1
    return [(1, -tc, -sc), (-1, -tc, sc), (sc, 1, tc), (sc, -1, -tc), (sc, -tc, 1),
            (-sc, -tc, -1)][f]


def cube_sample(tex, r):
    """Bilinear on the selected face; a tap outside the face is the texel of the adjacent face
    that the tap's texel centre, extended on the face plane, projects into; a tap outside at
    a corner is the average of the three texels meeting there."""
    n = tex.t["width"]
    faces = tex.levels[0][2]   # all 6 faces, face-major

    def texel(f, i, j):
        return faces[f * n * n + j * n + i]

    def project(f, i, j):
        g, s, t = cube_face_st(cube_dir(f, (i + 0.5) / n, (j + 0.5) / n))
        return texel(g, min(max(math.floor(s * n), 0), n - 1), min(max(math.floor(t * n), 0), n - 1))

    def tap(f, i, j):
        out_i, out_j = not 0 <= i < n, not 0 <= j < n
        if not out_i and not out_j:
            return texel(f, i, j)
        if out_i and out_j:
            ci, cj = min(max(i, 0), n - 1), min(max(j, 0), n - 1)
            a, b, c = texel(f, ci, cj), project(f, i, cj), project(f, ci, j)
            return tuple((a[k] + b[k] + c[k]) / 3 for k in range(4))
        return project(f, i, j)

    f, s, t = cube_face_st(r)
    x, y = s * n - 0.5, t * n - 0.5
    i0, j0 = math.floor(x), math.floor(y)
    a, b = x - i0, y - j0
    t00, t10 = tap(f, i0, j0), tap(f, i0 + 1, j0)
    t01, t11 = tap(f, i0, j0 + 1), tap(f, i0 + 1, j0 + 1)
    return tuple((1 - a) * (1 - b) * t00[c] + a * (1 - b) * t10[c]
                 + (1 - a) * b * t01[c] + a * b * t11[c] for c in range(4))


def cube_equirect_dir(px, py):
    p = ((px + 0.5) / 128.0, (py + 0.5) / 64.0)
    lon, lat = (p[0] * 2 - 1) * 3.14159265, (0.5 - p[1]) * 3.14159265
    return (math.cos(lat) * math.cos(lon), math.sin(lat), math.cos(lat) * math.sin(lon))


def cube_corner_dir(px, py):
    p = ((px + 0.5) / 64.0 * 2 - 1, (py + 0.5) / 64.0 * 2 - 1)
    right, up = (1.0, 0.0, -1.0), (-0.5, 1.0, -0.5)
    return tuple(1.0 + 0.6 * (p[0] * right[k] - p[1] * up[k]) for k in range(3))


def trilinear_uv(px, py):
    """trilinear.frag's coordinate for the pixel centre (px + 0.5, py + 0.5)."""
    p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
    tiles = 2.0 ** (p[1] * 6.0 - 1.0)
    x, y = p[0] - 0.5, p[1] - 0.5
    return ((0.8 * x - 0.6 * y) * tiles, (0.6 * x + 0.8 * y) * tiles)


def bias_uv(px, py):
    p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
    scale = 2.0 ** (math.floor((px + 0.5) / 8.0) / 4.0)
    return (p[0] * scale + 0.1, p[1] * scale + 0.3)


def format_uv(px, py):
    p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
    k = 2.0 ** (p[0] * 4.0) * 0.9
    return (p[0] * k, p[1] * k)


def dref_uv(px, py):
    p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
    k = 2.0 ** (p[1] * 5.0)
    return (p[0] * k, p[1] * k)


BIAS_ROWS = [-4.0, -1.0, 0.0, 0.5, 1.25, 2.5, 4.0, 12.0]


LVP_LOD = False   # --lvp-lod: model lavapipe's LOD approximation instead of the exact log2


def fast_log2(x):
    """Piecewise-linear log2 (exponent + mantissa - 1), exact at powers of two; its error
    is at most 0.0861 (at mantissa 1/ln 2)."""
    m, e = math.frexp(x)   # x = m * 2^e, m in [0.5, 1)
    return (e - 1) + (2.0 * m - 1.0)


def lod_from_rho(tex, rx, ry, shader_bias=0.0):
    """lambda from the scaled gradient lengths, then the sampler bias and clamps."""
    if LVP_LOD:
        base = 0.5 * fast_log2(max(rx, ry) ** 2)
    else:
        base = math.log2(max(rx, ry))
    lam = base + tex.t.get("mip_lod_bias", 0.0) + shader_bias
    return min(max(lam, tex.t.get("min_lod", 0.0)), tex.t.get("max_lod", 1000.0))


def grad_args(px, py):
    """grad.frag's coordinate and explicit gradients."""
    p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
    g = 2.0 ** (p[0] * 6.0) / 64.0
    ratio, a = 1.0 + 3.0 * p[1], p[1] * 1.5
    return p, (g * math.cos(a), g * math.sin(a)), (-g * ratio * math.sin(a), g * ratio * math.cos(a))


GATHER_OFFSETS = [(-8, 7), (7, -8), (0, 0), (-3, 2)]
ARRAY_LAYERS = [-1.0, 0.3, 1.49, 1.51, 2.2, 2.7, 3.4, 6.0]


def implicit_lod(tex, uvf, px, py, shader_bias=0.0):
    """Spec lambda with coarse derivatives: the quad's top-left pixel differences,
    rho = max(|d/dx|, |d/dy|) in texels (Euclidean), then bias and clamps.
    With LVP_LOD: lambda = 0.5 * fast_log2(max(|d/dx|^2, |d/dy|^2)), which reproduces
    lavapipe's output to within about 2/255 (measured, see README.md)."""
    qx, qy = px & ~1, py & ~1
    u0, v0 = uvf(qx, qy)
    u1, v1 = uvf(qx + 1, qy)
    u2, v2 = uvf(qx, qy + 1)
    w, h, _ = tex.levels[0]
    rx = math.hypot((u1 - u0) * w, (v1 - v0) * h)
    ry = math.hypot((u2 - u0) * w, (v2 - v0) * h)
    if LVP_LOD:
        base = 0.5 * fast_log2(max(rx, ry) ** 2)
    else:
        base = math.log2(max(rx, ry))
    lam = base + tex.t.get("mip_lod_bias", 0.0) + shader_bias
    return min(max(lam, tex.t.get("min_lod", 0.0)), tex.t.get("max_lod", 1000.0))


def render(name):
    with open(os.path.join(HERE, "scenes", name + ".json")) as f:
        s = json.load(f)
    tex = Tex2D(s["textures"][0])
    frag = os.path.basename(s["fragment_spv"])
    out = []
    for py in range(s["height"]):
        for px in range(s["width"]):
            if frag == "address.frag.spv":
                u = (px + 0.5) / 64.0 * 3.5 - 1.25
                v = (py + 0.5) / 64.0 * 3.5 - 1.25
                c = tex.bilinear(0, u, v)
            elif frag == "trilinear.frag.spv":
                u, v = trilinear_uv(px, py)
                c = tex.trilinear(u, v, implicit_lod(tex, trilinear_uv, px, py))
            elif frag == "bias.frag.spv":
                u, v = bias_uv(px, py)
                c = tex.trilinear(u, v, implicit_lod(tex, bias_uv, px, py, BIAS_ROWS[py // 8]))
            elif frag == "gather.frag.spv":
                u = (px + 0.5) / 64.0 * 1.5 - 0.25
                v = (py + 0.5) / 64.0 * 1.5 - 0.25
                c = tex.gather(u, v, (1 if px >= 32 else 0) + (2 if py >= 32 else 0))
            elif frag == "grad.frag.spv":
                p, dx, dy = grad_args(px, py)
                lam = lod_from_rho(tex, math.hypot(dx[0] * 64, dx[1] * 64),
                                   math.hypot(dy[0] * 64, dy[1] * 64))
                c = tex.trilinear(p[0], p[1], lam)
            elif frag == "array_lod.frag.spv":
                p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
                lod = min(max(p[1] * 5.0 - 0.5, tex.t.get("min_lod", 0.0)), 1000.0)
                layer = min(max(math.floor(ARRAY_LAYERS[px // 8] + 0.5), 0), 3)  # no .5 ties here
                c = tex.trilinear(p[0] * 2.3 - 0.2, p[1] * 1.7 - 0.2, lod, layer)
            elif frag == "gather_offsets.frag.spv":
                u = (px + 0.5) / 64.0 * 1.5 - 0.25
                v = (py + 0.5) / 64.0 * 1.5 - 0.25
                if 24 <= py < 40:
                    c = tex.gather(u, v, 1, (px // 8 - 4, 3 - px // 8))
                else:
                    comp = (1 if px >= 32 else 0) + (2 if py >= 32 else 0)
                    c = tex.gather_offsets(u, v, comp, GATHER_OFFSETS)
            elif frag == "tex3d_lod.frag.spv":
                p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
                lod = [0.0, 0.6, 1.5, 2.9][px // 16]
                c = tex.trilinear3d(p[0] * 4.0 % 1.0, 0.3 + 0.4 * p[1], p[1] * 1.2 - 0.1, lod)
            elif frag == "offset.frag.spv":
                f = (px + 0.5, py + 0.5)
                u, v = f[0] / 64.0 * 1.3 - 0.15, f[1] / 64.0 * 1.3 - 0.15
                if py < 32:
                    c = tex.bilinear(0, u, v, 0, (-8, 7) if px < 32 else (7, -8))
                else:
                    qx, qy = (px % 32) // 4, (py % 32) // 4
                    i, j = (qx, qy + 7) if px < 32 else (qx + 7, qy)
                    c = tex.texel(0, i, j)
            elif frag == "cube_equirect.frag.spv":
                c = cube_sample(tex, cube_equirect_dir(px, py))
            elif frag == "cube_corner.frag.spv":
                c = cube_sample(tex, cube_corner_dir(px, py))
            elif frag == "format.frag.spv":
                if py < 32:
                    u = (px + 0.5) / 64.0 * 0.6 + 0.1
                    v = (py + 0.5) / 64.0 * 0.6 + 0.1
                    c = tex.bilinear(0, u, v)
                else:
                    c = tex.trilinear(*format_uv(px, py), implicit_lod(tex, format_uv, px, py))
            elif frag == "dref.frag.spv":
                p = ((px + 0.5) / 64.0, (py + 0.5) / 64.0)
                tex.ref = math.floor((px + 0.5) / 8.0) / 8.0
                a = tex.bilinear(0, p[0], p[1])[0]
                b = tex.trilinear(*dref_uv(px, py), implicit_lod(tex, dref_uv, px, py))[0]
                c = (a, b, tex.ref, 1.0)
            else:
                raise SystemExit("specref.py does not model %s" % name)
            out.extend(c)
    return out


DEFAULT = ["addr_repeat", "addr_mirrored_repeat", "addr_clamp_to_edge",
           "addr_border_transparent_black", "addr_border_opaque_black",
           "addr_border_opaque_white", "addr_mirror_clamp_to_edge", "gather",
           "trilinear", "lod_min", "lod_max", "lod_min_max", "lod_sampler_bias",
           "lod_bias_and_clamp", "bias"] + ["dref_" + op for op in (
               "never", "less", "equal", "less_or_equal", "greater", "not_equal",
               "greater_or_equal", "always")] + ["fmt_r16f", "fmt_rg32f", "fmt_srgb",
                                            "cube_equirect", "cube_corner",
                                            "grad", "array_lod", "offset", "gather_offsets",
                                            "tex3d_lod"]


def main():
    global LVP_LOD
    args = sys.argv[1:]
    if "--lvp-lod" in args:
        LVP_LOD = True
        args.remove("--lvp-lod")
    names = args or DEFAULT
    print("| scene | max abs | 99th pct | mean | > 1/255 | > 4/255 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in names:
        ref = render(n)
        got = read_f32(os.path.join(HERE, "expected", n + ".lvp.f32"))
        d = sorted(abs(a - b) for a, b in zip(ref, got))
        k = len(d)
        print("| %s | %.3g | %.3g | %.3g | %.1f%% | %.1f%% |" % (
            n, d[-1], d[int(k * 0.99)], sum(d) / k,
            100.0 * sum(1 for x in d if x > 1.0001 / 255) / k,
            100.0 * sum(1 for x in d if x > 4.0001 / 255) / k))


if __name__ == "__main__":
    main()
