//! Control flow: a conditional branch taken one way (selections lose an arm, loops run once
//! or not at all), a loop whose continue target branches back unconditionally run once, and
//! blocks merged into their only predecessor.

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
            let kept = kept_loops.iter().any(|l| l.binary_search(&b).is_ok());
            if f.terminator(b).op() == Op::BranchConditional && !kept {
                out.push(Chance::Branch(fid, block.label, true));
                out.push(Chance::Branch(fid, block.label, false));
            }
            // A loop whose back edge is its continue target's plain branch, and whose merge
            // block takes no values from its predecessors (a new one would need them).
            let loop_of = block
                .merge
                .as_ref()
                .filter(|_| !kept)
                .and_then(|m| m.continue_target().map(|cont| (m.merge_block(), cont)));
            if let Some((merge, cont)) = loop_of {
                let back = f.block_index(cont).is_some_and(|c| {
                    let term = f.terminator(c);
                    term.op() == Op::Branch && term.args() == [block.label]
                });
                let phis = f
                    .block_index(merge)
                    .is_some_and(|mb| f.block(mb).insts.iter().any(|&i| f.inst(i).op() == Op::Phi));
                if back && !phis && cont != block.label {
                    out.push(Chance::LoopOnce(fid, block.label));
                }
            }
        }
    }
    out
}

/// Every block joined to its only predecessor at once (the `block-merge` pass).
pub(super) fn merged_blocks() -> Vec<Chance> {
    vec![Chance::MergeBlocks]
}
