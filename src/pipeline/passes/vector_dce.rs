//! `vector-dce`: components of vectors nobody reads are not computed (see
//! `ir::analysis::live_parts` for what counts as read):
//! - an insert of a component nobody reads is its vector operand;
//! - a vector value of which no component is read (it only feeds components that are not
//!   read either) is `OpUndef`, when computing it has no effect;
//! - a constituent of a vector construct, or a source of a shuffle, whose components nobody
//!   reads is `OpUndef` — so what computed it goes, unless something else reads it.
//!
//! What no longer has a use and has no effect goes with it.

use spirv::Op;

use super::dce::is_pure;
use super::dead_insert::dead_inserts;
use crate::ir::analysis::live_parts::{LiveParts, Parts};
use crate::ir::analysis::DefUse;
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::ops::ExtSets;
use crate::ir::rewrite::{self, forget, undefine_debug_uses, Replacer};
use crate::ir::types::vector_len;
use crate::ir::{Id, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct VectorDce;

/// The operand rewrites for constructs and shuffles: (instruction, operand index, its type).
fn unread_operands(m: &Module, f: &Function, live: &LiveParts) -> Vec<(InstId, usize, Id)> {
    let local_ty = |id: Id| f.value(id).and_then(|i| f.inst(i).ty());
    let mut out = Vec::new();
    for (_, i) in f.layout() {
        let inst = f.inst(i);
        let Some(r) = inst.result() else { continue };
        let parts: &Parts = live.of(r);
        match inst.op() {
            Op::CompositeConstruct if inst.ty().and_then(|t| vector_len(m, t)).is_some() => {
                let mut at = 0u32;
                for (k, &c) in inst.args().iter().enumerate() {
                    let ty = f.def_of(c).or_else(|| m.global(c)).and_then(|d| d.ty());
                    let width = ty.and_then(|t| vector_len(m, t)).unwrap_or(1);
                    // Constants and parameters cost nothing here.
                    if let (Some(ty), Some(_)) = (ty, f.value(c)) {
                        if !(at..at + width).any(|q| parts.reads(&[q])) {
                            out.push((i, k, ty));
                        }
                    }
                    at += width;
                }
            }
            Op::VectorShuffle => {
                let na = inst
                    .args()
                    .first()
                    .and_then(|&a| local_ty(a).or_else(|| m.global(a).and_then(|g| g.ty())))
                    .and_then(|t| vector_len(m, t))
                    .unwrap_or(0);
                let picks: Vec<u32> = inst
                    .lits()
                    .iter()
                    .enumerate()
                    .filter(|(q, _)| parts.reads(&[*q as u32]))
                    .filter_map(|(_, o)| match o {
                        rspirv::dr::Operand::LiteralBit32(c) if *c != u32::MAX => Some(*c),
                        _ => None,
                    })
                    .collect();
                for (k, from_a) in [(0, true), (1, false)] {
                    let Some(ty) = inst.args().get(k).and_then(|&a| local_ty(a)) else {
                        continue;
                    };
                    if !picks.iter().any(|&c| (c < na) == from_a) {
                        out.push((i, k, ty));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// How many instructions would go with `id` if the uses in `user` went (all its uses when
/// `user` is `None`): its definition when that has no effect, and what only it uses.
fn frees(
    f: &Function,
    du: &DefUse,
    sets: &ExtSets,
    id: Id,
    user: Option<InstId>,
    depth: u32,
) -> usize {
    let Some(i) = f.value(id) else {
        return 0;
    };
    let def = f.inst(i);
    let only_user = user.is_none_or(|u| du.uses(id).iter().all(|x| x.inst == u));
    if def.op() == Op::Phi || !is_pure(def, sets) || !only_user {
        return 0;
    }
    let mut args = def.args().to_vec();
    args.sort_unstable();
    args.dedup();
    1 + if depth == 0 {
        0
    } else {
        args.iter()
            .map(|&a| frees(f, du, sets, a, Some(i), depth - 1))
            .sum::<usize>()
    }
}

/// Removes instructions without effect whose results no code uses, and what only they used;
/// the debug records of what goes say it is undefined.
fn remove_unused(m: &mut Module, f: &mut Function, sets: &ExtSets, gone: &mut FxHashSet<Id>) {
    let mut uses: FxHashMap<Id, u32> = FxHashMap::default();
    for (_, i) in f.layout() {
        let inst = f.inst(i);
        if sets.is_debug_only(inst) {
            continue;
        }
        for &a in inst.args() {
            *uses.entry(a).or_default() += 1;
        }
    }
    let mut work: Vec<InstId> = f
        .layout()
        .map(|(_, i)| i)
        .filter(|&i| {
            let inst = f.inst(i);
            inst.op() != Op::Phi && inst.result().is_some_and(|r| !uses.contains_key(&r))
        })
        .collect();
    let mut dead: FxHashSet<Id> = FxHashSet::default();
    while let Some(i) = work.pop() {
        let inst = f.inst(i);
        let Some(r) = inst.result() else { continue };
        if dead.contains(&r) || !is_pure(inst, sets) || uses.get(&r).is_some_and(|&n| n > 0) {
            continue;
        }
        dead.insert(r);
        for &a in inst.args() {
            if let Some(n) = uses.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    if let Some(d) = f.value(a) {
                        work.push(d);
                    }
                }
            }
        }
    }
    if !dead.is_empty() {
        let typed: FxHashMap<Id, Id> = dead
            .iter()
            .filter_map(|&r| Some((r, f.def_of(r)?.ty()?)))
            .collect();
        let _ = undefine_debug_uses(m, f, sets, &typed);
        f.retain_all(|i| !i.result().is_some_and(|r| dead.contains(&r)));
        gone.extend(dead);
    }
}

pub fn vector_dce(m: &mut Module) -> bool {
    let sets = ExtSets::of(m);
    let mut replace = Replacer::new();
    let mut gone: FxHashSet<Id> = FxHashSet::default();
    let mut changed = false;
    // The types of the undefs code uses (one made only for a debug record is not there for
    // code to use for free: a debug build must weigh as a plain one does).
    let mut used_by_code: FxHashSet<Id> = FxHashSet::default();
    for f in m.functions() {
        for inst in f.body().filter(|i| !sets.is_debug_only(i)) {
            used_by_code.extend(inst.args().iter().copied());
        }
    }
    let mut undefs: FxHashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| g.op() == Op::Undef && g.result().is_some_and(|r| used_by_code.contains(&r)))
        .filter_map(|g| g.ty())
        .collect();
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        rewrite::with_function(m, k, |m, f| {
            let live = LiveParts::new(m, f, &sets);
            let is_vector = |ty: Id| vector_len(m, ty).is_some();
            let mut dead = dead_inserts(f, &live, is_vector, &mut replace);
            // Vectors of which nothing is read, though something uses them.
            let du = f.def_use(&sets);
            let unread: Vec<(Id, Id)> = f
                .body()
                .filter(|i| i.op() != Op::Phi && !dead.contains(&i.result().unwrap_or(0)))
                .filter_map(|i| Some((i.result()?, i.ty()?, i)))
                .filter(|(r, ty, i)| {
                    is_vector(*ty) && du.is_used(*r) && live.of(*r).is_none() && is_pure(i, &sets)
                })
                .map(|(r, ty, _)| (r, ty))
                .collect();
            let operands = unread_operands(m, f, &live);
            // An undef pays when what goes with the value is more than the undef it may add.
            let pays = |m: &Module, undefs: &FxHashSet<Id>, ty: Id, freed: usize| {
                freed > usize::from(!undefs.contains(&ty)) && m.global(ty).is_some()
            };
            for (r, ty) in unread {
                if pays(m, &undefs, ty, frees(f, &du, &sets, r, None, 8)) {
                    if let Some(u) = m.undef(ty) {
                        undefs.insert(ty);
                        if replace.replace_in(f.id(), r, u) {
                            dead.insert(r);
                        }
                    }
                }
            }
            let mut edits = false;
            // The ones that free most first: the undef one adds serves the others.
            let mut operands: Vec<_> = operands
                .into_iter()
                .map(|(i, k, ty)| {
                    let c = f.inst(i).args()[k];
                    let only_here = f.inst(i).args().iter().filter(|&&a| a == c).count() == 1;
                    let freed = if only_here {
                        frees(f, &du, &sets, c, Some(i), 8)
                    } else {
                        0
                    };
                    (freed, i, k, ty)
                })
                .collect();
            operands.sort_by_key(|o| std::cmp::Reverse(o.0));
            for (freed, i, k, ty) in operands {
                if pays(m, &undefs, ty, freed) {
                    if let Some(u) = m.undef(ty) {
                        undefs.insert(ty);
                        f.set_arg(i, k, u);
                        edits = true;
                    }
                }
            }
            if !dead.is_empty() || edits {
                f.retain_all(|i| !i.result().is_some_and(|r| dead.contains(&r)));
                replace.apply_to_function(f);
                remove_unused(m, f, &sets, &mut gone);
                changed = true;
            }
        });
    }
    replace.apply(m, "vector-dce");
    forget(m, &gone);
    changed
}

impl Pass for VectorDce {
    fn name(&self) -> &'static str {
        "vector-dce"
    }
    fn description(&self) -> &'static str {
        "vector components nobody reads are not computed or inserted"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(vector_dce(m).into())
    }
}
