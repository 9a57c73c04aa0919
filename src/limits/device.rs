//! The device limits table: one row per size or count a script or API call can ask for,
//! named as Vulkan's `VkPhysicalDeviceLimits` names it where Vulkan has the limit.
//!
//! The rows are written once, in the `limits!` table below, which makes the [`Limit`] enum
//! (one variant per row, with its name, default, origin and meaning) and the [`Limits`]
//! values (an array indexed by the enum). Checking is [`Limits::check`]: the value, what it
//! is, the row's name and its value go into one [`Error::Limit`] message.

use std::fmt;

use crate::{Error, Result};

/// Where a row's default value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// lavapipe's `VkPhysicalDeviceLimits` (or a Vulkan 1.1–1.3 property), as `vulkaninfo`
    /// reports it for llvmpipe (Mesa 22.3, LLVM 15, 256-bit vectors).
    Lavapipe,
    /// quadstep's own bound where Vulkan has no limit (the work or memory a command asks for).
    Quadstep,
}

macro_rules! limits {
    ($($var:ident = $name:literal, $default:expr, $origin:ident, $what:literal;)+) => {
        /// One row of the limits table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Limit {
            $(#[doc = $what] $var,)+
        }

        impl Limit {
            /// Every row, in table order.
            pub const ALL: &'static [Limit] = &[$(Limit::$var),+];

            /// The name (Vulkan's, where Vulkan has the limit).
            pub fn name(self) -> &'static str {
                match self { $(Limit::$var => $name),+ }
            }

            /// The default value.
            pub fn default_value(self) -> u64 {
                match self { $(Limit::$var => $default),+ }
            }

            /// Where the default comes from.
            pub fn origin(self) -> Origin {
                match self { $(Limit::$var => Origin::$origin),+ }
            }

            /// What the row bounds, in a few words.
            pub fn what(self) -> &'static str {
                match self { $(Limit::$var => $what),+ }
            }
        }
    };
}

limits! {
    MaxImageDimension1D = "maxImageDimension1D", 16384, Lavapipe,
        "width of a 1D image";
    MaxImageDimension2D = "maxImageDimension2D", 16384, Lavapipe,
        "width or height of a 2D image";
    MaxImageDimension3D = "maxImageDimension3D", 4096, Lavapipe,
        "width, height or depth of a 3D image";
    MaxImageDimensionCube = "maxImageDimensionCube", 32768, Lavapipe,
        "width or height of a cube image";
    MaxImageArrayLayers = "maxImageArrayLayers", 2048, Lavapipe,
        "layers of an image";
    MaxTexelBufferElements = "maxTexelBufferElements", 134_217_728, Lavapipe,
        "texels of a texel buffer view";
    MaxUniformBufferRange = "maxUniformBufferRange", 65536, Lavapipe,
        "bytes of a uniform buffer binding";
    MaxStorageBufferRange = "maxStorageBufferRange", 134_217_728, Lavapipe,
        "bytes of a storage buffer binding";
    MaxPushConstantsSize = "maxPushConstantsSize", 128, Lavapipe,
        "bytes of push constants";
    MaxBoundDescriptorSets = "maxBoundDescriptorSets", 8, Lavapipe,
        "descriptor sets (set numbers are below it)";
    MaxPerSetDescriptors = "maxPerSetDescriptors", 1024, Lavapipe,
        "descriptors in one binding's array";
    MaxVertexInputAttributes = "maxVertexInputAttributes", 32, Lavapipe,
        "vertex attributes (locations are below it)";
    MaxVertexOutputComponents = "maxVertexOutputComponents", 128, Lavapipe,
        "components a vertex shader writes to locations (4 a location)";
    MaxFragmentInputComponents = "maxFragmentInputComponents", 128, Lavapipe,
        "components a fragment shader reads from locations (4 a location)";
    MaxFragmentOutputAttachments = "maxFragmentOutputAttachments", 8, Lavapipe,
        "colour outputs of a fragment shader (locations are below it)";
    MaxVertexInputBindings = "maxVertexInputBindings", 32, Lavapipe,
        "vertex buffer bindings";
    MaxVertexInputAttributeOffset = "maxVertexInputAttributeOffset", 2047, Lavapipe,
        "byte offset of a vertex attribute";
    MaxVertexInputBindingStride = "maxVertexInputBindingStride", 2048, Lavapipe,
        "byte stride of a vertex buffer binding";
    MaxComputeWorkGroupCountX = "maxComputeWorkGroupCount[0]", 65535, Lavapipe,
        "workgroups of a dispatch along x";
    MaxComputeWorkGroupCountY = "maxComputeWorkGroupCount[1]", 65535, Lavapipe,
        "workgroups of a dispatch along y";
    MaxComputeWorkGroupCountZ = "maxComputeWorkGroupCount[2]", 65535, Lavapipe,
        "workgroups of a dispatch along z";
    MaxComputeWorkGroupInvocations = "maxComputeWorkGroupInvocations", 1024, Lavapipe,
        "invocations of one workgroup";
    MaxComputeWorkGroupSizeX = "maxComputeWorkGroupSize[0]", 1024, Lavapipe,
        "workgroup size along x";
    MaxComputeWorkGroupSizeY = "maxComputeWorkGroupSize[1]", 1024, Lavapipe,
        "workgroup size along y";
    MaxComputeWorkGroupSizeZ = "maxComputeWorkGroupSize[2]", 1024, Lavapipe,
        "workgroup size along z";
    MaxComputeSharedMemorySize = "maxComputeSharedMemorySize", 32768, Lavapipe,
        "bytes of a compute shader's Workgroup variables";
    MaxFramebufferWidth = "maxFramebufferWidth", 16384, Lavapipe,
        "width of a framebuffer";
    MaxFramebufferHeight = "maxFramebufferHeight", 16384, Lavapipe,
        "height of a framebuffer";
    MaxColorAttachments = "maxColorAttachments", 8, Lavapipe,
        "colour attachments (locations are below it)";
    MaxBufferSize = "maxBufferSize", 0xffff_ffff, Lavapipe,
        "bytes of a buffer (Vulkan 1.3)";
    MaxMemoryAllocationSize = "maxMemoryAllocationSize", 0x8000_0000, Lavapipe,
        "bytes of one buffer, image or attachment (Vulkan 1.1)";
    MaxDrawVertices = "maxDrawVertices", 1 << 26, Quadstep,
        "vertex shader invocations of one draw (vertices times instances)";
    MaxDrawGridCells = "maxDrawGridCells", 1 << 22, Quadstep,
        "cells of an Amber DRAW_GRID (columns times rows)";
    MaxFileBytes = "maxFileBytes", 256 << 20, Quadstep,
        "bytes of a file a script reads (the script itself, FILE data, shaders)";
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Limit {
    type Err = Error;
    /// A row by its name (as [`Limit::name`] spells it, any case).
    fn from_str(s: &str) -> Result<Limit> {
        Limit::ALL
            .iter()
            .copied()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                Error::Limit(format!(
                    "no limit named {} (`quadstep limits` lists them)",
                    crate::error::quote(s)
                ))
            })
    }
}

