//! `merge-return`: gives every function one return, at its end — what inlining needs, since
//! a call's continuation can follow only one place. As spirv-opt's merge-return does:
//!
//! - the body goes inside a loop that runs once (a new entry block keeps the variables and
//!   enters the loop; its merge block is the new single return block);
//! - a return outside any loop of the function becomes a break out of that loop, its value an
//!   incoming value of a phi in the return block;
//! - a return inside a loop stores its value and a "returned" flag in function variables and
//!   breaks out of its loop; the merge block of every loop a return leaves checks the flag
//!   first and, when set, breaks out of the next enclosing loop, up to the return block;
//! - values whose definitions no longer dominate their uses on the new paths go through memory
//!   (`rewrite::repair_ssa`), which `mem2reg` undoes.
//!
//! A function with at most one return, in a block outside every construct, is left as it is.
//! One that returns from a continue construct, or whose flag check would land in a loop's
//! continue target, is left as it is with a diagnostic naming it.

use std::sync::Arc;

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use crate::ir::analysis::ConstructKind;
use crate::ir::func::{Function, Merge};
use crate::ir::fxhash::FxHashMap;
use crate::ir::rewrite;
use crate::ir::rewrite::{out_of_ids, repair_ssa, split_block, Builder};
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Diagnostic, Pass, PassCx, PassError, Severity};

pub struct MergeReturn;

fn is_return(op: Op) -> bool {
    matches!(op, Op::Return | Op::ReturnValue)
}

/// Whether `f` needs merging: more than one return, or one inside a construct.
pub fn needs_merge(f: &Function) -> bool {
    if f.is_declaration() {
        return false;
    }
    let returns: Vec<usize> = (0..f.blocks().len())
        .filter(|&b| is_return(f.terminator(b).op()))
        .collect();
    match returns.as_slice() {
        [] => false,
        [one] => f
            .structure()
            .innermost
            .get(*one)
            .copied()
            .flatten()
            .is_some(),
        _ => true,
    }
}

