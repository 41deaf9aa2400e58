//! Control flow: a conditional branch taken one way (selections lose an arm, loops run once
//! or not at all), and blocks merged into their only predecessor.

use spirv::Op;

use super::guards::loops_computing_indices;
use super::Chance;
use crate::ir::Module;

/// Each conditional branch, taken to its true target and to its false one. Under `differs`
/// not those of a loop that leaves an integer behind.
pub(super) fn branches(m: &Module, differs: bool) -> Vec<Chance> {
    let mut out = Vec::new();
    for f in m.functions() {
        let fid = f.id();
        let kept_loops = if differs {
            loops_computing_indices(m, f)
        } else {
            Vec::new()
        };
        for (b, block) in f.blocks().iter().enumerate() {
            if f.terminator(b).op() == Op::BranchConditional
                && !kept_loops.iter().any(|l| l.binary_search(&b).is_ok())
            {
                out.push(Chance::Branch(fid, block.label, true));
                out.push(Chance::Branch(fid, block.label, false));
            }
        }
    }
    out
}

/// Every block joined to its only predecessor at once (the `block-merge` pass).
pub(super) fn merged_blocks() -> Vec<Chance> {
    vec![Chance::MergeBlocks]
}
