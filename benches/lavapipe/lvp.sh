# Sourced by the lavapipe scripts: sets LVP to the lvp binary (tools/lvp, built into this
# repository's target/lvp, rebuilt by cargo when its sources change; $LVP names another) and
# points the Vulkan loader at lavapipe only.
_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -z "${LVP:-}" ]; then
    LVP=$_root/target/lvp/release/lvp
    cargo build --release --quiet --manifest-path "$_root/tools/lvp/Cargo.toml" \
        --target-dir "$_root/target/lvp" >&2
fi
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