/// Merges the returns of `f` (see the module doc). `Ok(false)` when there was nothing to do.
pub fn merge_returns(m: &mut Module, f: &mut Function) -> Result<bool, String> {
    if !needs_merge(f) {
        return Ok(false);
    }
    let structure = f.structure();
    let cfg = f.cfg();
    let n = f.blocks().len();
    let labels: Vec<Id> = f.blocks().iter().map(|b| b.label).collect();
    let ret_ty = f.def().ty().unwrap_or(0);
    let void = m.global(ret_ty).is_some_and(|t| t.op() == Op::TypeVoid);

    // Where each return goes: the merge of its innermost loop, or out (`None`).
    let mut returns: Vec<(usize, Option<usize>)> = Vec::new();
    for b in 0..n {
        if !is_return(f.terminator(b).op()) {
            continue;
        }
        let mut c = structure.innermost[b];
        while let Some(k) = c {
            if structure.constructs[k].kind == ConstructKind::Continue {
                return Err("it returns from a loop's continue construct".into());
            }
            c = structure.constructs[k].parent;
        }
        returns.push((b, structure.loop_of(b)));
    }
    let in_loops = returns.iter().any(|(_, l)| l.is_some());

    // Loops left by a return, inner loops first: each merge block checks the flag.
    let mut left: Vec<usize> = returns.iter().filter_map(|(_, l)| *l).collect();
    let mut checks: Vec<(usize, Option<usize>)> = Vec::new(); // (merge block, outer loop)
    let mut k = 0;
    left.sort_unstable();
    left.dedup();
    let mut seen = left.clone();
    while k < left.len() {
        let l = left[k];
        k += 1;
        let merge = structure.constructs[l]
            .merge
            .ok_or("a return leaves a loop whose merge block is missing")?;
        let is_continue = f
            .blocks()
            .iter()
            .any(|b| b.merge.as_ref().and_then(Merge::continue_target) == Some(labels[merge]));
        if is_continue {
            return Err("a loop it returns from merges into a continue target".into());
        }
        if matches!(f.block(merge).merge, Some(Merge::Loop { .. })) {
            return Err("a loop it returns from merges into another loop's header".into());
        }
        let outer = structure.loop_of(merge);
        checks.push((merge, outer));
        if let Some(o) = outer {
            if !seen.contains(&o) {
                seen.push(o);
                left.push(o);
            }
        }
    }
    let _ = cfg;

    // Declarations.
    let fresh = |m: &mut Module| m.fresh_id().ok_or_else(out_of_ids);
    let (new_entry, header, cont, exit) = (fresh(m)?, fresh(m)?, fresh(m)?, fresh(m)?);
    // The new return stands for the old ones: it takes the location of the last of them.
    let return_loc = returns
        .last()
        .map(|&(b, _)| f.terminator(b).loc())
        .unwrap_or_default();
    let mut entry = Builder::detached(m);
    let bool_t = entry.bool_t()?;
    let (flag, retval) = if in_loops {
        let false_c = entry.cbool(false)?;
        let pb = entry.ptr(StorageClass::Function, bool_t)?;
        let flag = entry.variable(pb, Some(false_c))?;
        let retval = if void {
            None
        } else {
            let pr = entry.ptr(StorageClass::Function, ret_ty)?;
            Some(entry.variable(pr, None)?)
        };
        (Some(flag), retval)
    } else {
        (None, None)
    };
    let true_c = if in_loops {
        Some(entry.cbool(true)?)
    } else {
        None
    };
    let mut entry_insts = entry.take();

    // Returns become breaks, with the return's location.
    let mut phi_entries: Vec<Id> = Vec::new();
    let mut new_preds: FxHashMap<Id, Vec<Id>> = FxHashMap::default();
    for &(b, lp) in &returns {
        let t = f.terminator(b).clone();
        let value = (t.op() == Op::ReturnValue).then(|| t.arg(0)).flatten();
        let mut glue = Builder::detached_at(m, t.loc());
        match (lp, retval) {
            (None, None) => {
                if let Some(v) = value {
                    phi_entries.extend([v, labels[b]]);
                }
                glue.branch(exit);
            }
            (lp, rv) => {
                if let (Some(rv), Some(v)) = (rv, value) {
                    glue.store(rv, v);
                }
                if let (Some(flag), Some(t)) = (flag, true_c) {
                    glue.store(flag, t);
                }
                let target = match lp {
                    Some(l) => labels[structure.constructs[l].merge.expect("checked")],
                    None => exit,
                };
                glue.branch(target);
                new_preds.entry(target).or_default().push(labels[b]);
            }
        }
        for inst in glue.take() {
            f.append_inst(b, inst);
        }
        let branch = glue.take_terminator();
        f.set_terminator(b, branch);
    }

    // Flag checks at the merge blocks of loops a return leaves. Splitting moves blocks, so
    // they are found by label.
    for (merge, outer) in checks {
        let label = labels[merge];
        let target = match outer {
            Some(o) => labels[structure.constructs[o].merge.expect("checked")],
            None => exit,
        };
        let b = f.block_index(label).expect("a block");
        let phis = f.block_insts(b).take_while(|i| i.op() == Op::Phi).count();
        let rest = fresh(m)?;
        split_block(f, b, phis, rest).ok_or("a loop's merge block is a loop header")?;
        let mut check = Builder::at_end(m, f, b);
        let loaded = check.load(bool_t, flag.expect("in loops"))?;
        check.branch_cond(loaded, target, rest);
        new_preds.entry(target).or_default().push(label);
    }
    // Blocks that gained a predecessor: their phis take an undefined value from it.
    for (target, preds) in new_preds {
        let Some(tb) = f.block_index(target) else {
            continue;
        };
        let phis: Vec<_> = f.block(tb).insts.clone();
        for i in phis {
            if f.inst(i).op() != Op::Phi {
                break;
            }
            let ty = f.inst(i).ty().unwrap_or(0);
            let undef = m.undef(ty).ok_or_else(out_of_ids)?;
            for &p in &preds {
                rewrite::edit_args(f, i, |a| a.extend([undef, p]));
            }
        }
    }

    // The wrapper: a new entry with the variables, the loop header, its continue target and
    // the return block. The entry, header and continue target take the old entry's location
    // (the function's scope); the return block the returns'.
    let old_entry = f.block(0).label;
    let entry_loc = f.inst(f.block(0).terminator).loc();
    let vars: Vec<_> = f
        .block(0)
        .insts
        .iter()
        .copied()
        .take_while(|&i| f.inst(i).op() == Op::Variable)
        .collect();
    let moved: Vec<Inst> = vars.iter().map(|&i| f.inst(i).clone()).collect();
    let mut k = 0;
    f.retain_ids(0, |_, _| {
        k += 1;
        k > vars.len()
    });
    entry_insts.splice(0..0, moved);
    let mut ret = Builder::detached_at(m, return_loc);
    if void {
        ret.ret(None);
    } else {
        let rv = ret.fresh()?;
        match retval {
            Some(var) => ret.ids_as(Op::Load, Some(ret_ty), Some(rv), &[var]),
            None => ret.ids_as(Op::Phi, Some(ret_ty), Some(rv), &phi_entries),
        }
        ret.ret(Some(rv));
    }
    let (exit_insts, exit_term) = (ret.take(), ret.take_terminator());
    let mut glue = Builder::detached_at(m, entry_loc);
    glue.branch(header);
    let entry_term = glue.take_terminator();
    glue.branch(old_entry);
    let header_term = glue.take_terminator();
    glue.branch(header);
    let cont_term = glue.take_terminator();
    let entry_block = f.new_block(new_entry, entry_insts, None, entry_term);
    let header_block = f.new_block(
        header,
        vec![],
        Some(Merge::Loop {
            merge: exit,
            continue_target: cont,
            control: vec![Operand::LoopControl(spirv::LoopControl::NONE)],
        }),
        header_term,
    );
    let cont_block = f.new_block(cont, vec![], None, cont_term);
    let exit_block = f.new_block(exit, exit_insts, None, exit_term);
    rewrite::insert_blocks(f, 0, vec![entry_block, header_block]);
    let end = f.blocks().len();
    rewrite::insert_blocks(f, end, vec![cont_block, exit_block]);
    repair_ssa(m, f)?;
    Ok(true)
}

impl Pass for MergeReturn {
    fn name(&self) -> &'static str {
        "merge-return"
    }
    fn description(&self) -> &'static str {
        "give every function a single return at its end (returns in loops via a flag)"
    }
    fn run(&self, m: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let mut changed = false;
        let mut failed = Vec::new();
        for k in 0..m.functions().len() {
            if !needs_merge(&m.functions()[k]) {
                continue;
            }
            let mut f = Function::clone(&m.functions()[k]);
            match merge_returns(m, &mut f) {
                Ok(c) => {
                    changed |= c;
                    rewrite::restore_function(m, k, Arc::new(f));
                }
                Err(why) => failed.push((f.id(), why)),
            }
        }
        if !failed.is_empty() {
            let names = crate::ir::names::Names::for_module(m);
            for (id, why) in failed {
                cx.diagnostics.push(Diagnostic {
                    severity: Severity::Warning,
                    message: format!("%{} keeps its returns: {why}", names.get(id)),
                    function: Some(id),
                    at: None,
                    place: Some(format!("in %{}", names.get(id))),
                });
            }
        }
        Ok(changed.into())
    }
}
