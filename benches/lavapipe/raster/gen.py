#!/usr/bin/env python3
"""Build the raster frames as lvp scene files (build/*.json), so the same work runs
on lavapipe (measure.sh) and on quadstep (`cargo bench --bench raster_scenes`).

The geometry is benches/raster.rs's: the same LCG and the same formulas (here in f64, so
vertices can differ from the closure bench's in the last f32 bit; both renderers read these
files, so they draw exactly the same triangles).
  fullscreen_trilinear  one fullscreen quad (two triangles), a trilinear sample per pixel of the
                        64x64 7-level test texture at ~2.8 texels per pixel (lambda ~ 1.5)
  small_triangles       10 000 small triangles (about 15 px across), an interpolated colour
  depth_scene           512 medium triangles at random depths with perspective w, depth test
                        LESS with writes on D32
  blend_scene           512 medium translucent triangles (alpha 0.2-0.8), an interpolated
                        colour alpha-blended over a grey clear ("over": lvp's `"blend": "alpha"`)
All at 1024x1024 into R8G8B8A8_UNORM."""
import json, os, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "build")


class Lcg:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.s >> 40) / float(1 << 24)


def r(x):
    return float(f"{x:.6g}")


def small_triangles(n):
    g, v = Lcg(1), []
    for _ in range(n):
        cx, cy = g.next() * 2 - 1, g.next() * 2 - 1
        c = [g.next(), g.next(), g.next(), 1.0]
        for _ in range(3):
            x = cx + (g.next() - 0.5) * 0.03
            y = cy + (g.next() - 0.5) * 0.03
            v.append([r(x), r(y), 0.5, 1.0] + [r(e) for e in c])
    return v


def depth_scene():
    g, v = Lcg(2), []
    for _ in range(512):
        cx, cy, z = g.next() * 2 - 1, g.next() * 2 - 1, g.next()
        c = [g.next(), g.next(), g.next(), 1.0]
        for _ in range(3):
            w = 1 + g.next()
            x = (cx + (g.next() - 0.5) * 0.5) * w
            y = (cy + (g.next() - 0.5) * 0.5) * w
            v.append([r(x), r(y), r(z * w), r(w)] + [r(e) for e in c])
    return v


def blend_scene():
    g, v = Lcg(3), []
    for _ in range(512):
        cx, cy = g.next() * 2 - 1, g.next() * 2 - 1
        c = [g.next(), g.next(), g.next(), 0.2 + 0.6 * g.next()]
        for _ in range(3):
            x = cx + (g.next() - 0.5) * 0.5
            y = cy + (g.next() - 0.5) * 0.5
            v.append([r(x), r(y), 0.5, 1.0] + [r(e) for e in c])
    return v


def fullscreen_quad(scale):
    p = [(-1, -1, 0, 0), (1, -1, scale, 0), (-1, 1, 0, scale), (1, 1, scale, scale)]
    idx = [0, 1, 2, 2, 1, 3]
    return [[p[i][0], p[i][1], 0.5, 1.0, p[i][2], p[i][3], 0.0, 0.0] for i in idx]


def main():
    os.makedirs(OUT, exist_ok=True)
    for s in ["raster.vert", "colour.frag", "trilinear.frag"]:
        subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.0", "-o",
                        os.path.join(OUT, s + ".spv"), os.path.join(HERE, s)],
                       check=True, stdout=subprocess.DEVNULL)
    base = {"width": 1024, "height": 1024, "vertex_spv": "raster.vert.spv",
            "attributes": [4, 4], "color_format": "R8G8B8A8_UNORM"}
    # 1024 px span 45 repeats of the 64-texel texture: 2.81 texels per pixel, lambda = 1.49
    tex = {"set": 0, "binding": 0, "format": "R8G8B8A8_UNORM", "width": 64, "height": 64,
           "mip_levels": 7, "data": "../../../../tests/lavapipe/data/mipcolor.f32",
           "mag_filter": "LINEAR", "min_filter": "LINEAR", "mipmap_mode": "LINEAR"}
    scenes = {
        "fullscreen_trilinear": dict(base, fragment_spv="trilinear.frag.spv",
                                     vertices=fullscreen_quad(45.0), textures=[tex]),
        "small_triangles": dict(base, fragment_spv="colour.frag.spv",
                                vertices=small_triangles(10000)),
        "depth_scene": dict(base, fragment_spv="colour.frag.spv", vertices=depth_scene(),
                            depth={"format": "D32_SFLOAT", "compare_op": "LESS"}),
        "blend_scene": dict(base, fragment_spv="colour.frag.spv", vertices=blend_scene(),
                            blend="alpha", clear_color=[0.25, 0.25, 0.25, 1.0]),
    }
    for name, s in scenes.items():
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(s, f, separators=(",", ":"))
    print(f"built {len(scenes)} scenes in {OUT}")


main()