/// The values of every row: lavapipe's by default ([`Limit::default_value`]).
#[derive(Clone, PartialEq, Eq)]
pub struct Limits {
    values: [u64; Limit::ALL.len()],
}

impl Default for Limits {
    fn default() -> Self {
        let mut values = [0; Limit::ALL.len()];
        for (v, l) in values.iter_mut().zip(Limit::ALL) {
            *v = l.default_value();
        }
        Limits { values }
    }
}

impl fmt::Debug for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(Limit::ALL.iter().map(|&l| (l.name(), self.get(l))))
            .finish()
    }
}

impl Limits {
    /// A row's value.
    pub fn get(&self, l: Limit) -> u64 {
        self.values[l as usize]
    }

    /// Set a row's value.
    pub fn set(&mut self, l: Limit, value: u64) -> &mut Self {
        self.values[l as usize] = value;
        self
    }

    /// `NAME=VALUE` (the command line's `--limit`): sets that row.
    pub fn set_from_str(&mut self, s: &str) -> Result<()> {
        let (name, value) = s.split_once('=').ok_or_else(|| {
            Error::Limit(format!(
                "{}: expected NAME=VALUE, e.g. maxFramebufferWidth=4096",
                crate::error::quote(s)
            ))
        })?;
        let l: Limit = name.trim().parse()?;
        let v = value.trim().parse::<u64>().map_err(|_| {
            Error::Limit(format!(
                "{l}: {} is not a whole number",
                crate::error::quote(value)
            ))
        })?;
        self.set(l, v);
        Ok(())
    }

    /// `Ok` when `value` is at most the row's value; otherwise an [`Error::Limit`] saying
    /// what asked (`what`), the value, and the limit.
    pub fn check(&self, l: Limit, value: u64, what: impl fmt::Display) -> Result<()> {
        let max = self.get(l);
        if value <= max {
            Ok(())
        } else {
            Err(Error::Limit(format!(
                "{what}: {value} exceeds the device limit {} = {max} ({})",
                l.name(),
                l.what()
            )))
        }
    }

    /// [`Limits::check`] for a value that must be below the row's value (an index, a
    /// location, a set number).
    pub fn check_index(&self, l: Limit, index: u64, what: impl fmt::Display) -> Result<()> {
        let max = self.get(l);
        if index < max {
            Ok(())
        } else {
            Err(Error::Limit(format!(
                "{what}: {index} is not below the device limit {} = {max} ({})",
                l.name(),
                l.what()
            )))
        }
    }

