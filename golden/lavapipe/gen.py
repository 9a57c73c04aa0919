#!/usr/bin/env python3
"""Write the lavapipe twins of the golden scenes (shaders/golden/*.amber).

For each scene this writes golden/lavapipe/<scene>/: the GLSL taken verbatim from the Amber
script's `SHADER ... GLSL` blocks (`<shader>.vert` / `<shader>.frag`), an lvp scene file
`scene.json` (same geometry, clear colour, framebuffer size and sampler state as the script),
and the texture data the script builds at run time, written out in lvp's raw f32 layout
(per level, per layer/face, texels x-fastest, 4 little-endian f32 RGBA each). Compiling the
shaders and rendering is regen.sh's job. Standard library only, deterministic.

Where the script computes texture contents (mip levels drawn / cleared through BASE_MIP_LEVEL,
a depth map's generated mip chain), this file computes the same texels by hand: every value
is chosen exact in the texture's format (k/255 for unorm8, multiples of 1/64 for the depth
map), so the box filter of the runner's mip generation is exact and reproduced bit for bit.
"""
import json
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCENES = os.path.join(ROOT, "shaders", "golden")

FULLSCREEN = [
    [-1, -1, 0, 1], [1, -1, 0, 1], [-1, 1, 0, 1],
    [1, -1, 0, 1], [1, 1, 0, 1], [-1, 1, 0, 1],
]


def shaders_of(script):
    """{name: (stage, target_env or None, glsl text)} of the GLSL shader blocks."""
    out = {}
    lines = open(os.path.join(SCENES, script + ".amber")).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"SHADER (\w+) (\w+) GLSL(?: TARGET_ENV (\S+))?\s*$", lines[i])
        if m:
            j = lines.index("END", i + 1)
            out[m.group(2)] = (m.group(1), m.group(3), "\n".join(lines[i + 1:j]) + "\n")
            i = j
        i += 1
    return out


def write_f32(path, values):
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % len(values), *values))


# ----------------------------------------------------------------------------------------------
# textures

def mip_texture():
    """trilinear_mips / discard_helpers: 64x64, 7 levels. Level 0 is the `checker` shader's
    output (8x8-texel checker, white and 64/255), levels 1..6 the CLEAR colours."""
    out = []
    grey = 64.0 / 255.0
    for y in range(64):
        for x in range(64):
            v = 1.0 if ((x >> 3) + (y >> 3)) % 2 == 0 else grey
            out += [v, v, v, 1.0]
    colours = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1)]
    for level, c in enumerate(colours, start=1):
        n = 64 >> level
        out += [float(c[0]), float(c[1]), float(c[2]), 1.0] * (n * n)
    return out


