#!/usr/bin/env python3
"""Write the texture data (data/*.f32) and the lvp scene files (scenes/*.json) for the
lavapipe reference scenes. Standard library only, deterministic: running it twice gives
byte-identical files.

Texture data layout (lvp's): for each mip level, for each layer, texels with x fastest, then
y, then z; every texel is 4 little-endian f32 (RGBA). Single-channel formats use R, RG formats
R and G. Values meant for unorm8 formats are chosen as exact k/255 where the scene depends on
them, so the stored bytes are obvious.
"""
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SCENES = os.path.join(HERE, "scenes")


# ----------------------------------------------------------------------------------------------
# texture data

def write_f32(name, values):
    os.makedirs(DATA, exist_ok=True)
    with open(os.path.join(DATA, name), "wb") as f:
        f.write(struct.pack("<%df" % len(values), *values))


def flatten(levels):
    """levels: list (per level) of lists (per layer) of lists of (r, g, b, a) texels."""
    out = []
    for level in levels:
        for layer in level:
            for t in layer:
                out.extend(t)
    return out


def box_down(texels, n):
    """2x2 box filter of an n x n level (n even) -> (n/2) x (n/2)."""
    m = n // 2
    out = []
    for y in range(m):
        for x in range(m):
            acc = [0.0, 0.0, 0.0, 0.0]
            for dy in (0, 1):
                for dx in (0, 1):
                    t = texels[(2 * y + dy) * n + 2 * x + dx]
                    for c in range(4):
                        acc[c] += t[c]
            out.append(tuple(a / 4.0 for a in acc))
    return out


def box_chain(base, n, levels):
    chain = [base]
    for _ in range(levels - 1):
        chain.append(box_down(chain[-1], n))
        n //= 2
    return chain


# One colour per mip level of the 64x64 chain (unorm8-exact: multiples of 1/255 written as k/255).
MIP_COLORS = [(255, 255, 255), (255, 64, 64), (64, 255, 64), (77, 115, 255),
              (255, 255, 51), (255, 77, 255), (51, 255, 255)]


