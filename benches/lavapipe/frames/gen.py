#!/usr/bin/env python3
"""Build the frame benchmarks as lvp scene files in target/bench-frames/, so the same work runs
on lavapipe (lvp) and on quadstep (the `raster_scenes` bench binary reads lvp scene files).

Shaders people write, not the sampler's friendly cases:
  textured      1024², lvp's example: exp2, trilinear texture(), dFdx/dFdy, a Dref textureGrad
  alu           256², lvp's ALU example: a 64-iteration loop of fract/dot/sqrt/sin with a branch
  varying_lod   1024², a receding floor: four trilinear texture() per pixel, LOD varying by quad
  grad          1024², two trilinear textureGrad per pixel with anisotropic, varying gradients
  dref_grad     1024², two Dref textureGrad (2x2 PCF) per pixel, footprint and reference varying
  uniforms      1024², push-constant reads in a 16-step loop (dynamically uniform addresses)
  material      1024², normal-mapped Blinn-Phong with pow and a 3x3 PCF shadow (11 samples)
  msaa4         1024², 4 samples a pixel: a fan of 256 thin triangles (edges everywhere), an
                interpolated colour, resolved at the end of the pass
Textures are generated here (standard library only), every level given explicitly."""
import json, math, os, struct, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../.."))
OUT = os.path.join(ROOT, "target", "bench-frames")
RASTER = os.path.join(ROOT, "benches", "lavapipe", "raster")


def glsl(src, name):
    out = os.path.join(OUT, name + ".spv")
    subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.0", "-o", out, src],
                   check=True, stdout=subprocess.DEVNULL)
    return name + ".spv"


def write_f32(name, values):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(struct.pack("<%df" % len(values), *values))
    return name


def mips(size, texel):
    """Every level of a size² texture, each texel texel(x, y, n) -> 4 floats, level n² texels."""
    data, n = [], size
    while True:
        for y in range(n):
            for x in range(n):
                data += texel(x, y, n)
        if n == 1:
            return data, int(math.log2(size)) + 1
        n //= 2


def albedo(x, y, n):
    # bricks with mortar and a per-brick tint, averaged at coarser levels by construction
    u, v = (x + 0.5) / n * 8, (y + 0.5) / n * 16
    row = int(v)
    u += 0.5 * (row & 1)
    fu, fv = u - math.floor(u), v - math.floor(v)
    mortar = fu < 0.06 or fv < 0.1
    k = ((int(u) * 73 + row * 151) % 97) / 97.0
    if mortar:
        return [0.55, 0.53, 0.5, 1.0]
    return [0.45 + 0.3 * k, 0.2 + 0.1 * k, 0.12, 1.0]


def normal(x, y, n):
    # normals of a height field of bumps, stored as n * 0.5 + 0.5
    u, v = (x + 0.5) / n, (y + 0.5) / n
    dx = 0.6 * math.cos(u * 2 * math.pi * 8) * math.sin(v * 2 * math.pi * 6)
    dy = 0.6 * math.sin(u * 2 * math.pi * 8) * math.cos(v * 2 * math.pi * 6)
    l = math.sqrt(dx * dx + dy * dy + 1)
    return [(-dx / l) * 0.5 + 0.5, (-dy / l) * 0.5 + 0.5, (1 / l) * 0.5 + 0.5, 1.0]


def shadow(x, y, n):
    # depth of a few occluding discs over a receding plane
    u, v = (x + 0.5) / n, (y + 0.5) / n
    d = 0.2 + 0.6 * v
    for cx, cy, r, z in ((0.3, 0.3, 0.12, 0.25), (0.7, 0.4, 0.18, 0.35), (0.45, 0.75, 0.1, 0.15)):
        if (u - cx) ** 2 + (v - cy) ** 2 < r * r:
            d = min(d, z)
    return [d, 0.0, 0.0, 0.0]


def tex(binding, fmt, size, levels, data, **kw):
    t = {"set": 0, "binding": binding, "format": fmt, "width": size, "height": size,
         "mip_levels": levels, "data": data, "mag_filter": "LINEAR", "min_filter": "LINEAR",
         "mipmap_mode": "LINEAR"}
    t.update(kw)
    return t


