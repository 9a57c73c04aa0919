# Sourced by the paired scripts: `bench_bin NAME` prints the absolute path of the criterion
# bench binary `NAME` as cargo reports it (the newest `target/release/deps/NAME-*` file can be
# a test binary of the same name, e.g. tests/sampling_scenes.rs).
bench_bin() {
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    (cd "$root" && cargo bench --bench "$1" --no-run 2>&1) |
        sed -n "s|.*Executable .*(\(.*\))$|$root/\1|p"
}
