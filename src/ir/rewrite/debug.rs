//! Keeping debug info right while code moves and goes.
//!
//! Source-location markers (`OpLine`/`OpNoLine`, `DebugLine`/`DebugNoLine`, `DebugScope`/
//! `DebugNoScope`) describe the instructions after them in their block. Once code between two
//! markers of one family is gone, the first describes nothing; once a block is joined to the
//! one before, its markers may repeat the one in force. Both kinds go here.
//!
//! `DebugDeclare`/`DebugValue` are not uses (see `ir::debug`): a pass may delete what they
//! describe, and they then go with it.

use spirv::Op;

use crate::ir::debug::{self, DebugSets};
use crate::ir::func::Function;
use crate::ir::fxhash::FxHashSet;
use crate::ir::inst::{Id, Inst};
use crate::ir::module::Module;

/// The families of location markers: a marker sets what is in force for its family only.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Marker {
    /// `OpLine`/`OpNoLine`.
    Line,
    /// `DebugLine`/`DebugNoLine`.
    DebugLine,
    /// `DebugScope`/`DebugNoScope`.
    Scope,
}

/// The family of a location marker, if `inst` is one.
pub fn marker(inst: &Inst, sets: &DebugSets) -> Option<Marker> {
    match inst.op {
        Op::Line | Op::NoLine => Some(Marker::Line),
        Op::ExtInst => match sets.op(inst)?.1 {
            debug::LINE | debug::NO_LINE => Some(Marker::DebugLine),
            debug::SCOPE | debug::NO_SCOPE => Some(Marker::Scope),
            _ => None,
        },
        _ => None,
    }
}

/// Whether two markers say the same (their results aside).
fn same_marker(a: &Inst, b: &Inst) -> bool {
    a.op == b.op && a.args == b.args && a.lits() == b.lits()
}

/// Removes the location markers of `f` that describe nothing: one that a later marker of its
/// family overrides before any other instruction, and one that repeats the marker in force
/// (after a `DebugScope` change, a `DebugLine` is said again, as the scope may end it).
/// Returns how many went.
pub fn drop_superseded_lines(f: &mut Function, sets: &DebugSets) -> usize {
    let mut removed = 0;
    for b in 0..f.blocks().len() {
        let insts = &f.block(b).insts;
        let kinds: Vec<Option<Marker>> = insts.iter().map(|&i| marker(f.inst(i), sets)).collect();
        if kinds.iter().all(Option::is_none) {
            continue;
        }
        let mut dead = vec![false; insts.len()];
        // Overridden before anything it describes.
        for (k, kind) in kinds.iter().enumerate() {
            let Some(kind) = kind else { continue };
            let next = kinds[k + 1..].iter().take_while(|n| n.is_some()).flatten();
            if next.into_iter().any(|n| n == kind) {
                dead[k] = true;
            }
        }
        // Repeats what is in force.
        let mut in_force: [Option<usize>; 3] = [None; 3];
        for (k, kind) in kinds.iter().enumerate() {
            let Some(kind) = kind else { continue };
            if dead[k] {
                continue;
            }
            let slot = *kind as usize;
            let inst = f.inst(insts[k]);
            if in_force[slot].is_some_and(|p| same_marker(f.inst(insts[p]), inst)) {
                dead[k] = true;
                continue;
            }
            in_force[slot] = Some(k);
            if *kind == Marker::Scope {
                in_force[Marker::DebugLine as usize] = None;
            }
        }
        if dead.contains(&true) {
            let mut k = 0;
            removed += f.retain_ids(b, |_, _| {
                k += 1;
                !dead[k - 1]
            });
        }
    }
    removed
}

/// Removes from `f` the `DebugDeclare`s and `DebugValue`s that describe an id of `gone`.
/// Returns how many went.
pub fn drop_debug_uses_of(f: &mut Function, sets: &DebugSets, gone: &FxHashSet<Id>) -> usize {
    if sets.is_empty() || gone.is_empty() {
        return 0;
    }
    f.retain_all(|i| {
        !(sets.is_debug_use(i)
            && i.arg(debug::ARG_DESCRIBED)
                .is_some_and(|d| gone.contains(&d)))
    })
}

