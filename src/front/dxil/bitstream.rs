//! LLVM's bitstream container, read as a stream of blocks and records: fixed and VBR fields
//! up to 64 bits, abbreviations (literal, fixed, VBR, array, char6, blob; `Fixed(0)` and
//! `VBR(0)` read as the literal 0, as LLVM does and DXC relies on), BLOCKINFO abbreviations
//! shared by every block of an id, and per-block abbreviation scopes.
//!
//! The reader is a cursor: [`Bitstream::next`] yields the next record, the start of a
//! sub-block (which the caller enters or skips) or the end of the current block, so the
//! decoder above walks the nesting in its own code and nothing is read twice. Every length
//! and count is checked against the bits left before anything is allocated, and nesting is
//! bounded, so a hostile stream ends in an error.

use std::collections::HashMap;
use std::rc::Rc;

use super::error::{DxilError, Result};

/// The deepest block nesting accepted (LLVM modules nest 3 deep).
const MAX_DEPTH: usize = 32;

/// One abbreviation operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AbbrevOp {
    Literal(u64),
    Fixed(u32),
    Vbr(u32),
    Array,
    Char6,
    Blob,
}

type Abbrev = Rc<[AbbrevOp]>;

/// A record: its code and operands (array, char6 and blob payloads expanded into `ops`, one
/// operand per element or byte, as LLVM's `readRecord` gives them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub code: u32,
    pub ops: Vec<u64>,
}

/// What comes next in the current block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Record(Record),
    /// A sub-block with this id starts; call [`Bitstream::enter_block`] or
    /// [`Bitstream::skip_block`] next.
    SubBlock(u32),
    /// The current block ended (the cursor is back in its parent).
    EndBlock,
}

struct Scope {
    block_id: u32,
    abbrev_width: u32,
    abbrevs: Vec<Abbrev>,
    /// End of the block in bits, from its length word.
    end: u64,
}

/// A cursor over a bitstream.
pub struct Bitstream<'a> {
    data: &'a [u8],
    pos: u64,
    /// The outer scope (width 2, no abbreviations) and one scope per open block.
    scopes: Vec<Scope>,
    blockinfo: HashMap<u32, Vec<Abbrev>>,
    /// Set after `SubBlock(id)` until the caller enters or skips it.
    pending_block: Option<u32>,
}

const CHAR6: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