def fan(n):
    """n triangles around the centre, out past the corners, colours by spoke."""
    v = []
    for i in range(n):
        a0, a1 = 2 * math.pi * i / n, 2 * math.pi * (i + 1) / n
        c = [(i % 4) / 3, (i % 7) / 6, (i % 5) / 4, 1.0]
        for x, y in [(0.0, 0.0), (1.5 * math.cos(a0), 1.5 * math.sin(a0)),
                     (1.5 * math.cos(a1), 1.5 * math.sin(a1))]:
            v.append([float(f"{x:.6g}"), float(f"{y:.6g}"), 0.5, 1.0] + c)
    return v


def main():
    os.makedirs(OUT, exist_ok=True)
    demo = os.path.join(ROOT, "shaders", "demo")
    vert = glsl(os.path.join(demo, "fullscreen.vert"), "fullscreen.vert")
    subprocess.run(["python3", os.path.join(ROOT, "tools", "lvp", "examples",
                                            "make_textures.py"), OUT],
                   check=True, stdout=subprocess.DEVNULL)
    alb, alb_levels = mips(256, albedo)
    nrm, nrm_levels = mips(256, normal)
    shd, shd_levels = mips(512, shadow)
    write_f32("albedo.f32", alb)
    write_f32("normal.f32", nrm)
    write_f32("shadow512.f32", shd)
    write_f32("shadow512_l0.f32", shd[:512 * 512 * 4])
    alb_t = tex(0, "R8G8B8A8_UNORM", 256, alb_levels, "albedo.f32")
    cmp = {"compare_op": "LESS_OR_EQUAL", "address_u": "CLAMP_TO_EDGE",
           "address_v": "CLAMP_TO_EDGE"}
    base = {"width": 1024, "height": 1024, "vertex_spv": vert,
            "color_format": "R8G8B8A8_UNORM", "clear_color": [0.0, 0.0, 0.0, 1.0]}
    frag = lambda name: glsl(os.path.join(HERE if name != "textured" and name != "alu" else demo,
                                          name + ".frag"), name + ".frag")
    checker = tex(0, "R8G8B8A8_UNORM", 64, 7, "checker.f32")
    disc = tex(1, "D32_SFLOAT", 64, 4, "shadow.f32", **cmp)
    palette = [0.3, 0.3, 0.2, 1.0, 0.7, 0.4, 0.25, 0.8, 0.5, 0.8, 0.15, 0.6, 0.2, 0.7, 0.3, 0.9,
               1.0, 0.4, 0.2, 1.0, 0.2, 0.8, 0.4, 1.0, 0.3, 0.4, 1.0, 1.0, 0.9, 0.9, 0.3, 1.0]
    scenes = {
        "textured": dict(base, fragment_spv=frag("textured"), push_constants=[0.3, 8.0],
                         color_format="R32G32B32A32_SFLOAT", textures=[checker, disc]),
        "alu": dict(base, width=256, height=256, fragment_spv=frag("alu"),
                    color_format="R32G32B32A32_SFLOAT"),
        "varying_lod": dict(base, fragment_spv=frag("varying_lod"), textures=[alb_t]),
        "grad": dict(base, fragment_spv=frag("grad"), textures=[alb_t]),
        "dref_grad": dict(base, fragment_spv=frag("dref_grad"),
                          textures=[tex(0, "D32_SFLOAT", 512, shd_levels, "shadow512.f32", **cmp)]),
        "uniforms": dict(base, fragment_spv=frag("uniforms"), push_constants=palette),
        "msaa4": dict(base, samples=4, attributes=[4, 4], vertices=fan(256),
                      vertex_spv=glsl(os.path.join(RASTER, "raster.vert"), "raster.vert"),
                      fragment_spv=glsl(os.path.join(RASTER, "colour.frag"), "colour.frag")),
        "material": dict(base, fragment_spv=frag("material"),
                         push_constants=[0.4, -0.5, 0.8, 0.0, 1.0, 0.95, 0.9, 32.0],
                         textures=[alb_t, tex(1, "R8G8B8A8_UNORM", 256, nrm_levels, "normal.f32"),
                                   tex(2, "D32_SFLOAT", 512, 1, "shadow512_l0.f32", **cmp)]),
    }
    for name, s in scenes.items():
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(s, f, indent=1)
    print(f"built {len(scenes)} scenes in {OUT}")


main()
