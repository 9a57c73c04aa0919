//! Buffers and the binding table. A [`Buffer`] is byte-addressed memory backed by
//! `Vec<AtomicU64>`, so one buffer can be shared by workgroups running on several rayon threads
//! and atomics are native. Accesses are little-endian; sub-word stores are compare-exchange
//! read-modify-writes of the containing 64-bit word, so concurrent stores to neighbouring bytes
//! never lose each other. Robustness: an access that does not fit entirely inside the buffer
//! reads 0 and its write is dropped (whole-access granularity).

use super::image::{ImageUnit, NoImages};
use crate::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// A storage / uniform / push-constant buffer.
#[derive(Debug, Default)]
pub struct Buffer {
    words: Vec<AtomicU64>,
    len: usize,
}

impl Clone for Buffer {
    fn clone(&self) -> Self {
        Buffer {
            words: self
                .words
                .iter()
                .map(|w| AtomicU64::new(w.load(Ordering::Relaxed)))
                .collect(),
            len: self.len,
        }
    }
}

#[inline]
fn byte_mask(size: u32) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    }
}

impl Buffer {
    /// A zero-filled buffer of `len` bytes.
    pub fn new(len: usize) -> Self {
        Buffer {
            words: (0..len.div_ceil(8)).map(|_| AtomicU64::new(0)).collect(),
            len,
        }
    }
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let b = Buffer::new(bytes.len());
        b.write_bytes(0, bytes);
        b
    }
    /// [`Buffer::from_bytes`], or [`Error::Memory`] instead of an abort when the system
    /// refuses the allocation.
    pub fn try_from_bytes(bytes: &[u8]) -> Result<Self> {
        let n = bytes.len().div_ceil(8);
        let mut words = Vec::new();
        words
            .try_reserve_exact(n)
            .map_err(|_| Error::Memory(format!("a buffer of {} bytes", bytes.len())))?;
        words.extend((0..n).map(|_| AtomicU64::new(0)));
        let b = Buffer {
            words,
            len: bytes.len(),
        };
        b.write_bytes(0, bytes);
        Ok(b)
    }
    pub fn from_u32s(words: &[u32]) -> Self {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Buffer::from_bytes(&bytes)
    }
    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// A copy of the contents.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self
            .words
            .iter()
            .flat_map(|w| w.load(Ordering::Relaxed).to_le_bytes())
            .collect();
        v.truncate(self.len);
        v
    }
    /// The contents as little-endian u32 words (a trailing partial word is zero-padded).
    pub fn to_u32s(&self) -> Vec<u32> {
        let mut b = self.to_bytes();
        b.resize(self.len.div_ceil(4) * 4, 0);
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
    /// Host-side write (bytes beyond the end are dropped).
    pub fn write_bytes(&self, offset: usize, bytes: &[u8]) {
        for (i, &byte) in bytes.iter().enumerate() {
            self.store(offset as u64 + i as u64, 1, byte as u64);
        }
    }

    fn fits(&self, off: u64, size: u32) -> bool {
        off.checked_add(size as u64)
            .is_some_and(|e| e <= self.len as u64)
    }

    /// Load `size` (1, 2, 4 or 8) bytes at byte offset `off`; 0 when out of bounds.
    #[inline]
    pub fn load(&self, off: u64, size: u32) -> u64 {
        if !self.fits(off, size) {
            return 0;
        }
        let w = (off / 8) as usize;
        let sh = (off % 8) as u32 * 8;
        let lo = self.words[w].load(Ordering::Relaxed) >> sh;
        let v = if sh == 0 || sh + size * 8 <= 64 {
            lo
        } else {
            lo | (self.words[w + 1].load(Ordering::Relaxed) << (64 - sh))
        };
        v & byte_mask(size)
    }

    /// Store the low `size` bytes of `v` at `off`; dropped when out of bounds.
    pub fn store(&self, off: u64, size: u32, v: u64) {
        if !self.fits(off, size) {
            return;
        }
        let w = (off / 8) as usize;
        let sh = (off % 8) as u32 * 8;
        let v = v & byte_mask(size);
        self.store_part(w, v << sh, byte_mask(size) << sh);
        if sh != 0 && sh + size * 8 > 64 {
            self.store_part(w + 1, v >> (64 - sh), byte_mask(size) >> (64 - sh));
        }
    }

    fn store_part(&self, w: usize, v: u64, mask: u64) {
        if mask == u64::MAX {
            self.words[w].store(v, Ordering::Relaxed);
        } else {
            let _ = self.words[w].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                Some((old & !mask) | (v & mask))
            });
        }
    }

    /// Atomic read-modify-write of `size` bytes at `off`: `f(old)` gives the new value or
    /// `None` for no write. Returns the old value (0 when out of bounds, nothing written).
    /// A naturally aligned access is atomic; a misaligned one that straddles two words is
    /// performed as a plain load and store.
    pub fn atomic(&self, off: u64, size: u32, f: impl Fn(u64) -> Option<u64>) -> u64 {
        if !self.fits(off, size) {
            return 0;
        }
        let w = (off / 8) as usize;
        let sh = (off % 8) as u32 * 8;
        let m = byte_mask(size);
        if sh + size * 8 > 64 {
            let old = self.load(off, size);
            if let Some(new) = f(old) {
                self.store(off, size, new);
            }
            return old;
        }
        let r = self.words[w].fetch_update(Ordering::AcqRel, Ordering::Acquire, |word| {
            let old = (word >> sh) & m;
            f(old).map(|new| (word & !(m << sh)) | ((new & m) << sh))
        });
        let word = match r {
            Ok(x) | Err(x) => x,
        };
        (word >> sh) & m
    }
}

/// Resources for a run: buffers per resource slot (index into `Shader::resources`) and array
/// element, and the image unit. Push constants are a buffer slot like any other.
#[derive(Clone)]
pub struct Bindings<'a> {
    buffers: Vec<Vec<Option<&'a Buffer>>>,
    pub images: &'a dyn ImageUnit,
}

static NO_IMAGES: NoImages = NoImages;

impl Default for Bindings<'_> {
    fn default() -> Self {
        Bindings {
            buffers: Vec::new(),
            images: &NO_IMAGES,
        }
    }
}

impl<'a> Bindings<'a> {
    /// No buffers, the given image unit.
    pub fn new(images: &'a dyn ImageUnit) -> Self {
        Bindings {
            buffers: Vec::new(),
            images,
        }
    }
    /// Bind `buffer` to resource `slot`, descriptor array element `index`.
    pub fn bind_buffer(&mut self, slot: u32, index: u32, buffer: &'a Buffer) -> &mut Self {
        let (s, i) = (slot as usize, index as usize);
        if self.buffers.len() <= s {
            self.buffers.resize(s + 1, Vec::new());
        }
        if self.buffers[s].len() <= i {
            self.buffers[s].resize(i + 1, None);
        }
        self.buffers[s][i] = Some(buffer);
        self
    }
    /// The buffer at (slot, index). A slot with nothing bound is an error; an unbound element
    /// of a bound slot (e.g. an out-of-range descriptor index) is `None`: reads 0, writes
    /// dropped.
    pub fn buffer(&self, slot: u32, index: u32) -> Result<Option<&'a Buffer>> {
        match self.buffers.get(slot as usize) {
            Some(v) if !v.is_empty() => Ok(v.get(index as usize).copied().flatten()),
            _ => Err(Error::Exec(format!("no buffer bound at res{slot}"))),
        }
    }
}