impl<'a> Bitstream<'a> {
    /// A cursor at the start of `data`, which must begin with the bitcode magic `BC C0DE`.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        if data.len() < 4 || &data[..4] != b"BC\xC0\xDE" {
            return Err(DxilError::Bitstream {
                bit: 0,
                msg: "no bitcode magic 'BC' 0xC0DE".into(),
            });
        }
        Ok(Bitstream {
            data,
            pos: 32,
            scopes: vec![Scope {
                block_id: u32::MAX,
                abbrev_width: 2,
                abbrevs: Vec::new(),
                end: data.len() as u64 * 8,
            }],
            blockinfo: HashMap::new(),
            pending_block: None,
        })
    }

    /// The current bit position (for error messages).
    pub fn bit(&self) -> u64 {
        self.pos
    }

    /// The bits left in the current block.
    pub fn bits_left(&self) -> u64 {
        self.scope().end.saturating_sub(self.pos)
    }

    fn scope(&self) -> &Scope {
        self.scopes.last().expect("the outer scope is never popped")
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(DxilError::Bitstream {
            bit: self.pos,
            msg: msg.into(),
        })
    }

    /// Whether the top level has no further block (end of data, or only zero padding).
    pub fn at_end(&self) -> bool {
        if self.scopes.len() > 1 {
            return false;
        }
        let byte = (self.pos.div_ceil(8)) as usize;
        self.pos + 32 > self.scope().end
            || self.data[byte.min(self.data.len())..]
                .iter()
                .all(|&b| b == 0)
    }

    fn read(&mut self, width: u32) -> Result<u64> {
        debug_assert!(width <= 64);
        if width == 0 {
            return Ok(0);
        }
        if self.pos + u64::from(width) > self.scope().end {
            return self.err(format!("{width}-bit field runs past the end of the block"));
        }
        let mut value = 0u64;
        let mut got = 0u32;
        while got < width {
            let byte = self.data[(self.pos / 8) as usize];
            let bit = (self.pos % 8) as u32;
            let take = (8 - bit).min(width - got);
            let bits = (u64::from(byte) >> bit) & ((1u64 << take) - 1);
            value |= bits << got;
            got += take;
            self.pos += u64::from(take);
        }
        Ok(value)
    }

    fn read_vbr(&mut self, width: u32) -> Result<u64> {
        if !(2..=32).contains(&width) {
            return self.err(format!("VBR chunk width {width} (2..=32 allowed)"));
        }
        let payload = width - 1;
        let high = 1u64 << payload;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let chunk = self.read(width)?;
            let bits = chunk & (high - 1);
            if shift >= 64 {
                if bits != 0 || shift > 128 {
                    return self.err("VBR value wider than 64 bits");
                }
            } else {
                if shift > 0 && bits >> (64 - shift) != 0 {
                    return self.err("VBR value wider than 64 bits");
                }
                value |= bits << shift;
            }
            if chunk & high == 0 {
                return Ok(value);
            }
            shift += payload;
        }
    }

    fn align32(&mut self) -> Result<()> {
        let aligned = self.pos.div_ceil(32) * 32;
        if aligned > self.scope().end {
            return self.err("alignment runs past the end of the block");
        }
        self.pos = aligned;
        Ok(())
    }

    /// The next record, sub-block start or block end of the current block; `None` at the end
    /// of the top level. Abbreviation definitions and BLOCKINFO blocks are consumed here.
    pub fn next(&mut self) -> Result<Option<Entry>> {
        if self.pending_block.is_some() {
            return self.err("a sub-block was neither entered nor skipped");
        }
        loop {
            if self.scopes.len() == 1 && self.at_end() {
                return Ok(None);
            }
            let width = self.scope().abbrev_width;
            let id = self.read(width)?;
            match id {
                0 => {
                    if self.scopes.len() == 1 {
                        return self.err("END_BLOCK at the top level");
                    }
                    self.align32()?;
                    let scope = self.scopes.pop().expect("checked above");
                    if self.pos != scope.end {
                        self.pos = scope.end;
                        return self.err("END_BLOCK before the block's declared end");
                    }
                    return Ok(Some(Entry::EndBlock));
                }
                1 => {
                    let block_id = self.read_vbr(8)?;
                    let block_id =
                        u32::try_from(block_id).or_else(|_| self.err("block id too large"))?;
                    if block_id == 0 {
                        self.read_blockinfo()?;
                        continue;
                    }
                    self.pending_block = Some(block_id);
                    return Ok(Some(Entry::SubBlock(block_id)));
                }
                2 => {
                    let abbrev = self.read_abbrev_def()?;
                    if self.scopes.len() == 1 {
                        return self.err("DEFINE_ABBREV at the top level");
                    }
                    self.scopes
                        .last_mut()
                        .expect("checked")
                        .abbrevs
                        .push(abbrev);
                }
                3 => return Ok(Some(Entry::Record(self.read_unabbrev()?))),
                n => {
                    let index = (n - 4) as usize;
                    let scope = self.scope();
                    let inherited = self.blockinfo.get(&scope.block_id).map_or(0, Vec::len);
                    let abbrev = if index < inherited {
                        self.blockinfo[&scope.block_id][index].clone()
                    } else if let Some(a) = scope.abbrevs.get(index - inherited) {
                        a.clone()
                    } else {
                        return self.err(format!("abbreviation id {n} is not defined"));
                    };
                    return Ok(Some(Entry::Record(self.read_abbreviated(&abbrev)?)));
                }
            }
        }
    }

    /// Reads a sub-block header after [`Entry::SubBlock`] and makes it the current block.
    pub fn enter_block(&mut self) -> Result<()> {
        let Some(block_id) = self.pending_block.take() else {
            return self.err("no sub-block to enter");
        };
        if self.scopes.len() > MAX_DEPTH {
            return self.err(format!("blocks nested deeper than {MAX_DEPTH}"));
        }
        let width = self.read_vbr(4)?;
        if !(1..=32).contains(&width) {
            return self.err(format!("abbreviation width {width} (1..=32 allowed)"));
        }
        self.align32()?;
        let words = self.read(32)?;
        let end = self.pos + words * 32;
        if end > self.scope().end {
            return self.err(format!(
                "block {block_id} of {words} words runs past its parent"
            ));
        }
        self.scopes.push(Scope {
            block_id,
            abbrev_width: width as u32,
            abbrevs: Vec::new(),
            end,
        });
        Ok(())
    }

    /// Skips a sub-block after [`Entry::SubBlock`] without reading it.
    pub fn skip_block(&mut self) -> Result<()> {
        if self.pending_block.take().is_none() {
            return self.err("no sub-block to skip");
        }
        self.read_vbr(4)?;
        self.align32()?;
        let words = self.read(32)?;
        let end = self.pos + words * 32;
        if end > self.scope().end {
            return self.err(format!("block of {words} words runs past its parent"));
        }
        self.pos = end;
        Ok(())
    }

    /// Skips the rest of the current block (after it was entered).
    pub fn leave_block(&mut self) -> Result<()> {
        if self.scopes.len() == 1 {
            return self.err("no block to leave");
        }
        self.pending_block = None;
        let scope = self.scopes.pop().expect("checked");
        self.pos = scope.end;
        Ok(())
    }

    fn read_abbrev_def(&mut self) -> Result<Abbrev> {
        let count = self.read_vbr(5)?;
        // Every operand takes at least 4 bits (the literal flag and a chunk or encoding).
        if count == 0 || count > self.bits_left() / 4 {
            return self.err(format!("abbreviation with {count} operands"));
        }
        let mut ops = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let literal = self.read(1)? == 1;
            let op = if literal {
                AbbrevOp::Literal(self.read_vbr(8)?)
            } else {
                match self.read(3)? {
                    e @ (1 | 2) => {
                        let width = self.read_vbr(5)?;
                        match (e, width) {
                            (_, 0) => AbbrevOp::Literal(0),
                            (1, w) if w <= 64 => AbbrevOp::Fixed(w as u32),
                            (2, w) if w <= 32 => AbbrevOp::Vbr(w as u32),
                            (_, w) => return self.err(format!("abbreviation field width {w}")),
                        }
                    }
                    3 => AbbrevOp::Array,
                    4 => AbbrevOp::Char6,
                    5 => AbbrevOp::Blob,
                    e => return self.err(format!("abbreviation encoding {e}")),
                }
            };
            ops.push(op);
        }
        // Arrays must be second to last with a scalar element; blobs last.
        for (k, op) in ops.iter().enumerate() {
            match op {
                AbbrevOp::Array
                    if k + 2 != ops.len()
                        || matches!(ops[k + 1], AbbrevOp::Array | AbbrevOp::Blob) =>
                {
                    return self
                        .err("array abbreviation operand not followed by one element operand");
                }
                AbbrevOp::Blob if k + 1 != ops.len() => {
                    return self.err("blob abbreviation operand not last");
                }
                _ => {}
            }
        }
        Ok(ops.into())
    }

    fn read_blockinfo(&mut self) -> Result<()> {
        self.pending_block = Some(0);
        self.enter_block()?;
        let mut current: Option<u32> = None;
        loop {
            let width = self.scope().abbrev_width;
            match self.read(width)? {
                0 => {
                    self.align32()?;
                    let scope = self.scopes.pop().expect("entered above");
                    if self.pos != scope.end {
                        return self.err("BLOCKINFO ends before its declared end");
                    }
                    return Ok(());
                }
                1 => {
                    self.pending_block = Some(u32::MAX);
                    self.read_vbr(8)?;
                    self.skip_block()?;
                }
                2 => {
                    let abbrev = self.read_abbrev_def()?;
                    let Some(bid) = current else {
                        return self.err("BLOCKINFO abbreviation before SETBID");
                    };
                    self.blockinfo.entry(bid).or_default().push(abbrev);
                }
                3 => {
                    let r = self.read_unabbrev()?;
                    if r.code == 1 {
                        let Some(&bid) = r.ops.first() else {
                            return self.err("SETBID without a block id");
                        };
                        current =
                            Some(u32::try_from(bid).or_else(|_| self.err("SETBID id too large"))?);
                    }
                }
                _ => return self.err("abbreviated record inside BLOCKINFO"),
            }
        }
    }

    fn read_unabbrev(&mut self) -> Result<Record> {
        let code = self.read_vbr(6)?;
        let code = u32::try_from(code).or_else(|_| self.err("record code too large"))?;
        let count = self.read_vbr(6)?;
        if count.saturating_mul(6) > self.bits_left() {
            return self.err(format!(
                "record with {count} operands runs past the end of its block"
            ));
        }
        let mut ops = Vec::with_capacity(count as usize);
        for _ in 0..count {
            ops.push(self.read_vbr(6)?);
        }
        Ok(Record { code, ops })
    }

    fn read_scalar(&mut self, op: AbbrevOp) -> Result<u64> {
        match op {
            AbbrevOp::Literal(v) => Ok(v),
            AbbrevOp::Fixed(w) => self.read(w),
            AbbrevOp::Vbr(w) => self.read_vbr(w),
            AbbrevOp::Char6 => Ok(u64::from(CHAR6[self.read(6)? as usize])),
            AbbrevOp::Array | AbbrevOp::Blob => self.err("array or blob where a scalar belongs"),
        }
    }

    fn read_abbreviated(&mut self, abbrev: &[AbbrevOp]) -> Result<Record> {
        let Some((&first, rest)) = abbrev.split_first() else {
            return self.err("empty abbreviation");
        };
        if matches!(first, AbbrevOp::Array | AbbrevOp::Blob) {
            return self.err("abbreviation starts with an array or blob");
        }
        let code = self.read_scalar(first)?;
        let code = u32::try_from(code).or_else(|_| self.err("record code too large"))?;
        let mut ops = Vec::with_capacity(rest.len());
        let mut i = 0;
        while i < rest.len() {
            match rest[i] {
                AbbrevOp::Array => {
                    let element = rest[i + 1];
                    let len = self.read_vbr(6)?;
                    let min_bits = match element {
                        AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => u64::from(w),
                        AbbrevOp::Char6 => 6,
                        _ => 0,
                    };
                    if min_bits == 0 && len > 0 {
                        return self.err("array of zero-width elements");
                    }
                    if len.saturating_mul(min_bits) > self.bits_left() {
                        return self.err(format!(
                            "array of {len} elements runs past the end of its block"
                        ));
                    }
                    ops.reserve(len as usize);
                    for _ in 0..len {
                        ops.push(self.read_scalar(element)?);
                    }
                    i += 2;
                }
                AbbrevOp::Blob => {
                    let len = self.read_vbr(6)?;
                    self.align32()?;
                    if len.saturating_mul(8) > self.bits_left() {
                        return self.err(format!(
                            "blob of {len} bytes runs past the end of its block"
                        ));
                    }
                    let start = (self.pos / 8) as usize;
                    ops.extend(
                        self.data[start..start + len as usize]
                            .iter()
                            .map(|&b| u64::from(b)),
                    );
                    self.pos += len * 8;
                    self.align32()?;
                    i += 1;
                }
                op => {
                    ops.push(self.read_scalar(op)?);
                    i += 1;
                }
            }
        }
        Ok(Record { code, ops })
    }
}
