//! Figures that hold still on a noisy machine. A run measures in rounds: each round measures
//! every case once, in an order that turns round every other round ([`order`]), so a drift of
//! the host's speed during the run lands on every case alike instead of on the last ones. A
//! case's figure is the median of its per-round figures, reported with their min–max spread
//! ([`Spread`]).
//!
//! Two runs are compared case by case ([`compare`]): the ratio of their medians, and a change
//! is flagged only when the two spreads do not overlap — every round of one run was faster
//! than every round of the other. Within the measured noise (overlapping spreads) a ratio is
//! reported but not flagged. With one round a spread is a single point, so any difference
//! is flagged: use several rounds for comparisons.

/// The order in which round `round` (0-based) visits `n` cases: forward in even rounds,
/// backward in odd ones.
pub fn order(round: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |i| {
        if round.is_multiple_of(2) {
            i
        } else {
            n - 1 - i
        }
    })
}

/// The median of values already sorted ascending (the mean of the middle two for an even
/// count); NaN for none.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The median of a case's per-round figures and their range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// Median of the per-round figures.
    pub median: f64,
    /// Smallest per-round figure.
    pub min: f64,
    /// Largest per-round figure.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (any order); `None` when there are none or one is not finite.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        Some(Spread {
            median: median(&v),
            min: v[0],
            max: v[v.len() - 1],
        })
    }
}

/// How a case's figure (a time: lower is faster) moved against a baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Every round of this run was faster than every round of the baseline.
    Faster,
    /// Every round of this run was slower than every round of the baseline.
    Slower,
    /// The spreads overlap: within the measured noise.
    Within,
}

impl Change {
    /// `faster`, `slower` or `within noise`.
    pub fn word(self) -> &'static str {
        match self {
            Change::Faster => "faster",
            Change::Slower => "slower",
            Change::Within => "within noise",
        }
    }
}

/// `current` against `baseline`: the ratio of the medians (`current / baseline`: above 1 is
/// slower) and whether the spreads are disjoint.
pub fn compare(current: Spread, baseline: Spread) -> (f64, Change) {
    let change = if current.max < baseline.min {
        Change::Faster
    } else if current.min > baseline.max {
        Change::Slower
    } else {
        Change::Within
    };
    (current.median / baseline.median, change)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_alternate_direction() {
        let r: Vec<Vec<usize>> = (0..3).map(|r| order(r, 3).collect()).collect();
        assert_eq!(r, [[0, 1, 2], [2, 1, 0], [0, 1, 2]]);
        assert_eq!(order(1, 0).count(), 0);
    }

    #[test]
    fn spread_is_median_and_range() {
        let s = Spread::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 5.0));
        let s = Spread::of(&[4.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 10.0));
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn only_disjoint_spreads_are_changes() {
        let s = |median, min, max| Spread { median, min, max };
        let base = s(10.0, 9.0, 11.0);
        assert_eq!(compare(s(1.0, 0.9, 1.1), base), (0.1, Change::Faster));
        assert_eq!(compare(s(20.0, 19.0, 22.0), base), (2.0, Change::Slower));
        // touching or overlapping ranges are noise, whatever the ratio of the medians
        assert_eq!(compare(s(12.0, 11.0, 30.0), base).1, Change::Within);
        assert_eq!(compare(s(8.0, 7.0, 9.0), base).1, Change::Within);
        assert_eq!(compare(base, base), (1.0, Change::Within));
    }
}
