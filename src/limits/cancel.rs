//! Cancellation and progress of a run: a token the caller holds and the workers poll.
//!
//! A [`Cancel`] is a shared flag. The interpreter reads it between compute workgroups and
//! every few tens of thousands of instructions inside a batch; the rasterizer between
//! vertex batches, setup chunks and tiles. Reading it is one relaxed atomic load (two for a
//! child token), so polling costs nothing measurable; a stopped run ends with
//! [`Error::Timeout`] or [`Error::Cancelled`] at the next poll. Three things set it:
//! [`Cancel::cancel`] (the caller, e.g. a Ctrl-C handler), a parent token (a child made by
//! [`Cancel::child`] is stopped when its parent is: one process-wide token for Ctrl-C, one
//! child per script), and a time limit ([`Cancel::with_time_limit`]), which a single
//! watchdog thread sets when it passes, so the workers never read the clock.
//!
//! The token also carries the progress of the command running under it (units of work done
//! and in all: workgroups of a dispatch, tiles of a draw), which a front end may show for a
//! long command.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// Why a run was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Its time limit passed.
    TimeLimit,
    /// [`Cancel::cancel`] was called (by a Ctrl-C handler, or the caller).
    Cancelled,
}

struct Shared {
    /// 0 while running, else `StopReason as u8 + 1`.
    state: AtomicU8,
    parent: Option<Cancel>,
    /// The time limit and when it passes, if any.
    deadline: Option<(Duration, Instant)>,
    /// No watchdog watches `deadline` (the thread could not be started): polls read the
    /// clock.
    unwatched: bool,
    progress: Arc<Progress>,
}

/// Units of work done and in all, of the command running under a token.
#[derive(Default)]
struct Progress {
    done: AtomicU64,
    total: AtomicU64,
}

/// A cancellation token (see the module doc). `Cancel::default()` is never stopped and
/// costs nothing to poll; clones share the flag.
#[derive(Clone, Default)]
pub struct Cancel(Option<Arc<Shared>>);

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cancel")
            .field("stopped", &self.reason())
            .finish()
    }
}

impl Cancel {
    /// The token that is never stopped (what `Cancel::default()` gives), usable in a
    /// `static`.
    pub const fn never() -> Cancel {
        Cancel(None)
    }

    /// A token that only [`Cancel::cancel`] stops.
    pub fn new() -> Cancel {
        Cancel::make(None, None, false)
    }

    /// A token stopped when `self` is, or by its own [`Cancel::cancel`], with progress of
    /// its own.
    pub fn child(&self) -> Cancel {
        Cancel::make(Some(self.clone()), None, false)
    }

    /// A child of `self` that also stops `limit` after now. It shares `self`'s progress, so
    /// the holder of `self` sees the progress of what runs under the time limit.
    pub fn with_time_limit(&self, limit: Duration) -> Cancel {
        let deadline = Instant::now().checked_add(limit).map(|at| (limit, at));
        let watched = deadline.is_some() && watchdog::running();
        let c = Cancel::make(Some(self.clone()), deadline, !watched);
        if let (true, Some(s), Some((_, at))) = (watched, &c.0, deadline) {
            watchdog::watch(at, Arc::downgrade(s));
        }
        c
    }

    fn make(
        parent: Option<Cancel>,
        deadline: Option<(Duration, Instant)>,
        unwatched: bool,
    ) -> Cancel {
        let progress = match (&parent, deadline) {
            (Some(Cancel(Some(p))), Some(_)) => p.progress.clone(),
            _ => Arc::default(),
        };
        Cancel(Some(Arc::new(Shared {
            state: AtomicU8::new(0),
            parent,
            deadline,
            unwatched,
            progress,
        })))
    }

    /// Stop every run polling this token (and its children).
    pub fn cancel(&self) {
        if let Some(s) = &self.0 {
            stop(s, StopReason::Cancelled);
        }
    }

