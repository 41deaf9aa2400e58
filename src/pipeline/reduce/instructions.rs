//! Instructions: everything unused at once (`dce`), a global or an instruction nothing uses,
//! and a store, image write or other instruction without a result (under `differs` only
//! stores to memory whose contents are defined without them).

use spirv::Op;

use super::apply::used_ids;
use super::guards::{read_variables, store_may_go};
use super::Chance;
use crate::ir::Module;

/// Everything unused at once, unused globals (all, then each), unused instructions; then,
/// in each block, the instructions without a result and atomics whose result nothing uses.
pub(super) fn unused(m: &Module, differs: bool) -> Vec<Chance> {
    let (read, used) = (read_variables(m), used_ids(m));
    let mut out = vec![Chance::Dce];
    let sets = crate::ir::ops::ExtSets::of(m);
    if m.globals()
        .iter()
        .any(|g| g.result().is_some_and(|r| !used.contains(&r)))
    {
        out.push(Chance::UnusedGlobals);
    }
    for g in m.globals() {
        if let Some(r) = g.result() {
            if !used.contains(&r) {
                out.push(Chance::UnusedGlobal(r));
            }
        }
    }
    for f in m.functions() {
        for i in f.insts() {
            if let Some(r) = i.result() {
                if !used.contains(&r)
                    && !matches!(i.op(), Op::Label | Op::Function | Op::FunctionParameter)
                    && (!differs
                        || i.op() == Op::Variable
                        || crate::pipeline::passes::dce::is_pure(i, &sets))
                {
                    out.push(Chance::Unused(f.id(), r));
                }
            }
        }
    }
    for f in m.functions() {
        let fid = f.id();
        for (b, block) in f.blocks().iter().enumerate() {
            let mut seen: std::collections::HashMap<Op, usize> = Default::default();
            for i in f.block_insts(b) {
                match i.op() {
                    op if i.result().is_none() => {
                        let k = *seen.entry(op).and_modify(|n| *n += 1).or_insert(0);
                        // Under `differs` only what writes memory whose contents are defined
                        // without it; else anything (what is then invalid is refused).
                        let may = match op {
                            Op::Store => store_may_go(m, f, i.args()[0], differs, &read),
                            Op::ImageWrite => true,
                            _ => !differs,
                        };
                        if may {
                            out.push(Chance::Plain(fid, block.label, op, k));
                        }
                    }
                    // An atomic whose result nothing uses is a store.
                    op if crate::ir::inst::is_atomic(op) => {
                        if let Some(r) = i.result() {
                            if !used.contains(&r) && store_may_go(m, f, i.args()[0], differs, &read)
                            {
                                out.push(Chance::Unused(fid, r));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}
