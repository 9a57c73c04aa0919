//! Benchmark definitions shared by the criterion benches and `quadstep bench`: the texture
//! unit's cases ([`sampler`]) and the statistics of rounds ([`rounds`]). They live in the
//! library, not in the bench files or the command line, so the two routes measure the same
//! work from one definition and report it by the same rules.

pub mod rounds;
pub mod sampler;
