//! Putting SSA back after a CFG change broke it: a value whose definition no longer dominates
//! one of its uses goes through memory — a `Function` variable stored right after the
//! definition and loaded before each such use. On the paths where the definition did not run
//! the load reads an undefined value, which is what those paths had before (they never saw the
//! value); `mem2reg` turns the variable back into SSA values with phis.
//!
//! A debug record is no use: a `DebugValue` its value's definition does not dominate says the
//! variable is undefined there instead, so a debug build demotes no more than a plain one.

use spirv::{Op, StorageClass};

use super::super::ext_sets::ExtSets;
use super::super::func::{Function, InstId};
use super::super::fxhash::FxHashMap;
use super::super::inst::{Id, Inst};
use super::super::module::Module;

/// Demotes to memory every value of `f` with a use its definition does not dominate. Returns
/// how many values it demoted; `Err` names a value it cannot demote (a pointer: logical
/// addressing cannot store one).
pub fn repair_ssa(m: &mut Module, f: &mut Function) -> Result<usize, String> {
    if f.is_declaration() {
        return Ok(0);
    }
    let sets = ExtSets::of(m);
    let cfg = f.cfg();
    let dom = f.domtree();
    let du = f.def_use(&sets);
    // (value, its type) → the uses its definition does not dominate: (user, arg index).
    let mut broken: Vec<(InstId, Vec<(InstId, usize)>)> = Vec::new();
    // Debug records its definition does not dominate, with the value's type.
    let mut undominated: Vec<(InstId, Id)> = Vec::new();
    for (db, def) in f.layout() {
        let inst = f.inst(def);
        let Some(v) = inst.result else { continue };
        if !cfg.reachable(db) {
            continue;
        }
        let (_, dpos) = du.place(def).expect("in the layout");
        let dominated = |ui: InstId| match du.place(ui) {
            Some((ub, upos)) if cfg.reachable(ub) => {
                if ub == db {
                    upos > dpos
                } else {
                    dom.dominates(db, ub)
                }
            }
            _ => true,
        };
        for u in du.debug_uses(v) {
            if !dominated(u.inst) && !undominated.iter().any(|(i, _)| *i == u.inst) {
                undominated.extend(inst.ty.map(|t| (u.inst, t)));
            }
        }
        let mut bad = Vec::new();
        for u in du.uses(v) {
            let user = f.inst(u.inst);
            let Some((ub, upos)) = du.place(u.inst) else {
                continue;
            };
            let ok = if user.op == Op::Phi {
                if u.arg % 2 == 1 {
                    continue; // a block operand
                }
                let pred = user.args.get(u.arg as usize + 1).copied();
                match pred.and_then(|p| cfg.block(p)) {
                    Some(p) => !cfg.reachable(p) || dom.dominates(db, p),
                    None => true,
                }
            } else if !cfg.reachable(ub) {
                true
            } else if ub == db {
                upos > dpos
            } else {
                dom.dominates(db, ub)
            };
            if !ok {
                bad.push((u.inst, u.arg as usize));
            }
        }
        if !bad.is_empty() {
            broken.push((def, bad));
        }
    }
    for (record, ty) in undominated {
        super::debug::say_undefined(m, f, record, ty).ok_or_else(super::out_of_ids)?;
    }
    if broken.is_empty() {
        return Ok(0);
    }
    let n = broken.len();
    let entry_vars = f
        .block_insts(0)
        .take_while(|i| i.op == Op::Variable)
        .count();
    for (def, uses) in broken {
        let d = f.inst(def).clone();
        let (v, ty) = (d.result.unwrap_or(0), d.ty.unwrap_or(0));
        if m.global(ty).is_some_and(|t| t.op == Op::TypePointer) {
            return Err(format!(
                "%{v} (a pointer) is used where its definition does not dominate"
            ));
        }
        let ptr = m
            .pointer_to(StorageClass::Function, ty)
            .ok_or_else(super::out_of_ids)?;
        let var = m.fresh_id().ok_or_else(super::out_of_ids)?;
        f.insert_inst(
            0,
            entry_vars,
            Inst::new(
                Op::Variable,
                Some(ptr),
                Some(var),
                vec![rspirv::dr::Operand::StorageClass(StorageClass::Function)],
            ),
        );
        // The store: after the definition, or after its block's phis for a phi.
        let du = f.def_use(&sets);
        let (db, dpos) = du.place(def).expect("in the layout");
        let at = if d.op == Op::Phi {
            f.block_insts(db).take_while(|i| i.op == Op::Phi).count()
        } else {
            dpos + 1
        };
        f.insert_inst(db, at, Inst::with_args(Op::Store, None, None, vec![var, v]));
        // A load per use: before the user, or at the end of the incoming block for a phi.
        let mut loads: FxHashMap<(InstId, usize), Id> = FxHashMap::default();
        for (user, k) in uses {
            let load = m.fresh_id().ok_or_else(super::out_of_ids)?;
            let du = f.def_use(&sets);
            let u = f.inst(user);
            let (b, pos) = if u.op == Op::Phi {
                let pred = u.args[k + 1];
                let pb = f.block_index(pred).expect("a block of the function");
                (pb, f.block(pb).insts.len())
            } else {
                du.place(user).expect("in the layout")
            };
            f.insert_inst(
                b,
                pos,
                Inst::with_args(Op::Load, Some(ty), Some(load), vec![var]),
            );
            loads.insert((user, k), load);
        }
        for ((user, k), load) in loads {
            f.inst_mut(user).args[k] = load;
        }
    }
    Ok(n)
}