def mipcolor():
    """64x64, 7 levels: a checkerboard of 8x8 cells at every level (cell = n/8, at least 1
    texel), bright = the level's colour, dark = about a fifth of it. Alpha = 1."""
    levels = []
    for m, col in enumerate(MIP_COLORS):
        n = 64 >> m
        cell = max(n // 8, 1)
        texels = []
        for y in range(n):
            for x in range(n):
                bright = ((x // cell) + (y // cell)) % 2 == 0
                k = col if bright else tuple(c // 5 for c in col)
                texels.append((k[0] / 255, k[1] / 255, k[2] / 255, 1.0))
        levels.append([texels])
    return flatten(levels)


def addr4():
    """4x4, 1 level: R = x ramp, G = y ramp, B = checker, A = 1 (all k/255)."""
    texels = []
    for y in range(4):
        for x in range(4):
            texels.append(((40 + 70 * x) / 255, (40 + 70 * y) / 255,
                           (230 if (x + y) % 2 else 20) / 255, 1.0))
    return flatten([[texels]])


CUBE_BASE = [(1.0, 0.0, 0.0), (0.0, 1.0, 1.0), (0.0, 1.0, 0.0),
             (1.0, 0.0, 1.0), (0.0, 0.0, 1.0), (1.0, 1.0, 0.0)]  # +X -X +Y -Y +Z -Z


def cube8():
    """6 faces of 8x8: face colour times a ramp along x (0.3..1), plus the complementary
    colour times a ramp along y, so every face is distinct and oriented. Alpha = 1."""
    layers = []
    for base in CUBE_BASE:
        texels = []
        for y in range(8):
            for x in range(8):
                gx, gy = (x + 0.5) / 8, (y + 0.5) / 8
                rgb = [b * (0.3 + 0.7 * gx) + (1 - b) * 0.6 * gy for b in base]
                texels.append((rgb[0], rgb[1], rgb[2], 1.0))
        layers.append(texels)
    return flatten([layers])


def depth16():
    """D32 16x16, 5 levels: depth = ((5x + 3y) mod 9) / 8, multiples of 1/8 in [0, 1]
    at every level (each level is the same formula at its own size, not a filtered one)."""
    levels = []
    for m in range(5):
        n = 16 >> m
        levels.append([[(((5 * x + 3 * y) % 9) / 8, 0.0, 0.0, 0.0)
                        for y in range(n) for x in range(n)]])
    return flatten(levels)


def ramp16():
    """16x16, 1 level: R = 17x/255, G = 17y/255, B = ((x^y)&3) * 85/255, A = 1."""
    return flatten([[[(17 * x / 255, 17 * y / 255, ((x ^ y) & 3) * 85 / 255, 1.0)
                      for y in range(16) for x in range(16)]]])


def gather8():
    """8x8, 1 level, every channel different so each gathered component is identifiable."""
    texels = []
    for y in range(8):
        for x in range(8):
            texels.append(((32 * x + 4 * y) / 255, (32 * y + 4 * x) / 255,
                           ((7 * x + 3 * y) % 8) * 32 / 255, (40 + 200 * ((x + y) % 2)) / 255))
    return flatten([[texels]])


LAYER_BASE = [(255, 60, 60), (60, 255, 60), (60, 60, 255), (255, 255, 60)]


def array16():
    """2D array 16x16, 4 layers, 5 levels. Layer L has its own hue; level m is scaled by
    (5 - m)/5 and carries A = m/4 (51m/255), so the alpha channel reads the mip blend.
    A 4x4-cell checker at level 0 (cells shrink with the level) multiplies RGB by 1 or 0.6."""
    levels = []
    for m in range(5):
        n = 16 >> m
        cell = max(n // 4, 1)
        layers = []
        for base in LAYER_BASE:
            texels = []
            for y in range(n):
                for x in range(n):
                    f = (5 - m) / 5 * (1.0 if ((x // cell) + (y // cell)) % 2 == 0 else 0.6)
                    texels.append(tuple(round(b * f) / 255 for b in base) + (51 * m / 255,))
            layers.append(texels)
        levels.append(layers)
    return flatten(levels)


def tex3d8():
    """3D 8x8x8, 4 levels (R16G16B16A16_SFLOAT): R, G, B = texel-centre x, y, z in [0,1],
    A = level / 3. Every level uses the same formula at its size, so trilinear results are
    easy to predict."""
    out = []
    for m in range(4):
        n = 8 >> m
        for z in range(n):
            for y in range(n):
                for x in range(n):
                    out.extend(((x + 0.5) / n, (y + 0.5) / n, (z + 0.5) / n, m / 3))
    return out


def fmt_r16f():
    """16x16, 5 box-filtered levels of values in about [-3, 5], deliberately not f16-exact."""
    base = [(1.0 / 3.0 + 4.0 * math.sin(0.9 * x) * math.cos(0.7 * y) + 0.01 * x * y,
             0.0, 0.0, 1.0) for y in range(16) for x in range(16)]
    return flatten([[lv] for lv in box_chain(base, 16, 5)])


def fmt_rg32f():
    """16x16, 5 box-filtered levels: R = 1.37x - 7, G = 0.01y^2 - 0.001x (B, A unused)."""
    base = [(1.37 * x - 7.0, 0.01 * y * y - 0.001 * x, 0.0, 1.0)
            for y in range(16) for x in range(16)]
    return flatten([[lv] for lv in box_chain(base, 16, 5)])


def fmt_srgb():
    """16x16, 5 box-filtered (in linear space) levels: R = x/15, G = y/15, B = checker,
    A = (x + y)/30. lvp sRGB-encodes RGB on upload; alpha is plain unorm8."""
    base = [(x / 15, y / 15, 0.8 if (x // 2 + y // 2) % 2 else 0.05, (x + y) / 30)
            for y in range(16) for x in range(16)]
    return flatten([[lv] for lv in box_chain(base, 16, 5)])


def checker8():
    """8x8 one-texel checker (0.9 / 0.1 grey), 4 box-filtered levels (all 0.5 below level 0)."""
    base = []
    for y in range(8):
        for x in range(8):
            g = 0.9 if (x + y) % 2 == 0 else 0.1
            base.append((g, g, g, 1.0))
    return flatten([[lv] for lv in box_chain(base, 8, 4)])


# ----------------------------------------------------------------------------------------------
# geometry helpers (render targets are 64x64 for every vertex-buffer scene)

def snap(px):
    """Round a pixel coordinate to the 1/256 sub-pixel grid (lavapipe's subPixelPrecisionBits
    = 8), so the vertex positions are exact and no implementation snaps them differently."""
    return round(px * 256.0) / 256.0


def vtx(px, py, z=0.0, w=1.0, attr=(0.0, 0.0, 0.0, 1.0), size=64):
    """A vertex from pixel coordinates (snapped), depth z in [0,1] and clip w."""
    nx = snap(px) / (size / 2) - 1.0
    ny = snap(py) / (size / 2) - 1.0
    return [nx * w, ny * w, z * w, w] + list(attr)


# ----------------------------------------------------------------------------------------------
# scenes

def tex(binding=0, **kw):
    t = {"set": 0, "binding": binding}
    t.update(kw)
    return t


def scene(name, frag, textures=(), width=64, height=64, vertices=None, push=None,
          depth=None, vert=None, clear=(0.0, 0.0, 0.0, 0.0)):
    s = {
        "width": width,
        "height": height,
        "vertex_spv": "../spv/%s.spv" % (vert or ("pass.vert" if vertices else "fullscreen.vert")),
        "fragment_spv": "../spv/%s.spv" % frag,
        "color_format": "R32G32B32A32_SFLOAT",
        "clear_color": list(clear),
    }
    if push is not None:
        s["push_constants"] = push
    if depth is not None:
        s["depth"] = depth
    if textures:
        s["textures"] = list(textures)
    if vertices is not None:
        s["attributes"] = [4, 4]
        s["vertices"] = vertices
    return name, s


def dump(name, s):
    """JSON with one vertex per line (readable diffs), everything else indented."""
    verts = s.pop("vertices", None)
    text = json.dumps(s, indent=2)
    if verts is not None:
        rows = ",\n".join("    " + json.dumps(v) for v in verts)
        text = text[:-2] + ',\n  "vertices": [\n' + rows + "\n  ]\n}"
    os.makedirs(SCENES, exist_ok=True)
    with open(os.path.join(SCENES, name + ".json"), "w") as f:
        f.write(text + "\n")


TRILINEAR = dict(mag_filter="LINEAR", min_filter="LINEAR", mipmap_mode="LINEAR")
MIPCOLOR = dict(format="R8G8B8A8_UNORM", width=64, height=64, mip_levels=7,
                data="../data/mipcolor.f32", **TRILINEAR)
COMPARE_OPS = ["NEVER", "LESS", "EQUAL", "LESS_OR_EQUAL", "GREATER", "NOT_EQUAL",
               "GREATER_OR_EQUAL", "ALWAYS"]


def scenes():
    out = []
    # (1) trilinear
    out.append(scene("trilinear", "trilinear.frag", [tex(**MIPCOLOR)], push=[0.0, 0.0]))

    # (2) address modes, bilinear magnification
    addr = dict(format="R8G8B8A8_UNORM", width=4, height=4, data="../data/addr4.f32",
                mag_filter="LINEAR", min_filter="LINEAR")
    for name, mode, border in [
            ("repeat", "REPEAT", None),
            ("mirrored_repeat", "MIRRORED_REPEAT", None),
            ("clamp_to_edge", "CLAMP_TO_EDGE", None),
            ("border_transparent_black", "CLAMP_TO_BORDER", "FLOAT_TRANSPARENT_BLACK"),
            ("border_opaque_black", "CLAMP_TO_BORDER", "FLOAT_OPAQUE_BLACK"),
            ("border_opaque_white", "CLAMP_TO_BORDER", "FLOAT_OPAQUE_WHITE"),
            ("mirror_clamp_to_edge", "MIRROR_CLAMP_TO_EDGE", None)]:
        t = dict(addr, address_u=mode, address_v=mode)
        if border:
            t["border_color"] = border
        out.append(scene("addr_" + name, "address.frag", [tex(**t)], push=[0.0, 0.0]))

    # (3) cube map
    cube = dict(format="R8G8B8A8_UNORM", view_type="CUBE", width=8, height=8,
                data="../data/cube8.f32", mag_filter="LINEAR", min_filter="LINEAR")
    out.append(scene("cube_equirect", "cube_equirect.frag", [tex(**cube)], width=128))
    out.append(scene("cube_corner", "cube_corner.frag", [tex(**cube)]))

    # (4) Dref PCF, every compare op
    for op in COMPARE_OPS:
        t = dict(format="D32_SFLOAT", width=16, height=16, mip_levels=5,
                 data="../data/depth16.f32", address_u="CLAMP_TO_EDGE",
                 address_v="CLAMP_TO_EDGE", compare_op=op, **TRILINEAR)
        out.append(scene("dref_" + op.lower(), "dref.frag", [tex(**t)], push=[0.0, 0.0]))

    # (5) offsets
    out.append(scene("offset", "offset.frag", [tex(
        format="R8G8B8A8_UNORM", width=16, height=16, data="../data/ramp16.f32",
        mag_filter="LINEAR", min_filter="LINEAR")]))

    # (6) shader bias, (7) gradients
    out.append(scene("bias", "bias.frag", [tex(**MIPCOLOR)]))
    out.append(scene("grad", "grad.frag", [tex(**MIPCOLOR)]))

    # (8) sampler LOD clamps and bias, on the trilinear scene
    for name, extra in [("lod_min", dict(min_lod=2.0)),
                        ("lod_max", dict(max_lod=2.5)),
                        ("lod_min_max", dict(min_lod=1.25, max_lod=3.5)),
                        ("lod_sampler_bias", dict(mip_lod_bias=1.5)),
                        ("lod_bias_and_clamp", dict(mip_lod_bias=-3.0, min_lod=0.5, max_lod=4.0))]:
        out.append(scene(name, "trilinear.frag", [tex(**dict(MIPCOLOR, **extra))],
                         push=[0.0, 0.0]))

    # (9) gather
    g = dict(format="R8G8B8A8_UNORM", width=8, height=8, data="../data/gather8.f32",
             mag_filter="LINEAR", min_filter="LINEAR")
    out.append(scene("gather", "gather.frag", [tex(**g)]))
    out.append(scene("gather_offsets", "gather_offsets.frag", [tex(**g)]))

    # (10) 2D array and 3D with explicit LOD
    out.append(scene("array_lod", "array_lod.frag", [tex(
        format="R8G8B8A8_UNORM", view_type="2D_ARRAY", width=16, height=16, layers=4,
        mip_levels=5, data="../data/array16.f32", **TRILINEAR)]))
    out.append(scene("tex3d_lod", "tex3d_lod.frag", [tex(
        format="R16G16B16A16_SFLOAT", view_type="3D", width=8, height=8, depth=8,
        mip_levels=4, data="../data/tex3d8.f32", address_u="CLAMP_TO_EDGE",
        address_v="CLAMP_TO_EDGE", address_w="CLAMP_TO_EDGE", **TRILINEAR)]))

    # (11) formats
    for name, fmt, data in [("fmt_r16f", "R16_SFLOAT", "fmt_r16f.f32"),
                            ("fmt_rg32f", "R32G32_SFLOAT", "fmt_rg32f.f32"),
                            ("fmt_srgb", "R8G8B8A8_SRGB", "fmt_srgb.f32")]:
        out.append(scene(name, "format.frag", [tex(
            format=fmt, width=16, height=16, mip_levels=5, data="../data/" + data,
            **TRILINEAR)], push=[0.0, 0.0]))

    # (12) perspective-textured floor: world (X, 1, Z), camera at the origin looking down +Z;
    # clip = (1.0 X, 1.6 Y - 0.7 Z, (Z - 1) * 20/19, Z). Texture coordinates are a rotated
    # mapping of (X, Z), so the checker is not axis-aligned on screen.
    def floor_v(X, Z):
        u = 0.5 * X * 0.8 + 0.25 * Z * 0.6
        v = -0.5 * X * 0.6 + 0.25 * Z * 0.8
        return [X, 1.6 - 0.7 * Z, (Z - 1.0) * 20.0 / 19.0, Z, u, v, 0.0, 1.0]
    a, b, c, d = floor_v(-1.0, 1.25), floor_v(1.3, 1.25), floor_v(1.3, 10.0), floor_v(-1.0, 10.0)
    out.append(scene("perspective", "perspective.frag", [tex(
        format="R8G8B8A8_UNORM", width=8, height=8, mip_levels=4, data="../data/checker8.f32",
        **TRILINEAR)], vertices=[a, b, c, a, c, d], clear=(0.0, 0.0, 0.0, 1.0)))

    # (13) depth test, every compare op, the same four triangles drawn in order:
    # T1 tilted (z 0.2..0.8), T2 tilted the other way with w = 1, 2, 1.5 (crosses T1),
    # T3 flat at z = 1.0, T4 = T1's geometry again with another colour.
    t1 = [(4.25, 6.5, 0.2), (60.0, 14.75, 0.8), (20.5, 60.0, 0.5)]
    t2 = [(58.0, 4.0, 0.9, 1.0), (10.0, 30.5, 0.15, 2.0), (50.25, 62.0, 0.6, 1.5)]
    t3 = [(0.0, 40.0), (64.0, 35.5), (31.0, 64.0)]
    verts = [vtx(x, y, z, attr=(1.0, 0.0, 0.0, 1.0)) for x, y, z in t1]
    verts += [vtx(x, y, z, w, attr=(0.0, 1.0, 0.0, 1.0)) for x, y, z, w in t2]
    verts += [vtx(x, y, 1.0, attr=(1.0, 1.0, 0.0, 1.0)) for x, y in t3]
    verts += [vtx(x, y, z, attr=(0.5, 0.25, 0.0, 1.0)) for x, y, z in t1]
    for op in COMPARE_OPS:
        clear = 0.0 if op.startswith("GREATER") else 1.0
        out.append(scene("depth_" + op.lower(), "depth.frag", vertices=verts,
                         depth={"format": "D32_SFLOAT", "compare_op": op, "clear": clear,
                                "write": True}))

    # (14) derivatives on a triangle whose edges cut through quads
    tri = [vtx(3.3, 5.7, attr=(0.0, 0.0, 0.0, 1.0)),
           vtx(61.2, 21.1, attr=(1.0, 0.2, 0.0, 1.0)),
           vtx(15.9, 62.4, attr=(0.1, 1.0, 0.0, 1.0))]
    for name in ("deriv_varying", "deriv_fragcoord", "deriv_finecoarse"):
        out.append(scene(name, name + ".frag", vertices=tri))

    # (15) fill rule: a fan of 48 thin triangles around the pixel centre (32.5, 32.5),
    # then sub-pixel triangles and edges through pixel centres.
    n = 48
    cx = cy = 32.5
    fan = []

    def rim(k):
        ang = 2.0 * math.pi * (k % n) / n
        if k % 12 == 0:   # axis-aligned spokes exactly along pixel-centre rows/columns
            return cx + 31.0 * round(math.cos(ang)), cy + 31.0 * round(math.sin(ang))
        return cx + 31.0 * math.cos(ang), cy + 31.0 * math.sin(ang)

    def colour(k, count):
        return ((k + 1) / count, ((k * 7) % count + 1) / count, 0.25 + 0.75 * (k % 2), 1.0)

    for k in range(n):
        col = colour(k, n)
        fan += [vtx(cx, cy, attr=col), vtx(*rim(k), attr=col), vtx(*rim(k + 1), attr=col)]
    out.append(scene("fill_fan", "flat.frag", vertices=fan))

    tris = [
        # all three vertices inside pixel (10, 10), around its centre: covers exactly it
        [(10.4, 10.4), (10.6, 10.45), (10.5, 10.6)],
        # inside pixel (20, 10) but just right of its centre: covers nothing
        [(20.51, 10.3), (20.9, 10.3), (20.9, 10.7)],
        # vertex exactly on the pixel centre (30.5, 10.5) with the edges leaving it
        [(30.5, 10.5), (33.7, 11.2), (31.2, 13.9)],
        # a 10x10 square of two triangles whose four edges run through pixel centres
        [(30.5, 20.5), (40.5, 20.5), (40.5, 30.5)],
        [(30.5, 20.5), (40.5, 30.5), (30.5, 30.5)],
        # left edges at x = 0.5 - 1/256, 0.5 and 0.5 + 1/256 of their pixel column
        [(5.5 - 1 / 256, 20.0), (9.0, 20.0), (5.5 - 1 / 256, 26.0)],
        [(12.5, 20.0), (16.0, 20.0), (12.5, 26.0)],
        [(19.5 + 1 / 256, 20.0), (23.0, 20.0), (19.5 + 1 / 256, 26.0)],
        # top edges at y = 0.5 -/+ 1/256 and exactly 0.5 (horizontal), bottom edges likewise
        [(4.0, 35.5 - 1 / 256), (10.0, 35.5 - 1 / 256), (4.0, 40.5 + 1 / 256)],
        [(12.0, 35.5), (18.0, 35.5), (12.0, 40.5)],
        [(20.0, 35.5 + 1 / 256), (26.0, 35.5 + 1 / 256), (20.0, 40.5 - 1 / 256)],
        # a 0.15-pixel-wide diagonal sliver crossing many pixels
        [(44.0, 4.0), (62.0, 40.0), (62.15, 40.0)],
        # a triangle with all sub-pixel vertices spanning a pixel corner (4 candidate centres)
        [(50.3, 50.3), (50.9, 50.45), (50.6, 50.95)],
        # a long thin triangle whose long edge passes exactly through pixel centres (slope 1/2)
        [(4.5, 50.5), (24.5, 60.5), (4.5, 51.0)],
        # sub-pixel triangle with a vertex exactly on a pixel centre and a 1/256-wide extent
        [(40.5, 50.5), (40.5 + 1 / 256, 50.5), (40.5, 50.5 + 1 / 256)],
    ]
    sub = []
    for k, t in enumerate(tris):
        col = colour(k, len(tris))
        sub += [vtx(x, y, attr=col) for x, y in t]
    out.append(scene("fill_subpixel", "flat.frag", vertices=sub))

    # (16) quad swaps: full screen, and the derivative triangle (helper lanes on the edges)
    out.append(scene("quad_swap_full", "quad_swap.frag"))
    out.append(scene("quad_swap_triangle", "quad_swap.frag", vertices=tri))
    return out


def main():
    for name, values in [("mipcolor.f32", mipcolor()), ("addr4.f32", addr4()),
                         ("cube8.f32", cube8()), ("depth16.f32", depth16()),
                         ("ramp16.f32", ramp16()), ("gather8.f32", gather8()),
                         ("array16.f32", array16()), ("tex3d8.f32", tex3d8()),
                         ("fmt_r16f.f32", fmt_r16f()), ("fmt_rg32f.f32", fmt_rg32f()),
                         ("fmt_srgb.f32", fmt_srgb()), ("checker8.f32", checker8())]:
        write_f32(name, values)
    for name, s in scenes():
        dump(name, s)


if __name__ == "__main__":
    main()