    /// Check a value per axis (x, y, z) against three rows.
    fn check_axes(&self, rows: [Limit; 3], values: [u32; 3], what: &str) -> Result<()> {
        for ((&v, l), axis) in values.iter().zip(rows).zip(["x", "y", "z"]) {
            self.check(l, v as u64, format_args!("{what} along {axis}"))?;
        }
        Ok(())
    }

    /// Check a dispatch's workgroup counts; `who` starts the message (`RUN p: `, or empty).
    pub fn check_workgroup_counts(&self, groups: [u32; 3], who: &str) -> Result<()> {
        let rows = [
            Limit::MaxComputeWorkGroupCountX,
            Limit::MaxComputeWorkGroupCountY,
            Limit::MaxComputeWorkGroupCountZ,
        ];
        self.check_axes(rows, groups, &format!("{who}workgroup count"))
    }

    /// Check a dispatch's workgroup counts and a compute shader's workgroup size.
    pub fn check_dispatch(&self, groups: [u32; 3], size: [u32; 3]) -> Result<()> {
        self.check_workgroup_counts(groups, "")?;
        let rows = [
            Limit::MaxComputeWorkGroupSizeX,
            Limit::MaxComputeWorkGroupSizeY,
            Limit::MaxComputeWorkGroupSizeZ,
        ];
        self.check_axes(rows, size, "workgroup size")?;
        let invocations = size.iter().map(|&s| s as u64).product::<u64>();
        self.check(
            Limit::MaxComputeWorkGroupInvocations,
            invocations,
            format_args!("workgroup size {}x{}x{}", size[0], size[1], size[2]),
        )
    }

    /// Check a framebuffer's size and its colour attachment count.
    pub fn check_framebuffer(&self, width: u32, height: u32, colors: usize) -> Result<()> {
        self.check(
            Limit::MaxFramebufferWidth,
            width as u64,
            "framebuffer width",
        )?;
        self.check(
            Limit::MaxFramebufferHeight,
            height as u64,
            "framebuffer height",
        )?;
        self.check(
            Limit::MaxColorAttachments,
            colors as u64,
            "colour attachments",
        )
    }

    /// The bytes of a file a script or a caller names, if it is at most `maxFileBytes`
    /// long ([`Error::Io`] naming the path when it cannot be read, [`Error::Limit`] when it
    /// is longer).
    pub fn read_file(&self, path: &std::path::Path) -> Result<Vec<u8>> {
        use std::io::Read;
        let io = |e: std::io::Error| Error::Io(format!("{}: {e}", path.display()));
        let max = self.get(Limit::MaxFileBytes);
        let file = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
        self.check(
            Limit::MaxFileBytes,
            bytes.len() as u64,
            format_args!("{}: bytes read", path.display()),
        )?;
        Ok(bytes)
    }

    /// The table as text: name, value, origin, meaning; one row a line.
    pub fn table(&self) -> String {
        let w = Limit::ALL.iter().map(|l| l.name().len()).max().unwrap_or(0);
        let mut s = String::new();
        for &l in Limit::ALL {
            let origin = match l.origin() {
                Origin::Lavapipe => "lavapipe",
                Origin::Quadstep => "quadstep",
            };
            let v = self.get(l);
            let mark = if v == l.default_value() { ' ' } else { '*' };
            s += &format!(
                "{:w$}  {:>11}{mark} {origin:8}  {}\n",
                l.name(),
                v,
                l.what()
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        for (i, a) in Limit::ALL.iter().enumerate() {
            assert_eq!(*a as usize, i, "ALL is in declaration order");
            assert_eq!(a.name().parse::<Limit>().unwrap(), *a);
            for b in &Limit::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
    }

    #[test]
    fn check_names_the_value_and_the_limit() {
        let l = Limits::default();
        assert!(l.check(Limit::MaxFramebufferWidth, 16384, "w").is_ok());
        let e = l
            .check(
                Limit::MaxFramebufferWidth,
                4_000_000_000,
                "framebuffer width",
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "limit: framebuffer width: 4000000000 exceeds the device limit \
             maxFramebufferWidth = 16384 (width of a framebuffer)"
        );
        assert!(l.check_index(Limit::MaxColorAttachments, 7, "loc").is_ok());
        assert!(l.check_index(Limit::MaxColorAttachments, 8, "loc").is_err());
    }

    #[test]
    fn set_from_str_takes_name_equals_value() {
        let mut l = Limits::default();
        l.set_from_str("maxframebufferwidth=64").unwrap();
        assert_eq!(l.get(Limit::MaxFramebufferWidth), 64);
        assert!(l.set_from_str("maxFramebufferWidth").is_err());
        assert!(l.set_from_str("noSuchLimit=3").is_err());
        assert!(l.set_from_str("maxFramebufferWidth=-1").is_err());
        assert!(l.table().contains("maxFramebufferWidth"));
    }
}
