//! The memory budget: bytes a run holds for buffers, images, attachments and a draw's
//! geometry, counted before they are allocated.
//!
//! A [`MemoryBudget`] is a shared counter with a ceiling. [`MemoryBudget::charge`] adds bytes
//! (or fails with [`Error::Memory`] naming what asked, its size, what is held and the
//! ceiling) and returns a [`Charge`] that gives them back when dropped, so whatever owns the
//! allocation owns its charge and the count follows lifetimes without bookkeeping at every
//! free. Large allocations then go through [`try_zeroed`], which uses `try_reserve_exact`: an
//! allocation the operating system refuses is an error too, never an abort.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::{Error, Result};

struct Counter {
    limit: u64,
    used: AtomicU64,
    peak: AtomicU64,
}

/// A ceiling on the bytes a run holds at once, shared by everything the run allocates.
/// Cloning shares the counter.
#[derive(Clone)]
pub struct MemoryBudget(Arc<Counter>);

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit())
            .field("used", &self.used())
            .finish()
    }
}

impl Default for MemoryBudget {
    /// Half of the memory this process may have ([`memory_available`]).
    fn default() -> Self {
        MemoryBudget::new(memory_available() / 2)
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        MemoryBudget(Arc::new(Counter {
            limit,
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
        }))
    }

    /// The ceiling in bytes.
    pub fn limit(&self) -> u64 {
        self.0.limit
    }

    /// Bytes charged now.
    pub fn used(&self) -> u64 {
        self.0.used.load(Ordering::Relaxed)
    }

    /// The most bytes charged at once so far.
    pub fn peak(&self) -> u64 {
        self.0.peak.load(Ordering::Relaxed)
    }

    /// Count `bytes` against the budget for as long as the returned [`Charge`] lives, or
    /// fail with [`Error::Memory`] (`what` names the allocation) if that would pass the
    /// ceiling.
    pub fn charge(&self, bytes: u64, what: impl fmt::Display) -> Result<Charge> {
        let c = &self.0;
        let mut used = c.used.load(Ordering::Relaxed);
        loop {
            let want = used.checked_add(bytes).filter(|&w| w <= c.limit);
            let Some(want) = want else {
                return Err(Error::Memory(format!(
                    "{what}: {} more would pass the memory budget of {} ({} held)",
                    show_bytes(bytes),
                    show_bytes(c.limit),
                    show_bytes(used)
                )));
            };
            match c
                .used
                .compare_exchange_weak(used, want, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    c.peak.fetch_max(want, Ordering::Relaxed);
                    return Ok(Charge {
                        budget: self.clone(),
                        bytes,
                    });
                }
                Err(now) => used = now,
            }
        }
    }

    /// A charge of `bytes` and a zero-filled vector of `len` elements of `T` (`bytes` is
    /// normally `len * size_of::<T>()`).
    pub fn zeroed<T: Clone + Default>(
        &self,
        len: usize,
        what: impl fmt::Display,
    ) -> Result<(Vec<T>, Charge)> {
        let bytes = (len as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let charge = self.charge(bytes, &what)?;
        Ok((try_zeroed(len, what)?, charge))
    }
}

/// Bytes counted against a [`MemoryBudget`]; dropping it gives them back.
#[derive(Debug)]
pub struct Charge {
    budget: MemoryBudget,
    bytes: u64,
}

impl Charge {
    /// The bytes this charge holds.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Change the charge to `bytes` (growing checks the budget; on failure it is unchanged).
    pub fn resize(&mut self, bytes: u64, what: impl fmt::Display) -> Result<()> {
        if bytes > self.bytes {
            let more = self.budget.charge(bytes - self.bytes, what)?;
            self.bytes += more.bytes;
            std::mem::forget(more);
        } else {
            self.budget
                .0
                .used
                .fetch_sub(self.bytes - bytes, Ordering::Relaxed);
            self.bytes = bytes;
        }
        Ok(())
    }

    /// Add another charge of the same budget into this one.
    pub fn absorb(&mut self, other: Charge) {
        debug_assert!(Arc::ptr_eq(&self.budget.0, &other.budget.0));
        self.bytes += other.bytes;
        std::mem::forget(other);
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.0.used.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// A zero-filled vector of `len` elements, or [`Error::Memory`] if the allocator refuses
/// (`try_reserve_exact`: no abort).
pub(crate) fn try_zeroed<T: Clone + Default>(
    len: usize,
    what: impl fmt::Display,
) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::Memory(format!(
            "{what}: the system could not allocate {}",
            show_bytes((len as u64).saturating_mul(std::mem::size_of::<T>() as u64))
        ))
    })?;
    v.resize(len, T::default());
    Ok(v)
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`; 8 GiB where
/// that cannot be read).
pub fn machine_memory() -> u64 {
    const FALLBACK: u64 = 8 << 30;
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        })
        .unwrap_or(FALLBACK)
}

/// The memory this process may have: the machine's ([`machine_memory`]), or less when the
/// process has an address-space limit (`ulimit -v`, the soft limit of `RLIMIT_AS`, read
/// from `/proc/self/limits`).
pub fn memory_available() -> u64 {
    let address_space = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Max address space"))?;
            line.split_whitespace().nth(3)?.parse::<u64>().ok()
        })
        .unwrap_or(u64::MAX);
    machine_memory().min(address_space)
}

/// `1.5 GiB`, `12 KiB`, `300 bytes`: a size for messages.
pub(crate) fn show_bytes(b: u64) -> String {
    const UNITS: [(&str, u32); 3] = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if b >= 1 << shift {
            let v = b as f64 / (1u64 << shift) as f64;
            return if v.fract() == 0.0 {
                format!("{v} {unit}")
            } else {
                format!("{v:.1} {unit}")
            };
        }
    }
    format!("{b} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_add_up_and_are_given_back() {
        let m = MemoryBudget::new(1000);
        let a = m.charge(600, "a").unwrap();
        let e = m.charge(500, "the buffer 'b'").unwrap_err();
        assert!(matches!(e, Error::Memory(_)), "{e}");
        assert!(e.to_string().contains("the buffer 'b'"), "{e}");
        let mut b = m.charge(400, "b").unwrap();
        assert_eq!(m.used(), 1000);
        drop(a);
        assert_eq!(m.used(), 400);
        b.resize(900, "b").unwrap();
        assert!(b.resize(1001, "b").is_err());
        assert_eq!(m.used(), 900);
        b.resize(10, "b").unwrap();
        assert_eq!(m.used(), 10);
        drop(b);
        assert_eq!((m.used(), m.peak()), (0, 1000));
        assert!(m.charge(u64::MAX, "huge").is_err());
    }

    #[test]
    fn try_zeroed_refuses_instead_of_aborting() {
        assert_eq!(try_zeroed::<u32>(3, "x").unwrap(), vec![0; 3]);
        let e = try_zeroed::<u64>(usize::MAX / 4, "a huge buffer").unwrap_err();
        assert!(matches!(e, Error::Memory(_)), "{e}");
    }

    #[test]
    fn the_memory_available_is_some_of_the_machines() {
        let m = memory_available();
        assert!(m > 0 && m <= machine_memory());
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(show_bytes(300), "300 bytes");
        assert_eq!(show_bytes(2048), "2 KiB");
        assert_eq!(show_bytes(1536 << 20), "1.5 GiB");
        assert_eq!(show_bytes(1024000000000), "953.7 GiB");
    }
}
