//! Making the edits of a chunk of chances on a copy of the module, and the cleanups after:
//! what an edit made unused goes with it (`sweep`, `drop_globals`).

use std::sync::Arc;

use spirv::Op;

use super::guards::nullable;
use super::{types, Chance};
use crate::ir::fxhash::FxHashSet;
use crate::ir::rewrite;
use crate::ir::rewrite::{Builder, Replacer};
use crate::ir::{Id, Module};
use crate::pipeline::pass::PassCx;
use crate::pipeline::registry;

/// Runs a pass of the registry on `m` (the cleanups after an edit).
pub(super) fn tidy(m: &mut Module, passes: &[&str]) {
    for name in passes {
        if let Some(p) = registry::pass(name) {
            let mut cx = PassCx::new(Arc::new(Vec::new()));
            // A cleanup that cannot run leaves the module as it was: the candidate is
            // judged as it is.
            let _ = p.run(m, &mut cx);
        }
    }
}

/// Ids something uses: as an operand or a result type (names and decorations are no use), or
/// as an entry point's function or interface variable.
pub(super) fn used_ids(m: &Module) -> std::collections::HashSet<Id> {
    let mut used = std::collections::HashSet::new();
    m.for_each_inst(|i| {
        if !crate::ir::rewrite::is_metadata(i.op()) {
            used.extend(i.args().iter().copied().chain(i.ty()));
        }
    });
    for e in m.entry_points() {
        used.extend(e.args().iter().copied());
    }
    used
}

/// Takes away the `suspects` nothing uses any more, and then what only they used: the
/// computation that fed what an edit took, and nothing else (an unused value elsewhere may be
/// what the reduction is about).
pub(super) fn sweep(m: &mut Module, mut suspects: Vec<(Id, Id)>, forget: &mut FxHashSet<Id>) {
    let sets = crate::ir::ops::ExtSets::of(m);
    while !suspects.is_empty() {
        let used = used_ids(m);
        let mut next = Vec::new();
        for (fid, id) in std::mem::take(&mut suspects) {
            if used.contains(&id) || forget.contains(&id) {
                continue;
            }
            let Some(f) = rewrite::function_mut(m, fid) else {
                continue;
            };
            let Some(def) = f.def_of(id) else {
                continue;
            };
            if !(def.op() == Op::Variable || crate::pipeline::passes::dce::is_pure(def, &sets))
                || def.op() == Op::Label
            {
                continue;
            }
            if let Some(args) = take_value(f, id) {
                next.extend(args.iter().map(|&a| (fid, a)));
                forget.insert(id);
            }
        }
        suspects = next;
    }
}

/// Takes the instruction making value `r` out of `f`: its id operands.
pub(super) fn take_value(f: &mut crate::ir::Function, r: Id) -> Option<crate::ir::inst::Args> {
    let args = crate::ir::inst::Args::from(f.def_of(r)?.args());
    let b = (0..f.blocks().len()).find(|&b| f.block_insts(b).any(|i| i.result() == Some(r)))?;
    f.retain_insts(b, |i| i.result() != Some(r));
    Some(args)
}

/// Takes away the global `first` (or every global nothing uses), then (`cascade`) the globals
/// only what went used: a constant's type goes with it, rather than one candidate later.
pub(super) fn drop_globals(
    m: &mut Module,
    first: Option<Id>,
    cascade: bool,
    forget: &mut FxHashSet<Id>,
) {
    let mut suspects: Option<std::collections::HashSet<Id>> = first.map(|r| [r].into());
    loop {
        let used = used_ids(m);
        let mut gone = Vec::new();
        crate::ir::rewrite::retain_globals(m, |g| match g.result() {
            Some(r) if !used.contains(&r) && suspects.as_ref().is_none_or(|s| s.contains(&r)) => {
                gone.push(g.clone());
                false
            }
            _ => true,
        });
        if gone.is_empty() {
            return;
        }
        forget.extend(gone.iter().filter_map(|g| g.result()));
        if !cascade {
            return;
        }
        if let Some(s) = &mut suspects {
            s.clear();
            s.extend(
                gone.iter()
                    .flat_map(|g| g.args().iter().copied().chain(g.ty())),
            );
        }
    }
}

/// A null constant of `ty`, or `OpUndef` for a type that has none (the callers offer that
/// only outside `differs`).
pub(super) fn null_of(m: &mut Module, ty: Id) -> Option<Id> {
    let op = if nullable(m, ty) {
        Op::ConstantNull
    } else {
        Op::Undef
    };
    Builder::detached(m).intern(op, Some(ty), Vec::new()).ok()
}

