//! Def-use chains of one function: for every id the body uses, the instructions that use it
//! and where, and for every instruction its place in the layout. Definitions need no table:
//! `Function::value` finds a value's instruction in O(1).
//!
//! Uses are id operands (`Inst::args`), so block labels count as used by the branches and phis
//! that name them; result types and merge annotations are not uses here.

use super::super::func::{Function, InstId};
use super::super::fxhash::FxHashMap;
use super::super::inst::Id;

/// One use: the instruction and the index of the id among its `args`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub inst: InstId,
    pub arg: u32,
}

#[derive(Debug, Default)]
pub struct DefUse {
    uses: FxHashMap<Id, Vec<Use>>,
    /// Per instruction: (block, position in the block; the terminator is at `insts.len()`).
    place: Vec<(u32, u32)>,
}

const NOWHERE: (u32, u32) = (u32::MAX, u32::MAX);

impl DefUse {
    pub fn new(f: &Function) -> Self {
        let mut uses: FxHashMap<Id, Vec<Use>> = FxHashMap::default();
        let mut place = vec![NOWHERE; f.arena_len()];
        for (b, block) in f.blocks().iter().enumerate() {
            let all = block.insts.iter().chain(std::iter::once(&block.terminator));
            for (pos, &i) in all.enumerate() {
                place[i.index()] = (b as u32, pos as u32);
                for (k, &a) in f.inst(i).args.iter().enumerate() {
                    uses.entry(a).or_default().push(Use {
                        inst: i,
                        arg: k as u32,
                    });
                }
            }
        }
        DefUse { uses, place }
    }

    /// Every use of `id` in the body, in layout order.
    pub fn uses(&self, id: Id) -> &[Use] {
        self.uses.get(&id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The instructions that use `id` (an instruction using it twice appears twice).
    pub fn users(&self, id: Id) -> impl Iterator<Item = InstId> + '_ {
        self.uses(id).iter().map(|u| u.inst)
    }

    pub fn is_used(&self, id: Id) -> bool {
        self.uses.contains_key(&id)
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

    /// Every used id with its uses.
    pub fn iter(&self) -> impl Iterator<Item = (Id, &[Use])> + '_ {
        self.uses.iter().map(|(id, u)| (*id, u.as_slice()))
    }
}
