//! `mem2reg`: promotes `Function` variables to SSA values. A variable is promoted when its
//! address does not escape: every use is a non-volatile `OpLoad` of it or a non-volatile
//! `OpStore` to it (not of it). Its loads become the value last stored on every path, merged by
//! phis where paths meet; its stores, loads and the variable itself go.
//!
//! Phis are placed by Cytron et al.'s iterated dominance frontiers of the blocks that store,
//! pruned to the blocks where the variable is live on entry (a load there can see a value from
//! a predecessor), then filled in by one walk of the dominator tree with a stack of current
//! values per variable. A load no store reaches reads the variable's initializer, or an
//! `OpUndef`. Two fast paths skip the phi machinery: a variable used in one block only, where
//! no load comes before a store (in a loop that load would read the last iteration's store),
//! and a variable stored once where that store dominates every load.
//!
//! It does not promote through access chains (`sroa` splits aggregates into variables this
//! pass can take), nor variables passed to calls or copied with `OpCopyMemory`. GLSL.std.450
//! `Modf`/`Frexp` writing a local through their pointer operand become `ModfStruct`/
//! `FrexpStruct` and a store first, so that the local is promoted. A phi gets the
//! variable's debug name, so the promoted value keeps its name in the IR text.

use spirv::Op;

use crate::ir::debug::{self, DebugSets};
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::rewrite::Builder;
use crate::ir::rewrite::{self, forget, out_of_ids, Replacer};
use crate::ir::types::is_volatile;
use crate::ir::{Id, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Mem2Reg;

/// A variable to promote.
struct Var {
    id: Id,
    /// Its `DebugDeclare`s: each becomes a `DebugValue` wherever the variable gets a value.
    declares: Vec<InstId>,
    /// The pointee type: what loads make and stores take.
    ty: Id,
    /// The initializer, if any.
    init: Option<Id>,
    name: Option<String>,
}

/// The variables of `f` whose every use is a plain load of it or store to it.
fn promotable(m: &Module, f: &Function, dsets: &DebugSets) -> Vec<Var> {
    if f.is_declaration() {
        return Vec::new();
    }
    let du = f.def_use(dsets);
    let mut out = Vec::new();
    for v in f.block_insts(0) {
        if v.op() != Op::Variable {
            continue;
        }
        let Some(id) = v.result() else { continue };
        let Some((_, ty)) = v.ty().and_then(|t| crate::ir::types::pointer_type(m, t)) else {
            continue;
        };
        let ok = du.uses(id).iter().all(|u| {
            let i = f.inst(u.inst);
            match (i.op(), u.arg) {
                (Op::Load, 0) => !is_volatile(i),
                (Op::Store, 0) => !is_volatile(i) && i.args().get(1) != Some(&id),
                _ => false,
            }
        }) && du
            .debug_uses(id)
            .iter()
            .all(|u| u.arg as usize == debug::ARG_DESCRIBED);
        // Its declares become values; a value record of the pointer goes with it (`forget`).
        let declares = du
            .debug_uses(id)
            .iter()
            .filter(|u| {
                u.arg as usize == debug::ARG_DESCRIBED && dsets.is(f.inst(u.inst), debug::DECLARE)
            })
            .map(|u| u.inst)
            .collect();
        if ok {
            out.push(Var {
                id,
                declares,
                ty,
                init: v.args().first().copied(),
                name: m.debug_name(id).map(str::to_string),
            });
        }
    }
    out
}

/// Promotes the variables of function `f`. Returns the replacements of loads by values.
fn promote(m: &mut Module, f: &mut Function, replace: &mut Replacer) -> Result<bool, String> {
    let dsets = DebugSets::of(m);
    let vars = promotable(m, f, &dsets);
    if vars.is_empty() {
        return Ok(false);
    }
    let fid = f.id();
    let index: FxHashMap<Id, usize> = vars.iter().enumerate().map(|(k, v)| (v.id, k)).collect();
    let cfg = f.cfg();
    let dom = f.domtree();
    let du = f.def_use(&dsets);
    let n = cfg.len();
    // The loads and stores of a variable (its declares describe it, they do not use it).
    let accesses = |v: Id| du.uses(v).iter();

    // Per variable: blocks that store, blocks that load, whether everything is in one block.
    let mut stores: Vec<Vec<usize>> = vec![Vec::new(); vars.len()];
    let mut loads: Vec<Vec<usize>> = vec![Vec::new(); vars.len()];
    for (k, v) in vars.iter().enumerate() {
        for u in accesses(v.id) {
            let b = du.block_of(u.inst).expect("in the layout");
            let list = if f.inst(u.inst).op() == Op::Store {
                &mut stores[k]
            } else {
                &mut loads[k]
            };
            if list.last() != Some(&b) {
                list.push(b);
            }
        }
    }
    let mut initial: Vec<Option<Id>> = vars.iter().map(|v| v.init).collect();
    let mut value_of_nothing = |m: &mut Module, k: usize| -> Result<Id, String> {
        match initial[k] {
            Some(v) => Ok(v),
            None => {
                let u = m.undef(vars[k].ty).ok_or_else(out_of_ids)?;
                initial[k] = Some(u);
                Ok(u)
            }
        }
    };
    let mut dead: FxHashSet<InstId> = FxHashSet::default();

    // Fast paths, then the general case for what is left.
    let mut general: Vec<usize> = Vec::new();
    for k in 0..vars.len() {
        let mut blocks: Vec<usize> = stores[k].iter().chain(&loads[k]).copied().collect();
        blocks.sort_unstable();
        blocks.dedup();
        // One block: walk it in order, unless a load comes before a store there: in a loop
        // that load reads the previous iteration's store (the general case places the phi).
        let load_first = blocks.len() == 1 && !stores[k].is_empty() && {
            let insts = &f.block(blocks[0]).insts;
            let first = |op: Op| {
                insts.iter().position(|&i| {
                    let inst = f.inst(i);
                    inst.op() == op && inst.args().first() == Some(&vars[k].id)
                })
            };
            matches!((first(Op::Load), first(Op::Store)), (Some(l), Some(s)) if l < s)
        };
        if blocks.len() <= 1 && !load_first {
            let mut current = None;
            for &b in &blocks {
                for &i in &f.block(b).insts {
                    let inst = f.inst(i);
                    if inst.args().first() != Some(&vars[k].id) {
                        continue;
                    }
                    match inst.op() {
                        Op::Store => current = Some(inst.args()[1]),
                        Op::Load => {
                            let v = match current {
                                Some(v) => v,
                                None => value_of_nothing(m, k)?,
                            };
                            replace.replace_in(fid, inst.result().unwrap_or(0), v);
                        }
                        _ => continue,
                    }
                    dead.insert(i);
                }
            }
            continue;
        }
        let single_store = accesses(vars[k].id)
            .filter(|u| f.inst(u.inst).op() == Op::Store)
            .map(|u| u.inst)
            .collect::<Vec<_>>();
        if let [s] = single_store.as_slice() {
            let (sb, sp) = du.place(*s).expect("in the layout");
            let dominated = accesses(vars[k].id).all(|u| {
                if u.inst == *s {
                    return true;
                }
                let (lb, lp) = du.place(u.inst).expect("in the layout");
                (lb == sb && lp > sp) || (lb != sb && dom.dominates(sb, lb))
            });
            if dominated {
                let value = f.inst(*s).args()[1];
                for u in accesses(vars[k].id) {
                    if u.inst != *s {
                        replace.replace_in(fid, f.inst(u.inst).result().unwrap_or(0), value);
                    }
                    dead.insert(u.inst);
                }
                continue;
            }
        }
        general.push(k);
    }

    // Phi placement for the rest: iterated dominance frontiers of the storing blocks, pruned
    // to where the variable is live on entry.
    let frontiers = f.frontiers();
    // (block) → [(variable, phi result)]
    let mut phis_at: Vec<Vec<(usize, Id)>> = vec![Vec::new(); n];
    for &k in &general {
        let live_in = live_in_blocks(f, &cfg.preds, &stores[k], vars[k].id, &du);
        let mut has_phi = vec![false; n];
        let mut work: Vec<usize> = stores[k].clone();
        let mut queued = vec![false; n];
        for &b in &work {
            queued[b] = true;
        }
        while let Some(b) = work.pop() {
            for &d in &frontiers.0[b] {
                if has_phi[d] || !live_in[d] {
                    continue;
                }
                has_phi[d] = true;
                let r = m.fresh_id().ok_or_else(out_of_ids)?;
                phis_at[d].push((k, r));
                if !queued[d] {
                    queued[d] = true;
                    work.push(d);
                }
            }
        }
    }

    // Renaming: a walk of the dominator tree with a stack of values per variable.
    let in_general: Vec<bool> = {
        let mut g = vec![false; vars.len()];
        for &k in &general {
            g[k] = true;
        }
        g
    };
    let mut stacks: Vec<Vec<Id>> = vec![Vec::new(); vars.len()];
    // Incoming values per phi: (block, variable) → [(value, predecessor label)].
    let mut incoming: FxHashMap<(usize, usize), Vec<Id>> = FxHashMap::default();
    let mut walk: Vec<(usize, bool)> = vec![(0, true)];
    let mut heights: Vec<Vec<usize>> = Vec::new();
    while let Some((b, enter)) = walk.pop() {
        if !enter {
            let h = heights.pop().expect("pushed on entry");
            for (s, &len) in stacks.iter_mut().zip(&h) {
                s.truncate(len);
            }
            continue;
        }
        heights.push(stacks.iter().map(Vec::len).collect());
        for &(k, r) in &phis_at[b] {
            stacks[k].push(r);
        }
        for &i in &f.block(b).insts {
            let inst = f.inst(i);
            let Some(&k) = inst.args().first().and_then(|p| index.get(p)) else {
                continue;
            };
            if !in_general[k] {
                continue;
            }
            match inst.op() {
                Op::Store => stacks[k].push(inst.args()[1]),
                Op::Load => {
                    let v = match stacks[k].last() {
                        Some(&v) => v,
                        None => value_of_nothing(m, k)?,
                    };
                    replace.replace_in(fid, inst.result().unwrap_or(0), v);
                }
                _ => continue,
            }
            dead.insert(i);
        }
        let label = cfg.labels[b];
        for &s in &cfg.succs[b] {
            for &(k, _) in &phis_at[s] {
                let v = match stacks[k].last() {
                    Some(&v) => v,
                    None => value_of_nothing(m, k)?,
                };
                incoming.entry((s, k)).or_default().extend([v, label]);
            }
        }
        walk.push((b, false));
        for &c in dom.children(b).iter().rev() {
            walk.push((c, true));
        }
    }
    // Unreachable blocks: their loads read nothing, their stores go.
    for b in 0..n {
        if dom.contains(b) {
            continue;
        }
        for &i in &f.block(b).insts {
            let inst = f.inst(i);
            let Some(&k) = inst.args().first().and_then(|p| index.get(p)) else {
                continue;
            };
            if !in_general[k] || !matches!(inst.op(), Op::Load | Op::Store) {
                continue;
            }
            if inst.op() == Op::Load {
                let u = value_of_nothing(m, k)?;
                replace.replace_in(fid, inst.result().unwrap_or(0), u);
            }
            dead.insert(i);
        }
    }

    // Phis, with an undefined value from predecessors the walk did not reach. A phi stands for
    // its variable: it is `RelaxedPrecision` where the variable was.
    let relaxed: FxHashSet<Id> = m
        .annotations()
        .iter()
        .filter(|a| {
            a.op() == Op::Decorate
                && matches!(
                    a.lits(),
                    [rspirv::dr::Operand::Decoration(
                        spirv::Decoration::RelaxedPrecision
                    )]
                )
        })
        .filter_map(|a| a.arg(0))
        .filter(|t| vars.iter().any(|v| v.id == *t))
        .collect();
    let mut relaxed_phis: Vec<Id> = Vec::new();
    let mut names: Vec<(Id, String)> = Vec::new();
    for (b, list) in phis_at.iter().enumerate() {
        for (slot, &(k, r)) in list.iter().enumerate() {
            let mut args = incoming.remove(&(b, k)).unwrap_or_default();
            for &p in &cfg.preds[b] {
                let pl = cfg.labels[p];
                if !args.chunks(2).any(|c| c[1] == pl) {
                    let u = value_of_nothing(m, k)?;
                    args.extend([u, pl]);
                }
            }
            Builder::at(m, f, b, slot).ids_as(Op::Phi, Some(vars[k].ty), Some(r), &args);
            if let Some(name) = &vars[k].name {
                names.push((r, name.clone()));
            }
            if relaxed.contains(&vars[k].id) {
                relaxed_phis.push(r);
            }
        }
    }
    describe_values(m, f, &vars, &index, &mut dead, &phis_at, &initial)?;
    // The loads, stores and variables go.
    let var_ids: FxHashSet<Id> = vars.iter().map(|v| v.id).collect();
    for b in 0..n {
        f.retain_ids(b, |i, inst| {
            !(dead.contains(&i) || inst.result().is_some_and(|r| var_ids.contains(&r)))
        });
    }
    forget(m, &var_ids);
    for r in relaxed_phis {
        Builder::detached(m).decorate(r, spirv::Decoration::RelaxedPrecision, vec![]);
    }
    for (r, name) in names {
        m.set_name(r, name);
    }
    Ok(true)
}

/// Where a promoted variable described by `DebugDeclare` gets a value, a `DebugValue` says
/// so, as spirv-opt's ssa-rewrite does: a store becomes one in its place (and leaves `dead`),
/// a phi standing for the variable is followed by one, and the declare itself says the
/// initial value (or goes, when stores describe the variable).
fn describe_values(
    m: &mut Module,
    f: &mut Function,
    vars: &[Var],
    index: &FxHashMap<Id, usize>,
    dead: &mut FxHashSet<InstId>,
    phis_at: &[Vec<(usize, Id)>],
    initial: &[Option<Id>],
) -> Result<(), String> {
    if vars.iter().all(|v| v.declares.is_empty()) {
        return Ok(());
    }
    let mut stored = vec![false; vars.len()];
    for b in 0..f.blocks().len() {
        for p in 0..f.block(b).insts.len() {
            let i = f.block(b).insts[p];
            let inst = f.inst(i);
            if inst.op() != Op::Store || !dead.contains(&i) {
                continue;
            }
            let (Some(k), Some(&value)) = (
                inst.args().first().and_then(|v| index.get(v)).copied(),
                inst.args().get(1),
            ) else {
                continue;
            };
            let Some(&declare) = vars[k].declares.first() else {
                continue;
            };
            let id = m.fresh_id().ok_or_else(out_of_ids)?;
            let described = debug::value_from_declare(f.inst(declare), value, id);
            f.replace_inst(i, described);
            dead.remove(&i);
            stored[k] = true;
        }
    }
    for (b, list) in phis_at.iter().enumerate() {
        let after_phis = f
            .block(b)
            .insts
            .iter()
            .take_while(|&&i| f.inst(i).op() == Op::Phi)
            .count();
        // Each after the phis and the values said before it: counted by what was placed, as
        // a phi of a variable nothing declares says nothing.
        let mut placed = 0;
        for &(k, r) in list {
            let Some(&declare) = vars[k].declares.first() else {
                continue;
            };
            let id = m.fresh_id().ok_or_else(out_of_ids)?;
            let described = debug::value_from_declare(f.inst(declare), r, id);
            f.insert_inst(b, after_phis + placed, described);
            placed += 1;
        }
    }
    for (k, v) in vars.iter().enumerate() {
        for (n, &declare) in v.declares.iter().enumerate() {
            let initial_value = match initial[k] {
                Some(init) if n == 0 => init,
                None if n == 0 && !stored[k] => m.undef(v.ty).ok_or_else(out_of_ids)?,
                _ => {
                    dead.insert(declare);
                    continue;
                }
            };
            let id = f.inst(declare).result().unwrap_or(0);
            let described = debug::value_from_declare(f.inst(declare), initial_value, id);
            f.replace_inst(declare, described);
        }
    }
    Ok(())
}

/// Loads of variables nothing writes: a `Function` variable without initializer whose every
/// use is a load, directly or through access chains, reads as undefined. Variables of arrays
/// sized by spec constants, which `sroa` cannot split, are the usual case. The loads go; the
/// chains and the variable are left to `dce`.
fn read_unwritten(
    m: &mut Module,
    f: &mut Function,
    replace: &mut Replacer,
) -> Result<bool, String> {
    let dsets = DebugSets::of(m);
    let fid = f.id();
    let du = f.def_use(&dsets);
    let mut loads: Vec<InstId> = Vec::new();
    for v in f.block_insts(0) {
        if v.op() != Op::Variable || !v.args().is_empty() {
            continue;
        }
        let Some(id) = v.result() else { continue };
        let mut found = Vec::new();
        let mut pointers = vec![id];
        let mut seen: FxHashSet<Id> = FxHashSet::default();
        let mut only_read = true;
        while let Some(p) = pointers.pop() {
            for u in du.uses(p) {
                let i = f.inst(u.inst);
                match (i.op(), u.arg) {
                    (Op::Load, 0) => found.push(u.inst),
                    (Op::AccessChain | Op::InBoundsAccessChain, 0) => {
                        // (Chains in a cycle make no valid module, but must not loop here.)
                        pointers.extend(i.result().filter(|&r| seen.insert(r)));
                    }
                    _ => only_read = false,
                }
            }
        }
        if only_read {
            loads.extend(found);
        }
    }
    if loads.is_empty() {
        return Ok(false);
    }
    let dead: FxHashSet<InstId> = loads.iter().copied().collect();
    for l in loads {
        let inst = f.inst(l);
        let (Some(ty), Some(r)) = (inst.ty(), inst.result()) else {
            continue;
        };
        let u = m.undef(ty).ok_or_else(out_of_ids)?;
        replace.replace_in(fid, r, u);
    }
    for b in 0..f.blocks().len() {
        f.retain_ids(b, |i, _| !dead.contains(&i));
    }
    Ok(true)
}

/// Blocks where variable `var` is live on entry: a load in them sees a value from before the
/// block, or they lead to one without a store in between.
fn live_in_blocks(
    f: &Function,
    preds: &[crate::ir::analysis::cfg::Edges],
    stores: &[usize],
    var: Id,
    du: &crate::ir::analysis::DefUse,
) -> Vec<bool> {
    let n = preds.len();
    let mut live = vec![false; n];
    let mut defines = vec![false; n];
    for &b in stores {
        defines[b] = true;
    }
    let mut work = Vec::new();
    // Upward-exposed loads: the first access of the block is a load.
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    for u in du.uses(var) {
        let b = du.block_of(u.inst).expect("in the layout");
        if !seen.insert(b) {
            continue;
        }
        let first = f.block(b).insts.iter().find_map(|&i| {
            let inst = f.inst(i);
            (inst.args().first() == Some(&var)).then_some(inst.op())
        });
        if first == Some(Op::Load) {
            live[b] = true;
            work.push(b);
        }
    }
    while let Some(b) = work.pop() {
        for &p in &preds[b] {
            if !live[p] && !defines[p] {
                live[p] = true;
                work.push(p);
            }
        }
    }
    live
}

pub fn mem2reg(m: &mut Module) -> Result<bool, String> {
    let mut changed = false;
    for k in 0..m.functions().len() {
        if m.functions()[k].is_declaration() {
            continue;
        }
        // Modf/Frexp writing a local through a pointer: a struct result and a store instead,
        // so that the local can be promoted.
        changed |= super::qptr_lower::struct_out_params(m, k, true) == Some(true);
        let mut replace = Replacer::new();
        let result = rewrite::with_function(m, k, |m, f| {
            let result = read_unwritten(m, f, &mut replace)
                .and_then(|read| Ok(promote(m, f, &mut replace)? | read));
            replace.apply_to_function(f);
            result
        });
        changed |= result?;
        replace.apply(m, "mem2reg");
    }
    Ok(changed)
}

impl Pass for Mem2Reg {
    fn name(&self) -> &'static str {
        "mem2reg"
    }
    fn description(&self) -> &'static str {
        "promote function variables whose address does not escape to SSA values with phis"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        mem2reg(m).map(Changed::from).map_err(PassError)
    }
}