def box_down(texels, w, h):
    """The runner's mip generation (2x2 box, exact for the values used here)."""
    out = []
    for y in range(h // 2):
        for x in range(w // 2):
            s = (texels[(2 * y) * w + 2 * x] + texels[(2 * y) * w + 2 * x + 1]
                 + texels[(2 * y + 1) * w + 2 * x] + texels[(2 * y + 1) * w + 2 * x + 1])
            out.append(s / 4.0)
    return out


def shadow_levels():
    """shadow_cmp's depth map (level 0 from the script's DATA) and its box-filtered chain."""
    text = open(os.path.join(SCENES, "shadow_cmp.amber")).read()
    m = re.search(r"IMAGE shadow_map [^\n]*DATA\n(.*?)\nEND", text, re.S)
    level0 = [float(v) for v in m.group(1).split()]
    assert len(level0) == 32 * 32
    levels = [level0]
    n = 32
    while len(levels) < 4:
        levels.append(box_down(levels[-1], n, n))
        n //= 2
    return levels


def shadow_texture():
    out = []
    for level in shadow_levels():
        for v in level:
            out += [v, 0.0, 0.0, 1.0]
    return out


def cube_texture():
    """cube_map's faces, from the script's DATA (6 faces x 8x8 RGBA8 as 0..255 integers)."""
    text = open(os.path.join(SCENES, "cube_map.amber")).read()
    m = re.search(r"IMAGE cube [^\n]*DATA\n(.*?)\nEND", text, re.S)
    body = "\n".join(line.split("#")[0] for line in m.group(1).split("\n"))
    vals = [int(v) for v in body.split()]
    assert len(vals) == 6 * 8 * 8 * 4
    return [v / 255.0 for v in vals]


def fwidth_vertices():
    text = open(os.path.join(SCENES, "fwidth_edges.amber")).read()
    pos = re.search(r"BUFFER position [^\n]*DATA\n(.*?)\nEND", text, re.S).group(1).split()
    attr = re.search(r"BUFFER attr [^\n]*DATA\n(.*?)\nEND", text, re.S).group(1).split()
    pos = [float(v) for v in pos]
    attr = [float(v) for v in attr]
    return [pos[4 * i:4 * i + 4] + attr[4 * i:4 * i + 4] for i in range(len(pos) // 4)]


# ----------------------------------------------------------------------------------------------
# scenes: (script, vertex shader, fragment shader, lvp fields, textures {file: values})

def sprite_points():
    """geometry_sprites' POINT_LIST: the cell centres of a 4x4 grid, red and green by column
    and row (the script's `position` buffer)."""
    level = [60 / 255, 125 / 255, 190 / 255, 1.0]
    return [[-0.75 + 0.5 * c, -0.75 + 0.5 * r, level[c], level[r]]
            for r in range(4) for c in range(4)]


def rgb255(r, g, b, a=255):
    return [r / 255.0, g / 255.0, b / 255.0, a / 255.0]


MIP_SAMPLER = {
    "set": 0, "binding": 0, "format": "R8G8B8A8_UNORM", "width": 64, "height": 64,
    "mip_levels": 7, "data": "mip_texture.f32", "mag_filter": "LINEAR",
    "min_filter": "LINEAR", "mipmap_mode": "LINEAR", "address_u": "REPEAT",
    "address_v": "REPEAT", "min_lod": 0.0, "max_lod": 7.0,
}

SCENE_SPECS = {
    "quad_read_across": dict(
        vert="vert", frag="frag", size=128, vertices=FULLSCREEN, attributes=[4],
        clear=rgb255(0, 0, 0), textures=[], data={}),
    "fwidth_edges": dict(
        vert="vert", frag="frag", size=128, vertices=None, attributes=[4, 4],
        clear=rgb255(20, 20, 40), textures=[], data={}),
    "trilinear_mips": dict(
        vert="vert", frag="plane", size=128, vertices=FULLSCREEN, attributes=[4],
        clear=rgb255(0, 0, 0), textures=[MIP_SAMPLER], data={"mip_texture.f32": mip_texture}),
    "discard_helpers": dict(
        vert="vert", frag="frag", size=128, vertices=FULLSCREEN, attributes=[4],
        clear=rgb255(30, 30, 30), textures=[MIP_SAMPLER],
        data={"mip_texture.f32": mip_texture}),
    "shadow_cmp": dict(
        vert="vert", frag="frag", size=128, vertices=FULLSCREEN, attributes=[4],
        clear=rgb255(0, 0, 0),
        textures=[{
            "set": 0, "binding": 0, "format": "D32_SFLOAT", "width": 32, "height": 32,
            "mip_levels": 4, "data": "shadow_map.f32", "mag_filter": "LINEAR",
            "min_filter": "LINEAR", "mipmap_mode": "NEAREST", "address_u": "CLAMP_TO_EDGE",
            "address_v": "CLAMP_TO_EDGE", "min_lod": 0.0, "max_lod": 4.0,
            "compare_op": "LESS_OR_EQUAL"}],
        data={"shadow_map.f32": shadow_texture},
        # lavapipe has no shaderResourceMinLod: the twin replaces the MinLod panels by the
        # explicit-LOD sample the clamp must produce (see the script's LAVAPIPE_TWIN define).
        defines=["LAVAPIPE_TWIN"]),
    "geometry_sprites": dict(
        vert="vert", geom="geom", frag="frag", size=128, vertices=sprite_points(),
        attributes=[4], topology="POINT_LIST", clear=rgb255(0, 0, 0), textures=[], data={}),
    "tess_patch": dict(
        vert="vert", tesc="tesc", tese="tese", frag="frag", size=128, attributes=[4],
        vertices=[[-0.875, -0.5, 0, 1], [-0.125, -0.5, 0, 1], [-0.875, 0.5, 0, 1],
                  [-0.125, 0.5, 0, 1], [0.125, -0.5, 0, 1], [0.875, -0.5, 0, 1],
                  [0.125, 0.5, 0, 1], [0.875, 0.5, 0, 1]],
        patch_size=4, clear=rgb255(0, 0, 0), textures=[], data={}),
    "msaa_edges": dict(
        vert="vert", frag="frag", size=128, attributes=[4], samples=4,
        vertices=[[0, -0.875, 0, 1], [0.875, 0, 0, 1], [-0.875, 0, 0, 1],
                  [-0.875, 0, 0, 1], [0.875, 0, 0, 1], [0, 0.875, 0, 1]],
        clear=rgb255(0, 0, 0), textures=[], data={}),
    "cube_map": dict(
        vert="vert", frag="frag", size=128, vertices=FULLSCREEN, attributes=[4],
        clear=rgb255(0, 0, 0),
        textures=[{
            "set": 0, "binding": 0, "format": "R8G8B8A8_UNORM", "view_type": "CUBE",
            "width": 8, "height": 8, "mip_levels": 1, "data": "cube.f32",
            "mag_filter": "LINEAR", "min_filter": "LINEAR", "mipmap_mode": "NEAREST",
            "address_u": "CLAMP_TO_EDGE", "address_v": "CLAMP_TO_EDGE",
            "address_w": "CLAMP_TO_EDGE", "max_lod": 0.0}],
        data={"cube.f32": cube_texture}),
}


def main(names):
    for name in names or sorted(SCENE_SPECS):
        if not os.path.exists(os.path.join(SCENES, name + ".amber")):
            print("skipping %s: no shaders/golden/%s.amber" % (name, name))
            continue
        spec = SCENE_SPECS[name]
        out = os.path.join(HERE, name)
        os.makedirs(out, exist_ok=True)
        shaders = shaders_of(name)
        envs = {}
        for key, ext in (("vert", "vert"), ("geom", "geom"), ("frag", "frag"),
                         ("tesc", "tesc"), ("tese", "tese")):
            if key not in spec:
                continue
            stage, env, text = shaders[spec[key]]
            defines = "".join("#define %s 1\n" % d for d in spec.get("defines", []))
            if defines:
                # after the #version line
                first, rest = text.split("\n", 1)
                text = first + "\n" + defines + rest
            with open(os.path.join(out, "%s.%s" % (spec[key], ext)), "w") as f:
                f.write(text)
            envs[ext] = env
        with open(os.path.join(out, "target_env"), "w") as f:
            f.write("%s\n%s\n%s\n%s\n%s\n" % (envs["vert"] or "", envs["frag"] or "",
                                                 envs.get("geom") or "", envs.get("tesc") or "",
                                                 envs.get("tese") or ""))
        for fname, fn in spec["data"].items():
            write_f32(os.path.join(out, fname), fn())
        vertices = spec["vertices"] if spec["vertices"] is not None else fwidth_vertices()
        scene = {
            "width": spec["size"], "height": spec["size"],
            "vertex_spv": "%s.vert.spv" % spec["vert"],
            "fragment_spv": "%s.frag.spv" % spec["frag"],
            "vertices": vertices, "attributes": spec["attributes"],
            "color_format": "R8G8B8A8_UNORM", "clear_color": spec["clear"],
            "textures": spec["textures"],
        }
        if "geom" in spec:
            scene["geometry_spv"] = "%s.geom.spv" % spec["geom"]
        if "tesc" in spec:
            scene["tess_control_spv"] = "%s.tesc.spv" % spec["tesc"]
            scene["tess_eval_spv"] = "%s.tese.spv" % spec["tese"]
            scene["patch_size"] = spec["patch_size"]
        if "samples" in spec:
            scene["samples"] = spec["samples"]
        if "topology" in spec:
            scene["topology"] = spec["topology"]
        with open(os.path.join(out, "scene.json"), "w") as f:
            json.dump(scene, f, indent=1)
            f.write("\n")
        print("wrote", os.path.relpath(out, ROOT))


if __name__ == "__main__":
    main(sys.argv[1:])
