//! `inline` and `inline-all`: replace function calls by the callee's body. Functions are
//! visited callees first (the call graph's bottom-up order), so a body is inlined once its own
//! calls are. At a call site the block is split after the call; the callee's blocks, cloned
//! under fresh ids with the parameters replaced by the arguments, go between the two halves;
//! the callee's return branches to the second half and its value replaces the call's result.
//!
//! A callee with several returns, or one inside a construct, is first given a single return
//! (`merge-return`, on a copy): a continuation can follow only one place, and a structured
//! branch may only leave a construct through its merge. The callee's variables move to the
//! caller's entry block, as SPIR-V wants; one with an initializer is initialized by a store
//! where the inlined body starts, so a call in a loop starts afresh each time.
//!
//! `inline` respects `DontInline` (the function control SPIR-V gives it); `inline-all`
//! inlines those too. Not inlined, each with a diagnostic naming the function and the
//! reason: recursive calls, calls to imported functions, callees whose returns cannot be
//! merged, and calls in a loop header whose branch has no room for the inlined body.

use rspirv::dr::Operand;
use spirv::{FunctionControl, Op};

use super::merge_return::merge_returns;
use crate::ir::analysis::CallGraph;
use crate::ir::debug::DebugSets;
use crate::ir::func::Function;
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::names::Names;
use crate::ir::rewrite::Builder;
use crate::ir::rewrite::{
    self, clone_body, out_of_ids, relocate, settle_declares, split_block, Decorations, InlineSite,
    Replacer,
};
use crate::ir::{Id, Inst, InstId, Module};
use crate::pipeline::pass::{Changed, Diagnostic, Pass, PassCx, PassError, Severity};

pub struct Inline {
    /// Inline `DontInline` functions too.
    pub force: bool,
}

/// What inlining left alone, and why.
pub struct Skipped {
    pub caller: Id,
    pub callee: Id,
    pub why: String,
}

fn dont_inline(f: &Function) -> bool {
    matches!(f.def().lits().first(), Some(Operand::FunctionControl(c)) if c.contains(FunctionControl::DONT_INLINE))
}

/// A callee ready to be copied in: single return, or the reason it cannot be.
type Template = Result<Function, String>;

pub fn inline(m: &mut Module, force: bool) -> Result<(bool, Vec<Skipped>), String> {
    inline_where(m, force, &|_| true)
}

/// Inlines the calls whose results `chosen` picks (the reducer inlines one at a time).
pub fn inline_where(
    m: &mut Module,
    force: bool,
    chosen: &dyn Fn(Id) -> bool,
) -> Result<(bool, Vec<Skipped>), String> {
    let cg = CallGraph::new(m);
    let mut templates: FxHashMap<Id, Template> = FxHashMap::default();
    let mut skipped = Vec::new();
    let mut replace = Replacer::new();
    let mut changed = false;
    let mut decorations = Decorations::of(m);
    let dsets = DebugSets::of(m);
    for &fi in &cg.bottom_up {
        if cg.callees[fi].is_empty() || m.functions()[fi].is_declaration() {
            continue;
        }
        let caller = m.functions()[fi].id();
        // The caller is taken out of the module while its calls are replaced, so templates
        // and ids can come from the module meanwhile (and it comes back on an error too).
        rewrite::with_function(m, fi, |m, f| {
            let mut refused: FxHashSet<InstId> = FxHashSet::default();
            let mut b = 0;
            while b < f.blocks().len() {
                let site = f.block(b).insts.iter().position(|&i| {
                    let inst = f.inst(i);
                    inst.op() == Op::FunctionCall
                        && !refused.contains(&i)
                        && inst.result().is_some_and(chosen)
                });
                let Some(pos) = site else {
                    b += 1;
                    continue;
                };
                let call_id = f.block(b).insts[pos];
                let call = f.inst(call_id).clone();
                let callee = call.arg(0).unwrap_or(0);
                let template = template_for(m, &cg, &mut templates, callee, force);
                let template = match template {
                    Ok(t) => t,
                    Err(why) => {
                        skipped.push(Skipped {
                            caller,
                            callee,
                            why,
                        });
                        refused.insert(call_id);
                        continue;
                    }
                };
                match inline_call(
                    m,
                    f,
                    b,
                    pos,
                    &call,
                    &template,
                    &mut replace,
                    &mut decorations,
                    &dsets,
                )? {
                    Some(next) => {
                        changed = true;
                        b = next;
                    }
                    None => {
                        skipped.push(Skipped {
                            caller,
                            callee,
                            why: "the call is in a loop header whose branch leaves no room".into(),
                        });
                        refused.insert(call_id);
                    }
                }
            }
            replace.apply_to_function(f);
            // A callee's parameter declared as a variable is now the caller's argument.
            settle_declares(m, f, &dsets).ok_or_else(out_of_ids)?;
            Ok::<(), String>(())
        })?;
        // Later callers inline this function as it is now.
        templates.remove(&caller);
    }
    replace.apply(m, "inline");
    Ok((changed, skipped))
}

