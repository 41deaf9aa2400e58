//! Def-use chains of one function: for every id the body uses, the instructions that use it
//! and where, and for every instruction its place in the layout. Definitions need no table:
//! `Function::value` finds a value's instruction in O(1).
//!
//! Uses are id operands (`Inst::args`), so block labels count as used by the branches and phis
//! that name them; result types and merge annotations are not uses here.
//!
//! Debug uses are not uses: the operands of the debug records that describe code without being
//! code (`DebugDeclare`, `DebugValue`, `DebugFunctionDefinition` of a debug set the core
//! understands, see `ext_sets`) are [`DefUse::debug_uses`], and [`DefUse::uses`] and everything
//! built on it see code only — so no analysis or pass keeps or blocks anything for debug info
//! unless it asks. A record the core does not understand (a malformed one, the legacy
//! `DebugInfo` set's) stays opaque: its operands are uses. The chains are built with the
//! module's classification of its sets, so `Function::def_use` takes it.

use super::super::ext_sets::ExtSets;
use super::super::func::{Function, InstId};
use super::super::inst::Id;

/// One use: the instruction and the index of the id among its `args`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub inst: InstId,
    pub arg: u32,
}

#[derive(Debug, Default)]
pub struct DefUse {
    uses: Chains,
    debug_uses: Chains,
    /// The classification of the module's sets the chains were built with.
    sets: ExtSets,
    /// Per instruction: (block, position in the block; the terminator is at `insts.len()`).
    place: Vec<(u32, u32)>,
}

/// Every id's uses in one vector, sorted by id and each id's in layout order, found by a
/// binary search of the ids: three allocations for a function, where a map of vectors took
/// one per id used.
#[derive(Debug, Default)]
struct Chains {
    /// The ids used, ascending.
    ids: Vec<Id>,
    /// Where each id's uses start in `uses` (and, last, where they end).
    starts: Vec<u32>,
    uses: Vec<Use>,
}

impl Chains {
    /// From (id, use) in layout order. Ids within a function are dense enough that a counting
    /// sort by id (stable, so each id's uses stay in layout order) beats a comparison sort;
    /// sparse ones fall back to the stable sort.
    fn new(mut found: Vec<(Id, Use)>) -> Self {
        let (Some(lo), Some(hi)) = (
            found.iter().map(|u| u.0).min(),
            found.iter().map(|u| u.0).max(),
        ) else {
            return Chains::default();
        };
        let span = (hi - lo) as usize + 1;
        // At most one run per use, and per id of the span.
        let runs = span.min(found.len());
        let mut c = Chains {
            ids: Vec::with_capacity(runs),
            starts: Vec::with_capacity(runs + 1),
            uses: Vec::with_capacity(found.len()),
        };
        if span > 4 * found.len() + 64 {
            found.sort_by_key(|&(id, _)| id);
            for (id, u) in found {
                if c.ids.last() != Some(&id) {
                    c.ids.push(id);
                    c.starts.push(c.uses.len() as u32);
                }
                c.uses.push(u);
            }
            c.starts.push(c.uses.len() as u32);
            return c;
        }
        // Where each id's uses start, then filled in order.
        let mut at = vec![0u32; span + 1];
        for &(id, _) in &found {
            at[(id - lo) as usize + 1] += 1;
        }
        for k in 0..span {
            if at[k + 1] > 0 {
                c.ids.push(lo + k as Id);
                c.starts.push(at[k]);
            }
            at[k + 1] += at[k];
        }
        c.starts.push(found.len() as u32);
        c.uses.resize(
            found.len(),
            Use {
                inst: InstId(0),
                arg: 0,
            },
        );
        for (id, u) in found {
            let slot = &mut at[(id - lo) as usize];
            c.uses[*slot as usize] = u;
            *slot += 1;
        }
        c
    }

    fn run(&self, k: usize) -> &[Use] {
        &self.uses[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    fn get(&self, id: Id) -> &[Use] {
        match self.ids.binary_search(&id) {
            Ok(k) => self.run(k),
            Err(_) => &[],
        }
    }

    fn contains(&self, id: Id) -> bool {
        self.ids.binary_search(&id).is_ok()
    }

    fn iter(&self) -> impl Iterator<Item = (Id, &[Use])> + '_ {
        self.ids
            .iter()
            .enumerate()
            .map(|(k, &id)| (id, self.run(k)))
    }
}

const NOWHERE: (u32, u32) = (u32::MAX, u32::MAX);

impl DefUse {
    pub fn new(f: &Function, sets: &ExtSets) -> Self {
        // About two operands an instruction.
        let mut uses = Vec::with_capacity(2 * f.arena_len());
        let mut debug_uses = Vec::new();
        let mut place = vec![NOWHERE; f.arena_len()];
        for (b, block) in f.blocks().iter().enumerate() {
            let all = block.insts.iter().chain(std::iter::once(&block.terminator));
            for (pos, &i) in all.enumerate() {
                place[i.index()] = (b as u32, pos as u32);
                let inst = f.inst(i);
                let to = if sets.is_debug_only(inst) {
                    &mut debug_uses
                } else {
                    &mut uses
                };
                for (k, &a) in inst.args.iter().enumerate() {
                    let u = Use {
                        inst: i,
                        arg: k as u32,
                    };
                    to.push((a, u));
                }
            }
        }
        DefUse {
            uses: Chains::new(uses),
            debug_uses: Chains::new(debug_uses),
            sets: sets.clone(),
            place,
        }
    }

    /// Whether the chains were built with `sets`.
    pub fn built_with(&self, sets: &ExtSets) -> bool {
        self.sets == *sets
    }

    /// Every use of `id` by debug records that describe it (see the module doc), in layout
    /// order: the set's import among them, for every record.
    pub fn debug_uses(&self, id: Id) -> &[Use] {
        self.debug_uses.get(id)
    }

    /// Every use of `id` by code in the body, in layout order.
    pub fn uses(&self, id: Id) -> &[Use] {
        self.uses.get(id)
    }

    /// The instructions that use `id` (an instruction using it twice appears twice).
    pub fn users(&self, id: Id) -> impl Iterator<Item = InstId> + '_ {
        self.uses(id).iter().map(|u| u.inst)
    }

    pub fn is_used(&self, id: Id) -> bool {
        self.uses.contains(id)
    }

    /// The block and position of an instruction in the layout (`None` when it is not there).
    pub fn place(&self, i: InstId) -> Option<(usize, usize)> {
        match self.place.get(i.index()) {
            Some(&(b, p)) if (b, p) != NOWHERE => Some((b as usize, p as usize)),
            _ => None,
        }
    }

    pub fn block_of(&self, i: InstId) -> Option<usize> {
        self.place(i).map(|(b, _)| b)
    }

    /// Every id code uses, with its uses, in the order of the ids.
    pub fn iter(&self) -> impl Iterator<Item = (Id, &[Use])> + '_ {
        self.uses.iter()
    }
}
