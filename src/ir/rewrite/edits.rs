//! `Edits`: changes to a function's instructions collected while a pass looks, then made in
//! one walk of its blocks — instructions to insert before or after others, to replace, or to
//! remove. Positions shift as instructions go in; anchoring edits to instruction ids instead
//! keeps them right whatever order they were collected in.

use super::super::func::{Function, InstId};
use super::super::fxhash::FxHashMap;
use super::super::inst::Inst;

#[derive(Default)]
pub struct Edits {
    before: FxHashMap<InstId, Vec<Inst>>,
    after: FxHashMap<InstId, Vec<Inst>>,
    /// `None`: remove.
    replace: FxHashMap<InstId, Option<Inst>>,
    /// Inserted at the end of a block's list (before its terminator), by block.
    at_end: FxHashMap<usize, Vec<Inst>>,
}

impl Edits {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.before.is_empty()
            && self.after.is_empty()
            && self.replace.is_empty()
            && self.at_end.is_empty()
    }

    /// Inserts `inst` before `at` (after what was inserted before it already).
    pub fn insert_before(&mut self, at: InstId, inst: Inst) {
        self.before.entry(at).or_default().push(inst);
    }

    /// Inserts `insts` before `at`, in order (what a collecting `Builder` made).
    pub fn insert_all_before(&mut self, at: InstId, insts: Vec<Inst>) {
        self.before.entry(at).or_default().extend(insts);
    }

    /// Inserts `inst` after `at` (after what was inserted after it already).
    pub fn insert_after(&mut self, at: InstId, inst: Inst) {
        self.after.entry(at).or_default().push(inst);
    }

    /// Appends `inst` to block `b`, before its terminator.
    pub fn append(&mut self, b: usize, inst: Inst) {
        self.at_end.entry(b).or_default().push(inst);
    }

    pub fn replace(&mut self, at: InstId, inst: Inst) {
        self.replace.insert(at, Some(inst));
    }

    /// Replaces `at` by a sequence of instructions (none: removes it).
    pub fn replace_with(&mut self, at: InstId, mut insts: Vec<Inst>) {
        match insts.pop() {
            None => self.remove(at),
            Some(last) => {
                for i in insts {
                    self.insert_before(at, i);
                }
                self.replace(at, last);
            }
        }
    }

    /// Inserts `inst` at the top of `f`'s entry block, after its variables.
    pub fn after_variables(&mut self, f: &Function, inst: Inst) {
        let first = f
            .block(0)
            .insts
            .iter()
            .copied()
            .find(|&i| f.inst(i).op != spirv::Op::Variable);
        match first {
            Some(i) => self.insert_before(i, inst),
            None => self.append(0, inst),
        }
    }

    pub fn remove(&mut self, at: InstId) {
        self.replace.insert(at, None);
    }

    pub fn is_removed(&self, at: InstId) -> bool {
        matches!(self.replace.get(&at), Some(None))
    }

    /// Makes the edits. A replaced terminator is replaced; insertions around a terminator go
    /// before it.
    pub fn apply(mut self, f: &mut Function) {
        if self.is_empty() {
            return;
        }
        for b in 0..f.blocks().len() {
            let term = f.block(b).terminator;
            let ids = f.block(b).insts.clone();
            let touched = ids.iter().chain(std::iter::once(&term)).any(|i| {
                self.before.contains_key(i)
                    || self.after.contains_key(i)
                    || self.replace.contains_key(i)
            }) || self.at_end.contains_key(&b);
            if !touched {
                continue;
            }
            let mut list = Vec::with_capacity(ids.len() + 4);
            for i in ids {
                for inst in self.before.remove(&i).unwrap_or_default() {
                    list.push(f.add_inst_like(inst, i));
                }
                match self.replace.remove(&i) {
                    None => list.push(i),
                    Some(Some(inst)) => {
                        f.replace_inst(i, inst);
                        list.push(i);
                    }
                    Some(None) => {
                        f.free_inst(i);
                    }
                }
                for inst in self.after.remove(&i).unwrap_or_default() {
                    list.push(f.add_inst_like(inst, i));
                }
            }
            for inst in self
                .at_end
                .remove(&b)
                .unwrap_or_default()
                .into_iter()
                .chain(self.before.remove(&term).unwrap_or_default())
                .chain(self.after.remove(&term).unwrap_or_default())
            {
                list.push(f.add_inst_like(inst, term));
            }
            if let Some(Some(inst)) = self.replace.remove(&term) {
                f.replace_inst(term, inst);
            }
            *f.block_insts_mut(b) = list;
        }
    }
}
