//! A copy of a function's body under fresh ids, for inlining it elsewhere.

use super::super::func::{Function, Merge};
use super::super::fxhash::FxHashMap;
use super::super::inst::{Id, Inst};

/// A block of a cloned body, not yet in any function.
#[derive(Clone, Debug)]
pub struct ClonedBlock {
    pub label: Id,
    pub insts: Vec<Inst>,
    pub merge: Option<Merge>,
    pub terminator: Inst,
}

/// Copies the body of `src`: every block label and every result gets a fresh id from `fresh`
/// unless `map` already maps it (a parameter mapped to an argument, say), and every id operand
/// is renamed through `map`. `map` holds the renaming afterwards. `None` when `fresh` runs out.
pub fn clone_body(
    src: &Function,
    map: &mut FxHashMap<Id, Id>,
    fresh: &mut dyn FnMut() -> Option<Id>,
) -> Option<Vec<ClonedBlock>> {
    for b in src.blocks() {
        if let std::collections::hash_map::Entry::Vacant(e) = map.entry(b.label) {
            e.insert(fresh()?);
        }
    }
    for i in src.body() {
        if let Some(r) = i.result {
            if let std::collections::hash_map::Entry::Vacant(e) = map.entry(r) {
                e.insert(fresh()?);
            }
        }
    }
    let rename = |id: Id| map.get(&id).copied().unwrap_or(id);
    let copy = |i: &Inst| {
        let mut c = i.clone();
        c.result = c.result.map(rename);
        for a in &mut c.args {
            *a = rename(*a);
        }
        c
    };
    Some(
        src.blocks()
            .iter()
            .enumerate()
            .map(|(b, block)| ClonedBlock {
                label: rename(block.label),
                insts: src.block_insts(b).map(copy).collect(),
                merge: block.merge.clone().map(|mut m| {
                    m.remap(rename);
                    m
                }),
                terminator: copy(src.terminator(b)),
            })
            .collect(),
    )
}
