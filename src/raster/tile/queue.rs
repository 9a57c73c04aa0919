//! The order in which pool threads take tiles: most expensive first, but never a tile whose
//! left or right neighbour another thread holds, while some other tile is free.
//!
//! An attachment row is cut into 64-pixel segments, one per tile, and the attachments are
//! plain `Vec<u8>`s from the allocator (16 bytes past a 64-byte line in practice), so the
//! cache line at each segment boundary belongs to two horizontally adjacent tiles (with
//! any alignment, for formats whose 64-pixel segment is not a whole number of lines).
//! Two threads shading such neighbours at once pass those lines back and forth on every
//! quad row they write; with tiles of equal cost queued in row order, both threads walk
//! their rows at the same pace and do exactly that, which keeps a 2-thread frame well
//! below the speed-up two independent processes reach on the same host
//! (`benches/lavapipe/raster/ceiling.sh` measures that ceiling).
//!
//! So equal costs are queued column by column (`super::render`; consecutive claims are
//! vertical neighbours, which share no lines while the row pitch is a multiple of 64
//! bytes), and since unequal costs can still put neighbours side by side, a claim skips
//! every tile beside one another thread holds (its current and its prefetched tile) while
//! a tile elsewhere is free. One lock per claim, a few hundred claims per frame (0.02-0.04 ms
//! per thread per frame).
//! The order only moves work between threads: every tile's bytes are its own, so the image
//! is the same whichever thread shades which tile.

/// Tiles by claim priority, with the held ones marked by holder. Guarded by one `Mutex` in
/// `super::render`.
pub(super) struct TileQueue<W> {
    /// The work items in priority order with their tile index; `None` once claimed.
    slots: Vec<Option<(usize, W)>>,
    /// Every slot before `first` is claimed.
    first: usize,
    /// By tile index: the thread holding it (claimed and not yet released).
    holder: Vec<Option<usize>>,
    tiles_x: usize,
}

impl<W> TileQueue<W> {
    /// `work` in priority order, each item with its tile index (`< tiles_x * tiles_y`).
    pub(super) fn new(work: Vec<(usize, W)>, tiles_x: usize, tiles_y: usize) -> Self {
        TileQueue {
            slots: work.into_iter().map(Some).collect(),
            first: 0,
            holder: vec![None; tiles_x * tiles_y],
            tiles_x: tiles_x.max(1),
        }
    }

    /// For thread `who`: release `done` (a tile it has finished) and claim the first free
    /// tile with no left or right neighbour held by another thread, or the first free tile
    /// when every free one has such a neighbour.
    pub(super) fn claim(&mut self, who: usize, done: Option<usize>) -> Option<(usize, W)> {
        if let Some(h) = done.and_then(|t| self.holder.get_mut(t)) {
            *h = None;
        }
        while self.slots.get(self.first).is_some_and(Option::is_none) {
            self.first += 1;
        }
        let (tiles_x, holder) = (self.tiles_x, &self.holder);
        let foreign = |n: usize| holder.get(n).copied().flatten().is_some_and(|h| h != who);
        let quiet = |t: usize| {
            let x = t % tiles_x;
            !(x > 0 && foreign(t - 1) || x + 1 < tiles_x && foreign(t + 1))
        };
        let pick = (self.first..self.slots.len())
            .find(|&i| self.slots[i].as_ref().is_some_and(|(t, _)| quiet(*t)))
            .unwrap_or(self.first);
        let (t, w) = self.slots.get_mut(pick)?.take()?;
        if let Some(h) = self.holder.get_mut(t) {
            *h = Some(who);
        }
        Some((t, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adjacent(a: usize, b: usize, tiles_x: usize) -> bool {
        a / tiles_x == b / tiles_x && a.abs_diff(b) == 1
    }

    /// Threads that each hold a current and a claimed-ahead tile (as `super::render`'s loop
    /// does), finishing tiles in the order `turns` gives; checks every claim against the
    /// rule, computed here from the claim history alone, and returns the claim order.
    fn simulate(tx: usize, ty: usize, order: &[usize], turns: &[usize]) -> Vec<usize> {
        let work: Vec<(usize, ())> = order.iter().map(|&t| (t, ())).collect();
        let threads = turns.iter().max().map_or(1, |m| m + 1);
        let mut q = TileQueue::new(work, tx, ty);
        let mut held: Vec<Vec<usize>> = vec![vec![]; threads];
        let mut claimed = vec![];
        let mut free: Vec<usize> = order.to_vec();
        let mut turn = 0;
        while !free.is_empty() || held.iter().any(|h| !h.is_empty()) {
            let k = turns[turn % turns.len()];
            turn += 1;
            let done = if held[k].len() == 2 || free.is_empty() && !held[k].is_empty() {
                Some(held[k].remove(0))
            } else {
                None
            };
            let others: Vec<usize> = (0..threads)
                .filter(|&o| o != k)
                .flat_map(|o| held[o].clone())
                .collect();
            let near = |u: usize| others.iter().any(|&o| adjacent(o, u, tx));
            let want = free
                .iter()
                .copied()
                .find(|&u| !near(u))
                .or(free.first().copied());
            let got = q.claim(k, done).map(|(t, ())| t);
            assert_eq!(
                got, want,
                "thread {k} holding {:?}, others {others:?}",
                held[k]
            );
            if let Some(t) = got {
                free.retain(|&u| u != t);
                held[k].push(t);
                claimed.push(t);
            }
        }
        claimed
    }

    #[test]
    fn one_thread_takes_the_tiles_in_priority_order() {
        let order = [5, 0, 1, 2, 7, 3, 4, 6];
        assert_eq!(simulate(4, 2, &order, &[0]), order);
    }

    #[test]
    fn two_threads_skip_tiles_beside_the_other_threads_tiles() {
        // 16x16 equal-cost tiles in row order (the fullscreen frame's queue); one thread
        // finishes two tiles for the other's one
        let order: Vec<usize> = (0..256).collect();
        let claimed = simulate(16, 16, &order, &[0, 0, 1]);
        let mut sorted = claimed.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, order, "every tile claimed once");
        assert_ne!(
            claimed, order,
            "the row order was changed to keep threads apart"
        );
    }

    #[test]
    fn four_threads_and_unequal_costs() {
        // a scattered priority order over 8x4 tiles, four threads in a skewed rotation
        let order: Vec<usize> = (0..32).map(|i| (i * 13 + 5) % 32).collect();
        let claimed = simulate(8, 4, &order, &[0, 1, 2, 3, 0, 2, 0]);
        assert_eq!(claimed.len(), 32);
    }

    #[test]
    fn a_lone_free_tile_beside_a_held_one_is_still_claimed() {
        let mut q = TileQueue::new(vec![(0, ()), (1, ())], 2, 1);
        assert_eq!(q.claim(0, None).map(|w| w.0), Some(0));
        // tile 1 is beside thread 0's tile but is the only one left: taken, not starved
        assert_eq!(q.claim(1, None).map(|w| w.0), Some(1));
        assert!(q.claim(1, None).is_none());
    }
}