    /// Whether the run should stop: the poll the workers make.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        match &self.0 {
            None => false,
            Some(s) => {
                s.state.load(Ordering::Relaxed) != 0
                    || s.parent.as_ref().is_some_and(Cancel::is_cancelled)
                    || (s.unwatched && s.deadline.is_some_and(|(_, at)| Instant::now() >= at))
            }
        }
    }

    /// Why the run was stopped (its own reason first, then its parent's); `None` while it
    /// runs.
    pub fn reason(&self) -> Option<StopReason> {
        let s = self.0.as_deref()?;
        match s.state.load(Ordering::Relaxed) {
            0 if s.unwatched && s.deadline.is_some_and(|(_, at)| Instant::now() >= at) => {
                Some(StopReason::TimeLimit)
            }
            0 => s.parent.as_ref().and_then(Cancel::reason),
            1 => Some(StopReason::TimeLimit),
            _ => Some(StopReason::Cancelled),
        }
    }

    /// `Ok` while running; the error saying why once stopped ([`Error::Timeout`] with the
    /// limit, or [`Error::Cancelled`]).
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(self.error())
        } else {
            Ok(())
        }
    }

    #[cold]
    fn error(&self) -> Error {
        match self.reason() {
            Some(StopReason::TimeLimit) => Error::Timeout(match self.time_limit() {
                Some(d) => format!("the time limit of {} passed", show_duration(d)),
                None => "the time limit passed".into(),
            }),
            _ => Error::Cancelled("the run was cancelled (interrupted)".into()),
        }
    }

    /// The time limit of this token or the nearest ancestor that has one.
    pub fn time_limit(&self) -> Option<Duration> {
        let s = self.0.as_deref()?;
        s.deadline
            .map(|(d, _)| d)
            .or_else(|| s.parent.as_ref().and_then(Cancel::time_limit))
    }

    /// Start a command of `total` units of work (progress 0 of `total`).
    pub fn begin_work(&self, total: u64) {
        if let Some(s) = &self.0 {
            s.progress.done.store(0, Ordering::Relaxed);
            s.progress.total.store(total, Ordering::Relaxed);
        }
    }

    /// `units` more units of the current command are done.
    #[inline]
    pub fn advance(&self, units: u64) {
        if let Some(s) = &self.0 {
            s.progress.done.fetch_add(units, Ordering::Relaxed);
        }
    }

    /// The current command's progress: (units done, units in all).
    pub fn progress(&self) -> (u64, u64) {
        match &self.0 {
            None => (0, 0),
            Some(s) => {
                let p = &s.progress;
                (
                    p.done.load(Ordering::Relaxed),
                    p.total.load(Ordering::Relaxed),
                )
            }
        }
    }
}

fn stop(s: &Shared, why: StopReason) {
    let _ = s
        .state
        .compare_exchange(0, why as u8 + 1, Ordering::Relaxed, Ordering::Relaxed);
}

/// `2 s`, `1.5 s`, `250 ms`.
fn show_duration(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.3} s", d.as_secs_f64())
    }
}

/// The thread that stops tokens when their time limits pass: one per process, started on
/// the first time limit, sleeping until the nearest deadline.
mod watchdog {
    use super::*;

    struct Watch {
        queue: Mutex<Vec<(Instant, Weak<Shared>)>>,
        wake: Condvar,
    }

    static WATCH: OnceLock<Option<&'static Watch>> = OnceLock::new();

    /// Whether the watchdog thread runs (started here the first time).
    pub(super) fn running() -> bool {
        WATCH.get_or_init(start).is_some()
    }

    /// Stop `token` at `at` (once [`running`] said yes).
    pub(super) fn watch(at: Instant, token: Weak<Shared>) {
        if let Some(w) = *WATCH.get_or_init(start) {
            w.queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((at, token));
            w.wake.notify_one();
        }
    }

    fn start() -> Option<&'static Watch> {
        let w: &'static Watch = Box::leak(Box::new(Watch {
            queue: Mutex::new(Vec::new()),
            wake: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("quadstep-watchdog".into())
            .spawn(move || run(w))
            .ok()
            .map(|_| w)
    }

    fn run(w: &Watch) {
        let mut q = w.queue.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let now = Instant::now();
            // fire what is due, forget tokens nobody holds any more
            q.retain(|(at, t)| match t.upgrade() {
                Some(s) if *at <= now => {
                    stop(&s, StopReason::TimeLimit);
                    false
                }
                Some(_) => true,
                None => false,
            });
            q = match q.iter().map(|(at, _)| *at).min() {
                None => w.wake.wait(q).unwrap_or_else(PoisonError::into_inner),
                Some(at) => {
                    let r = w.wake.wait_timeout(q, at - now);
                    r.unwrap_or_else(PoisonError::into_inner).0
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_token_never_stops() {
        let c = Cancel::default();
        c.cancel();
        assert!(!c.is_cancelled());
        assert!(c.check().is_ok());
    }

    #[test]
    fn children_stop_with_their_parent_and_not_the_other_way() {
        let root = Cancel::new();
        let a = root.child();
        let b = root.child();
        a.cancel();
        assert!(a.is_cancelled() && !b.is_cancelled() && !root.is_cancelled());
        root.cancel();
        assert!(b.is_cancelled());
        assert!(matches!(b.check(), Err(Error::Cancelled(_))));
    }

    #[test]
    fn a_time_limit_stops_the_token_soon_after_it_passes() {
        let root = Cancel::new();
        let start = Instant::now();
        let t = root.with_time_limit(Duration::from_millis(50));
        let long = root.with_time_limit(Duration::from_secs(3600));
        while !t.is_cancelled() {
            assert!(start.elapsed() < Duration::from_secs(5), "never stopped");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(start.elapsed() >= Duration::from_millis(50));
        assert_eq!(t.reason(), Some(StopReason::TimeLimit));
        match t.check() {
            Err(Error::Timeout(m)) => assert!(m.contains("50 ms"), "{m}"),
            r => panic!("{r:?}"),
        }
        assert!(!long.is_cancelled());
    }

    #[test]
    fn progress_counts_units_and_is_seen_through_a_time_limit() {
        let script = Cancel::new().child();
        let run = script.with_time_limit(Duration::from_secs(60));
        run.begin_work(10);
        run.advance(3);
        run.advance(4);
        assert_eq!(run.progress(), (7, 10));
        assert_eq!(script.progress(), (7, 10));
        assert_eq!(script.child().progress(), (0, 0));
    }
}
