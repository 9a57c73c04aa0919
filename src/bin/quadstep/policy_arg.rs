//! `--policy vulkan|d3d`, shared by the subcommands that run or show shaders: which API's
//! sampling rules the texture unit follows where Vulkan and D3D differ. Without it each shader
//! keeps its own (D3D for DXIL, Vulkan for SPIR-V).

use quadstep::texture::Policy;

/// The values of `--policy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    Vulkan,
    D3d,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Vulkan => Policy::Vulkan,
            PolicyArg::D3d => Policy::D3D,
        }
    }
}
