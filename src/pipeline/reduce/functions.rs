//! Entry points and functions: an entry point taken out (of several), a function nothing
//! calls deleted, a call deleted (its result made a null constant) or inlined.

use spirv::Op;

use super::Chance;
use crate::ir::{Id, Module};

/// Each entry point, when there are several.
pub(super) fn entry_points(m: &Module) -> Vec<Chance> {
    if m.entry_points().len() > 1 {
        (0..m.entry_points().len()).map(Chance::Entry).collect()
    } else {
        Vec::new()
    }
}

/// Functions nothing calls; then each call deleted (the larger edit), then each inlined.
pub(super) fn calls(m: &Module) -> Vec<Chance> {
    let mut out = Vec::new();
    let mut called: std::collections::HashSet<Id> = m
        .entry_points()
        .iter()
        .filter_map(|e| e.args().first().copied())
        .collect();
    for f in m.functions() {
        called.extend(
            f.insts()
                .filter(|i| i.op() == Op::FunctionCall)
                .filter_map(|i| i.args().first().copied()),
        );
    }
    out.extend(
        m.functions()
            .iter()
            .map(|f| f.id())
            .filter(|id| !called.contains(id))
            .map(Chance::DeadFunction),
    );
    let mut inlines = Vec::new();
    for f in m.functions() {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            for i in f.block_insts(b) {
                if i.op() == Op::FunctionCall {
                    if let Some(r) = i.result() {
                        out.push(Chance::Call(fid, r));
                        inlines.push(Chance::Inline(fid, r));
                    }
                }
            }
        }
    }
    out.extend(inlines);
    out
}