/// The body to copy for a call to `callee`: its function with a single return.
fn template_for(
    m: &mut Module,
    cg: &CallGraph,
    templates: &mut FxHashMap<Id, Template>,
    callee: Id,
    force: bool,
) -> Result<Function, String> {
    if let Some(t) = templates.get(&callee) {
        return t.clone();
    }
    let t = (|| {
        let k = cg
            .index(callee)
            .ok_or("the callee is not a function of the module")?;
        if cg.recursive[k] {
            return Err("the callee is recursive".to_string());
        }
        let g = m.function(callee).ok_or("the callee is missing")?;
        if g.is_declaration() {
            return Err("the callee is imported (it has no body)".into());
        }
        if !force && dont_inline(g) {
            return Err("the callee is DontInline".into());
        }
        let mut g = g.clone();
        merge_returns(m, &mut g).map_err(|e| format!("its returns cannot be merged: {e}"))?;
        Ok(g)
    })();
    templates.insert(callee, t.clone());
    t
}

/// Inlines the call at `pos` of block `b`. Returns the block to go on scanning from (the
/// continuation), or `None` when the block cannot be split there.
#[allow(clippy::too_many_arguments)]
fn inline_call(
    m: &mut Module,
    f: &mut Function,
    b: usize,
    pos: usize,
    call: &Inst,
    g: &Function,
    replace: &mut Replacer,
    decorations: &mut Decorations,
    dsets: &DebugSets,
) -> Result<Option<usize>, String> {
    let call_loc = *f.location_of(f.block(b).insts[pos]);
    let after = m.fresh_id().ok_or_else(out_of_ids)?;
    let Some(a) = split_block(f, b, pos + 1, after) else {
        return Ok(None);
    };
    // Parameters are the arguments.
    let mut map: FxHashMap<Id, Id> = g
        .params()
        .iter()
        .filter_map(|p| p.result())
        .zip(call.args().iter().skip(1).copied())
        .collect();
    let mut fresh = || m.fresh_id();
    let mut blocks = clone_body(g, &mut map, &mut fresh).ok_or_else(out_of_ids)?;
    // The callee's `DebugFunctionDefinition` says where its own body is: not this copy. The
    // copy keeps the callee's lines, its scopes saying where it was inlined.
    if !dsets.is_empty() {
        for cb in &mut blocks {
            cb.insts
                .retain(|i| !dsets.is(i, crate::ir::debug::FUNCTION_DEFINITION));
        }
    }
    let mut site = InlineSite::new(m, dsets, &call_loc);
    let copied = blocks.iter_mut().flat_map(|cb| {
        cb.insts
            .iter_mut()
            .chain(std::iter::once(&mut cb.terminator))
    });
    relocate(copied, g, f, |loc| match &mut site {
        Some(site) => site.rebase(m, dsets, loc),
        None => Some(loc),
    })
    .ok_or_else(out_of_ids)?;
    // The copies are decorated as the callee's values are (`NonUniform`, `RelaxedPrecision`,
    // `NoContraction`, …); a parameter's decorations stay with it, not with the argument.
    let params: FxHashSet<Id> = g.params().iter().filter_map(|p| p.result()).collect();
    decorations.copy(
        m,
        map.iter()
            .filter(|(old, _)| !params.contains(old))
            .map(|(&old, &new)| (old, new)),
    );
    // The call leaves; its result is the returned value.
    f.remove_inst(b, pos);
    let mut returned = None;
    for cb in &mut blocks {
        match cb.terminator.op() {
            // The branch back is where the return was.
            Op::ReturnValue | Op::Return => {
                if cb.terminator.op() == Op::ReturnValue {
                    returned = cb.terminator.arg(0);
                }
                let mut back = Builder::detached_at(m, cb.terminator.loc());
                back.branch(after);
                cb.terminator = back.take_terminator();
            }
            _ => {}
        }
    }
    if let Some(r) = call.result() {
        let void = call
            .ty()
            .and_then(|t| m.global(t))
            .is_some_and(|t| t.op() == Op::TypeVoid);
        if !void {
            let value = match returned {
                Some(v) => v,
                // A callee that never returns: the continuation is unreachable.
                None => m.undef(call.ty().unwrap_or(0)).ok_or_else(out_of_ids)?,
            };
            replace.replace_in(f.id(), r, value);
        }
    }
    // The callee's variables join the caller's in its entry block; initializers become stores
    // where the body starts.
    let mut vars = Vec::new();
    if let Some(first) = blocks.first_mut() {
        let mut stores = Vec::new();
        let mut rest = Vec::with_capacity(first.insts.len());
        for mut v in std::mem::take(&mut first.insts) {
            if v.op() != Op::Variable {
                rest.push(v);
                continue;
            }
            if let (Some(var), Some(&init)) = (v.result(), v.args().first()) {
                let mut store = Builder::detached_at(m, v.loc());
                store.store(var, init);
                stores.extend(store.take());
                v = v.with_args_edited(|a| a.clear());
            }
            vars.push(v);
        }
        // Stores go where the variables were.
        rest.splice(0..0, stores);
        first.insts = rest;
    }
    let entry_label = blocks.first().map(|c| c.label);
    let count = blocks.len();
    let new: Vec<_> = blocks
        .into_iter()
        .map(|c| f.new_block(c.label, c.insts, c.merge, c.terminator))
        .collect();
    crate::ir::rewrite::insert_blocks(f, a, new);
    // The branch into the copy is where the call was.
    if let Some(entry) = entry_label {
        let mut branch = Builder::detached_at(m, f.locs.intern(call_loc));
        branch.branch(entry);
        f.set_terminator(b, branch.take_terminator());
    }
    let at = f
        .block_insts(0)
        .take_while(|i| i.op() == Op::Variable)
        .count();
    for (k, v) in vars.into_iter().enumerate() {
        f.insert_inst(0, at + k, v);
    }
    Ok(Some(a + count))
}

impl Pass for Inline {
    fn name(&self) -> &'static str {
        if self.force {
            "inline-all"
        } else {
            "inline"
        }
    }
    fn description(&self) -> &'static str {
        if self.force {
            "inline every call, DontInline functions included"
        } else {
            "inline every call the callee allows (not DontInline), callees first"
        }
    }
    fn run(&self, m: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let (changed, skipped) = inline(m, self.force).map_err(PassError)?;
        if !skipped.is_empty() {
            let names = Names::for_module(m);
            // One diagnostic per (caller, callee, reason).
            let mut seen = FxHashSet::default();
            for s in skipped {
                if !seen.insert((s.caller, s.callee, s.why.clone())) {
                    continue;
                }
                cx.diagnostics.push(Diagnostic {
                    severity: Severity::Note,
                    message: format!(
                        "calls of %{} in %{} stay: {}",
                        names.get(s.callee),
                        names.get(s.caller),
                        s.why
                    ),
                    function: Some(s.caller),
                    at: None,
                    place: Some(format!("in %{}", names.get(s.caller))),
                });
            }
        }
        Ok(changed.into())
    }
}