/// Removes, in every function of `m`, the `DebugDeclare`s and `DebugValue`s that describe an
/// id of `gone`.
pub fn drop_debug_uses_in_module(m: &mut Module, gone: &FxHashSet<Id>) {
    let sets = DebugSets::of(m);
    if sets.is_empty() || gone.is_empty() {
        return;
    }
    for k in 0..m.functions().len() {
        drop_debug_uses_of(m.function_at_mut(k), &sets, gone);
    }
}

/// What a debugger is told of values a pass deleted (`dead`: each value with its type): a
/// `DebugValue` of one says the variable's value is undefined there (optimized out), and a
/// `DebugDeclare` of a deleted variable becomes such a `DebugValue` of its pointee. They stay,
/// so the variable is still described, without keeping the value alive. Returns whether
/// anything changed (`None` when no id is left for an `OpUndef`).
pub fn undefine_debug_uses(
    m: &mut Module,
    f: &mut Function,
    sets: &DebugSets,
    dead: &crate::ir::fxhash::FxHashMap<Id, Id>,
) -> Option<bool> {
    if sets.is_empty() || dead.is_empty() {
        return Some(false);
    }
    let mut changed = false;
    let mut unsayable: crate::ir::fxhash::FxHashSet<Id> = Default::default();
    let targets: Vec<_> = f
        .layout()
        .map(|(_, i)| i)
        .filter(|&i| sets.is_debug_use(f.inst(i)))
        .collect();
    for i in targets {
        let inst = f.inst(i);
        let Some(&ty) = inst.arg(debug::ARG_DESCRIBED).and_then(|d| dead.get(&d)) else {
            continue;
        };
        let ty = if sets.is(inst, debug::DECLARE) {
            match crate::ir::types::pointer_type(m, ty) {
                Some((_, pointee)) => pointee,
                None => continue,
            }
        } else {
            ty
        };
        // An 8- or 16-bit value the module may not have an `OpUndef` of: the record goes.
        if !m.constant_allowed(ty) {
            unsayable.extend(inst.result);
            continue;
        }
        let undef = m.undef(ty)?;
        let id = inst.result.unwrap_or(0);
        let value = debug::value_from_declare(inst, undef, id);
        f.replace_inst(i, value);
        changed = true;
    }
    if !unsayable.is_empty() {
        f.retain_all(|i| !i.result.is_some_and(|r| unsayable.contains(&r)));
        changed = true;
    }
    Some(changed)
}

/// `DebugDeclare`s in `f` whose variable is no longer a variable (inlining put an argument in
/// a parameter's place) become `DebugValue`s: of the value itself, or for a pointer that is
/// not a variable, of an undefined value of its pointee. Returns whether anything changed.
pub fn settle_declares(m: &mut Module, f: &mut Function, sets: &DebugSets) -> Option<bool> {
    if sets.is_empty() {
        return Some(false);
    }
    let targets: Vec<_> = f
        .layout()
        .map(|(_, i)| i)
        .filter(|&i| sets.is(f.inst(i), debug::DECLARE))
        .collect();
    let mut changed = false;
    let mut unsayable: crate::ir::fxhash::FxHashSet<Id> = Default::default();
    for i in targets {
        let inst = f.inst(i);
        let Some(d) = inst.arg(debug::ARG_DESCRIBED) else {
            continue;
        };
        let (is_variable, ty) = match f.def_of(d) {
            Some(def) => (def.op == Op::Variable, def.ty),
            None => match f.params.iter().find(|p| p.result == Some(d)) {
                Some(p) => (true, p.ty),
                None => match m.global(d) {
                    Some(g) => (g.op == Op::Variable, g.ty),
                    None => (false, None),
                },
            },
        };
        if is_variable {
            continue;
        }
        let value = match ty.and_then(|t| crate::ir::types::pointer_type(m, t)) {
            // An 8- or 16-bit pointee the module may not have an `OpUndef` of: the declare
            // goes.
            Some((_, pointee)) if !m.constant_allowed(pointee) => {
                unsayable.extend(inst.result);
                continue;
            }
            Some((_, pointee)) => m.undef(pointee)?,
            None if ty.is_some() => d,
            None => continue,
        };
        let id = inst.result.unwrap_or(0);
        let described = debug::value_from_declare(inst, value, id);
        f.replace_inst(i, described);
        changed = true;
    }
    if !unsayable.is_empty() {
        f.retain_all(|i| !i.result.is_some_and(|r| unsayable.contains(&r)));
        changed = true;
    }
    Some(changed)
}
