//! Naive f64 reference sampler (tests only).