/// `m` with the edits of `chunk` made; `None` when one cannot be.
pub(super) fn apply(m: &Module, chunk: &[Chance], swept: bool) -> Option<Module> {
    let mut m = m.clone();
    let mut replacer = Replacer::new();
    let mut entries: Vec<usize> = Vec::new();
    let mut annotations: Vec<usize> = Vec::new();
    let mut preamble: Vec<usize> = Vec::new();
    let mut interface: Vec<Id> = Vec::new();
    // Cleanups that take away only what an edit made unreachable: unused values stay until
    // an edit of their own takes them (a reduction may hinge on one).
    let mut cleanups: Vec<&str> = Vec::new();
    let mut gone: Vec<(Id, Id)> = Vec::new();
    // Ids that are no more: their names, decorations and debug records go too.
    let mut forget: FxHashSet<Id> = FxHashSet::default();
    // Operands of what went, which may be unused now.
    let mut suspects: Vec<(Id, Id)> = Vec::new();
    // Instructions without results, by position: taken last first, so positions hold.
    let mut plain: Vec<(Id, Id, Op, usize)> = Vec::new();
    let mut inlined: Vec<Id> = Vec::new();
    let mut members: Vec<(Id, u32)> = Vec::new();
    let mut arrays: Vec<(Id, bool)> = Vec::new();
    for &chance in chunk {
        match chance {
            Chance::DebugInfo => tidy(&mut m, &["strip-debug"]),
            Chance::Entry(k) => entries.push(k),
            Chance::Decoration(k) => annotations.push(k),
            Chance::Preamble(k) => preamble.push(k),
            Chance::Interface(v) => interface.push(v),
            Chance::Value(fid, r) => {
                let ty = m.function(fid)?.def_of(r)?.ty()?;
                let null = null_of(&mut m, ty)?;
                replacer.replace(r, null);
                gone.push((fid, r));
            }
            Chance::Forward(fid, r, k) => {
                let a = *m.function(fid)?.def_of(r)?.args().get(k)?;
                replacer.replace(r, a);
                gone.push((fid, r));
            }
            Chance::Earlier(fid, r, v) => {
                replacer.replace(r, v);
                gone.push((fid, r));
            }
            Chance::ImageOperands(fid, r) => {
                let f = rewrite::function_mut(&mut m, fid)?;
                let i = f.value(r)?;
                let (op, ty) = (f.inst(i).op(), f.inst(i).ty());
                let (operands, dropped) =
                    super::instructions::without_optional_image_operands(&f.inst(i).to_operands())?;
                rewrite::rewrite_inst(f, i, op, ty, operands);
                suspects.extend(dropped.iter().map(|&a| (fid, a)));
                for a in dropped {
                    if m.global(a).is_some() {
                        drop_globals(&mut m, Some(a), swept, &mut forget);
                    }
                }
            }
            Chance::Operand(fid, r, k) => {
                let a = *m.function(fid)?.def_of(r)?.args().get(k)?;
                let ty = m.function(fid)?.def_of(a)?.ty()?;
                let constant = null_of(&mut m, ty)?;
                let f = rewrite::function_mut(&mut m, fid)?;
                let i = f.value(r)?;
                f.set_arg(i, k, constant);
                suspects.push((fid, a));
            }
            Chance::OperandConstant(fid, r, k) => {
                let a = *m.function(fid)?.def_of(r)?.args().get(k)?;
                let ty = m.function(fid)?.def_of(a)?.ty()?;
                let constant = super::constants::other_constant(&m, ty)?;
                let f = rewrite::function_mut(&mut m, fid)?;
                let i = f.value(r)?;
                f.set_arg(i, k, constant);
                suspects.push((fid, a));
            }
            Chance::Dominating(fid, r, k, v) => {
                let f = rewrite::function_mut(&mut m, fid)?;
                let i = f.value(r)?;
                let a = *f.inst(i).args().get(k)?;
                f.set_arg(i, k, v);
                suspects.push((fid, a));
            }
            Chance::Optimize(passes) => tidy(&mut m, passes),
            Chance::Dce => cleanups.push("dce"),
            Chance::MergeBlocks => cleanups.push("block-merge"),
            Chance::Unused(fid, r) => gone.push((fid, r)),
            Chance::UnusedGlobal(r) => drop_globals(&mut m, Some(r), swept, &mut forget),
            Chance::UnusedGlobals => drop_globals(&mut m, None, swept, &mut forget),
            Chance::Call(fid, r) => {
                let (ty, void) = {
                    let f = m.function(fid)?;
                    let ty = f.def_of(r)?.ty()?;
                    (ty, m.global(ty).is_some_and(|t| t.op() == Op::TypeVoid))
                };
                if !void {
                    if !nullable(&m, ty) {
                        return None;
                    }
                    let null = null_of(&mut m, ty)?;
                    replacer.replace(r, null);
                }
                let args = take_value(rewrite::function_mut(&mut m, fid)?, r)?;
                suspects.extend(args.iter().skip(1).map(|&a| (fid, a)));
                cleanups.push("eliminate-dead-functions");
            }
            Chance::Plain(fid, label, op, k) => plain.push((fid, label, op, k)),
            Chance::Inline(_, r) => inlined.push(r),
            Chance::Member(s, k) => members.push((s, k)),
            Chance::ShortArray(a, dynamic) => arrays.push((a, dynamic)),
            Chance::DeadFunction(fid) => {
                forget.extend(m.function(fid)?.defined_ids());
                crate::ir::rewrite::retain_functions(&mut m, |f| f.id() != fid);
            }
            Chance::LoopOnce(fid, header) => {
                // The back edge goes to the merge block, and the header heads a selection
                // (or nothing, where it branches plainly).
                use rspirv::dr::Operand;
                let f = rewrite::function_mut(&mut m, fid)?;
                let h = f.block_index(header)?;
                let looped = f.block(h).merge.as_ref()?;
                let (merge, cont) = (looped.merge_block(), looped.continue_target()?);
                let c = f.block_index(cont)?;
                let term = f.block(c).terminator;
                rewrite::rewrite_inst(f, term, Op::Branch, None, vec![Operand::IdRef(merge)]);
                // The header's phis lose what came round the back edge.
                rewrite::remove_phi_incoming(f, h, cont);
                let branches = matches!(f.terminator(h).op(), Op::BranchConditional | Op::Switch);
                let selection = branches.then_some(crate::ir::func::Merge::Selection {
                    merge,
                    control: Operand::SelectionControl(spirv::SelectionControl::NONE),
                });
                f.set_merge(h, selection);
            }
            Chance::Branch(fid, label, taken) => {
                let t = {
                    let mut b = Builder::detached(&mut m);
                    b.cbool(taken).ok()?
                };
                let f = rewrite::function_mut(&mut m, fid)?;
                let b = f.block_index(label)?;
                let term = f.block(b).terminator;
                f.set_arg(term, 0, t);
                if !cleanups.contains(&"dead-branch") {
                    cleanups.push("dead-branch");
                }
            }
        }
    }
    entries.sort_unstable();
    for k in entries.into_iter().rev() {
        if k < m.entry_points().len() {
            rewrite::remove_entry_point(&mut m, k);
        }
    }
    plain.sort_by_key(|p| std::cmp::Reverse(p.3));
    for (fid, label, op, k) in plain {
        let f = rewrite::function_mut(&mut m, fid)?;
        let b = f.block_index(label)?;
        let mut seen = 0;
        f.retain_insts(b, |i| {
            if i.op() != op || i.result().is_some() {
                return true;
            }
            seen += 1;
            if seen - 1 == k {
                suspects.extend(i.args().iter().map(|&a| (fid, a)));
                return false;
            }
            true
        });
    }
    // Members last first, so the numbers of those still to go hold.
    members.sort_by_key(|&(s, k)| (s, std::cmp::Reverse(k)));
    for (s, k) in members {
        let ty = *m.global(s)?.args().get(k as usize)?;
        types::remove_member(&mut m, s, k)?;
        drop_globals(&mut m, Some(ty), swept, &mut forget);
    }
    for (a, dynamic) in arrays {
        let length = *m.global(a)?.args().get(1)?;
        types::shorten_array(&mut m, a, dynamic)?;
        drop_globals(&mut m, Some(length), swept, &mut forget);
    }
    if !inlined.is_empty() {
        // A call that cannot be inlined (a recursive callee…) stays: the candidate is then
        // no smaller, and refused as such.
        crate::pipeline::passes::inline::inline_where(&mut m, true, &|r| inlined.contains(&r))
            .ok()?;
        if !cleanups.contains(&"eliminate-dead-functions") {
            cleanups.push("eliminate-dead-functions");
        }
    }
    let mut k = 0;
    rewrite::retain_annotations(&mut m, |_| {
        k += 1;
        !annotations.contains(&(k - 1))
    });
    let mut k = 0;
    rewrite::retain_preamble(&mut m, |_| {
        k += 1;
        !preamble.contains(&(k - 1))
    });
    rewrite::retain_interfaces(&mut m, |a| !interface.contains(&a));
    replacer.apply(&mut m, "reduce");
    for (fid, r) in gone {
        let args = take_value(rewrite::function_mut(&mut m, fid)?, r)?;
        suspects.extend(args.iter().map(|&a| (fid, a)));
        forget.insert(r);
    }
    if swept {
        sweep(&mut m, suspects, &mut forget);
    }
    crate::ir::rewrite::forget(&mut m, &forget);
    tidy(&mut m, &cleanups);
    Some(m)
}
