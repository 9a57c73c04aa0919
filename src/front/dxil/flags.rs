//! Shader feature flags: the `SFI0` bits a container declares (`ShaderFeatureInfo_*` in
//! DXC's `DxilConstants.h`) and the raw shader-flag bits an entry point's metadata declares
//! (`DxilShaderFlags.h` order), with their names and the raw bit behind each `SFI0` bit.

/// `SFI0` bit names, by bit.
pub const FEATURE_NAMES: [&str; 33] = [
    "Doubles",
    "ComputeShadersPlusRawAndStructuredBuffersViaShader4X",
    "UAVsAtEveryStage",
    "64UAVs",
    "MinimumPrecision",
    "11_1_DoubleExtensions",
    "11_1_ShaderExtensions",
    "LEVEL9ComparisonFiltering",
    "TiledResources",
    "StencilRef",
    "InnerCoverage",
    "TypedUAVLoadAdditionalFormats",
    "ROVs",
    "ViewportAndRTArrayIndexFromAnyShaderFeedingRasterizer",
    "WaveOps",
    "Int64Ops",
    "ViewID",
    "Barycentrics",
    "NativeLowPrecision",
    "ShadingRate",
    "Raytracing_Tier_1_1",
    "SamplerFeedback",
    "AtomicInt64OnTypedResource",
    "AtomicInt64OnGroupShared",
    "DerivativesInMeshAndAmpShaders",
    "ResourceDescriptorHeapIndexing",
    "SamplerDescriptorHeapIndexing",
    "Reserved",
    "AtomicInt64OnHeapResource",
    "AdvancedTextureOps",
    "WriteableMSAATextures",
    "SampleCmpGradientOrBias",
    "ExtendedCommandInfo",
];

/// Raw shader-flag names, by bit.
pub const RAW_NAMES: [&str; 41] = [
    "DisableOptimizations",
    "DisableMathRefactoring",
    "EnableDoublePrecision",
    "ForceEarlyDepthStencil",
    "EnableRawAndStructuredBuffers",
    "LowPrecisionPresent",
    "EnableDoubleExtensions",
    "EnableMSAD",
    "AllResourcesBound",
    "ViewportAndRTArrayIndex",
    "InnerCoverage",
    "StencilRef",
    "TiledResources",
    "UAVLoadAdditionalFormats",
    "Level9ComparisonFiltering",
    "64UAVs",
    "UAVsAtEveryStage",
    "CSRawAndStructuredViaShader4X",
    "ROVs",
    "WaveOps",
    "Int64Ops",
    "ViewID",
    "Barycentrics",
    "UseNativeLowPrecision",
    "ShadingRate",
    "RaytracingTier1_1",
    "SamplerFeedback",
    "AtomicInt64OnTypedResource",
    "AtomicInt64OnGroupShared",
    "DerivativesInMeshAndAmpShaders",
    "ResourceDescriptorHeapIndexing",
    "SamplerDescriptorHeapIndexing",
    "AtomicInt64OnHeapResource",
    "ResMayNotAlias",
    "AdvancedTextureOps",
    "WriteableMSAATextures",
    "Reserved",
    "SampleCmpGradientOrBias",
    "ExtendedCommandInfo",
    "UsesDerivatives",
    "RequiresGroup",
];

/// A flag both layers carry: its `SFI0` bit and its raw bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Flag {
    pub name: &'static str,
    pub feature_bit: u32,
    pub raw_bit: u32,
}

impl Flag {
    pub fn feature_mask(self) -> u64 {
        1 << self.feature_bit
    }

    pub fn raw_mask(self) -> u64 {
        1 << self.raw_bit
    }
}

/// `AdvancedTextureOps` (SM 6.7).
pub const ADVANCED_TEXTURE_OPS: Flag = Flag {
    name: "AdvancedTextureOps",
    feature_bit: 29,
    raw_bit: 34,
};
/// `SampleCmpGradientOrBias` (SM 6.8).
pub const SAMPLE_CMP_GRADIENT_OR_BIAS: Flag = Flag {
    name: "SampleCmpGradientOrBias",
    feature_bit: 31,
    raw_bit: 37,
};
/// `TiledResources` (also set by a sample's LOD clamp).
pub const TILED_RESOURCES: Flag = Flag {
    name: "TiledResources",
    feature_bit: 8,
    raw_bit: 12,
};

/// The names of the set bits of `bits` from `names`.
pub fn names_of(bits: u64, names: &[&'static str]) -> Vec<String> {
    (0..64)
        .filter(|b| bits >> b & 1 != 0)
        .map(|b| {
            names
                .get(b)
                .map_or_else(|| format!("bit{b}"), |n| n.to_string())
        })
        .collect()
}
