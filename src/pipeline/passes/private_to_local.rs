//! `private-to-local`: a `Private` variable only one entry point function uses becomes a
//! `Function` variable of that function, so `sroa` and `mem2reg` can take it. An entry point
//! function runs once per invocation, so its own variable holds what the private one did —
//! which is why a function other calls reach keeps its privates (a second call would see the
//! first call's value). The variable keeps its id and initializer; access chains into it are
//! retyped to `Function` pointers; it leaves the entry point interfaces that list it (SPIR-V
//! 1.4 lists every global).
//!
//! Not moved: variables used by several functions, passed to calls, or used by pointer phis
//! and selects, and decorated ones (other than names and `RelaxedPrecision`).

use rspirv::dr::Operand;
use spirv::{Op, StorageClass};

use crate::ir::analysis::CallGraph;
use crate::ir::debug::{self, DebugSets};
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::rewrite;
use crate::ir::rewrite::{decorated_ids, out_of_ids, unname_in_records};
use crate::ir::types::pointer_type;
use crate::ir::{Id, Inst, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct PrivateToLocal;

pub fn private_to_local(m: &mut Module) -> Result<bool, String> {
    let privates: FxHashSet<Id> = m
        .globals()
        .iter()
        .filter(|g| {
            g.op() == Op::Variable
                && matches!(
                    g.lits().first(),
                    Some(Operand::StorageClass(StorageClass::Private))
                )
        })
        .filter_map(|g| g.result())
        .collect();
    if privates.is_empty() {
        return Ok(false);
    }
    let decorated = decorated_ids(m);
    // Where each private variable is used: the one function, or none.
    let mut home: FxHashMap<Id, Option<usize>> = FxHashMap::default();
    let mut note = |v: Id, f: Option<usize>| {
        home.entry(v)
            .and_modify(|h| {
                if *h != f {
                    *h = None
                }
            })
            .or_insert(f);
    };
    let dsets = DebugSets::of(m);
    for g in m.globals() {
        // A debug record of the variable does not keep it global: it names DebugInfoNone
        // once the variable is a function's.
        let described = debug::described_global(&dsets, g);
        for a in g.args().iter().filter(|&&a| Some(a) != described) {
            if privates.contains(a) {
                note(*a, None);
            }
        }
    }
    let cg = CallGraph::new(m);
    let entry_fns: FxHashSet<Id> = m.entry_points().iter().filter_map(|e| e.arg(0)).collect();
    for (k, f) in m.functions().iter().enumerate() {
        // Only entry point functions nobody calls run exactly once per invocation.
        let once = entry_fns.contains(&f.id()) && cg.call_sites[k] == 0;
        // Pointers into a private variable, by the variable (blocks are in dominance order,
        // so a chain's base comes before the chain).
        let mut root: FxHashMap<Id, Id> = FxHashMap::default();
        for i in f.body() {
            if let (Op::AccessChain | Op::InBoundsAccessChain, Some(r), Some(b)) =
                (i.op(), i.result(), i.args().first())
            {
                let base = if privates.contains(b) {
                    Some(*b)
                } else {
                    root.get(b).copied()
                };
                if let Some(v) = base {
                    root.insert(r, v);
                }
            }
        }
        // A declare or value of a variable does not keep it global (see below).
        for i in f.body().filter(|i| !dsets.is_debug_only(i)) {
            for (n, a) in i.args().iter().enumerate() {
                let var = if privates.contains(a) {
                    *a
                } else if let Some(&v) = root.get(a) {
                    v
                } else {
                    continue;
                };
                let plain = match i.op() {
                    Op::Load | Op::AccessChain | Op::InBoundsAccessChain => n == 0,
                    Op::Store => n == 0 && i.args().get(1) != Some(a),
                    Op::CopyMemory => n <= 1,
                    _ => false,
                };
                note(var, if plain && once { Some(k) } else { None });
            }
        }
    }
    let mut moved: Vec<(Id, usize)> = home
        .into_iter()
        .filter(|(v, _)| !decorated.contains(v))
        .filter_map(|(v, h)| Some((v, h?)))
        .collect();
    moved.sort_unstable();
    if moved.is_empty() {
        return Ok(false);
    }
    let moved_ids: FxHashSet<Id> = moved.iter().map(|(v, _)| *v).collect();
    // A declare or value of a moved variable in another function than its new home would name
    // another function's variable: it goes.
    let home_of: FxHashMap<Id, usize> = moved.iter().copied().collect();
    for k in 0..m.functions().len() {
        let elsewhere = |i: &Inst| {
            dsets.is_debug_only(i)
                && i.args()
                    .iter()
                    .any(|a| home_of.get(a).is_some_and(|&h| h != k))
        };
        if m.functions()[k].body().any(elsewhere) {
            rewrite::function_at_mut(m, k).retain_all(|i| !elsewhere(i));
        }
    }
    unname_in_records(m, &moved_ids);
    // The variables leave the globals and the interfaces…
    let mut defs: FxHashMap<Id, Inst> = FxHashMap::default();
    crate::ir::rewrite::retain_globals(m, |g| match g.result() {
        Some(r) if moved_ids.contains(&r) => {
            defs.insert(r, g.clone());
            false
        }
        _ => true,
    });
    rewrite::retain_interfaces(m, |a| !moved_ids.contains(&a));
    // …and enter their function's entry block as Function variables.
    for (v, fi) in &moved {
        let def = &defs[v];
        let (_, pointee) =
            pointer_type(m, def.ty().unwrap_or(0)).ok_or("a variable without a pointer type")?;
        let ptr = function_pointer(m, pointee)?;
        let var = def
            .clone()
            .retyped(Some(ptr))
            .with_lit(0, Operand::StorageClass(StorageClass::Function));
        let f = rewrite::function_at_mut(m, *fi);
        let at = f
            .block_insts(0)
            .take_while(|i| i.op() == Op::Variable)
            .count();
        f.insert_inst(0, at, var);
    }
    // Access chains into them point to Function memory now.
    for fi in moved.iter().map(|(_, f)| *f).collect::<FxHashSet<_>>() {
        let mut from: FxHashSet<Id> = moved
            .iter()
            .filter(|(_, f)| *f == fi)
            .map(|(v, _)| *v)
            .collect();
        let chains: Vec<(InstId, Id)> = {
            let f = &m.functions()[fi];
            let mut out = Vec::new();
            // Blocks are in dominance order, so a chain's base is seen before the chain.
            for (_, i) in f.layout() {
                let inst = f.inst(i);
                if matches!(inst.op(), Op::AccessChain | Op::InBoundsAccessChain)
                    && inst.args().first().is_some_and(|b| from.contains(b))
                {
                    if let (Some(r), Some(t)) = (inst.result(), inst.ty()) {
                        from.insert(r);
                        out.push((i, t));
                    }
                }
            }
            out
        };
        for (i, t) in chains {
            let (_, pointee) = pointer_type(m, t).ok_or("a chain without a pointer type")?;
            let ptr = function_pointer(m, pointee)?;
            rewrite::retype(rewrite::function_at_mut(m, fi), i, Some(ptr));
        }
    }
    m.reindex();
    Ok(true)
}

fn function_pointer(m: &mut Module, pointee: Id) -> Result<Id, String> {
    m.pointer_to(StorageClass::Function, pointee)
        .ok_or_else(out_of_ids)
}

impl Pass for PrivateToLocal {
    fn name(&self) -> &'static str {
        "private-to-local"
    }
    fn description(&self) -> &'static str {
        "private variables only an entry point function uses become its function variables"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, m: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        private_to_local(m).map(Changed::from).map_err(PassError)
    }
}
