//! Keeping debug info right while code moves and goes.
//!
//! Source locations are attributes of instructions (`ir::loc`): code that moves takes its
//! location along, and the writer says them with the fewest markers. What is left here is
//! moving code between functions (`relocate`, `InlineSite` for inlined scopes).
//!
//! `DebugDeclare`/`DebugValue` are not uses (see `ir::debug`): a pass may delete what they
//! describe, and they then go with it.

use spirv::Op;

use crate::ir::debug::{self, DebugSets};
use crate::ir::func::{Function, InstId};
use crate::ir::fxhash::FxHashSet;
use crate::ir::inst::{Id, Inst};
use crate::ir::loc::{Loc, Location};
use crate::ir::module::Module;

/// Debug info in a function body that describes code without being code: `DebugDeclare`/
/// `DebugValue` and the function's `DebugFunctionDefinition` (locations are no instructions,
/// see `ir::loc`). Passes that weigh or move code do not count it.
pub fn is_debug_only(inst: &Inst, sets: &DebugSets) -> bool {
    sets.is_debug_only(inst)
}

/// Removes from `f` the `DebugDeclare`s (and unless `declares_only`, the `DebugValue`s) that
/// describe an id of `gone`.
fn drop_debug_uses_of(
    f: &mut Function,
    sets: &DebugSets,
    gone: &FxHashSet<Id>,
    declares_only: bool,
) {
    f.retain_all(|i| {
        let kind = if declares_only {
            sets.is(i, debug::DECLARE)
        } else {
            sets.is_debug_use(i)
        };
        !(kind
            && i.arg(debug::ARG_DESCRIBED)
                .is_some_and(|d| gone.contains(&d)))
    });
}

/// Removes, in every function of `m`, the `DebugDeclare`s and `DebugValue`s that describe an
/// id of `gone`.
pub fn drop_debug_uses_in_module(m: &mut Module, gone: &FxHashSet<Id>) {
    drop_debug_uses_where(m, gone, false);
}

/// `drop_debug_uses_in_module` for values replaced by others: a `DebugValue` stays, to
/// describe the replacement once uses are rewritten; a `DebugDeclare` goes, as a replacement
/// need not be a variable.
pub fn drop_debug_declares_in_module(m: &mut Module, gone: &FxHashSet<Id>) {
    drop_debug_uses_where(m, gone, true);
}

fn drop_debug_uses_where(m: &mut Module, gone: &FxHashSet<Id>, declares_only: bool) {
    let sets = DebugSets::of(m);
    if sets.is_empty() || gone.is_empty() {
        return;
    }
    for k in 0..m.functions().len() {
        drop_debug_uses_of(m.function_at_mut(k), &sets, gone, declares_only);
    }
}

/// What defines `id` for `f`: one of its values, one of its parameters or a global.
fn definition<'a>(m: &'a Module, f: &'a Function, id: Id) -> Option<&'a Inst> {
    f.def_of(id)
        .or_else(|| f.params.iter().find(|p| p.result == Some(id)))
        .or_else(|| m.global(id))
}

/// The type of the value a declare or value record says its variable holds, given the type of
/// what it names (a declare names the variable: its pointee).
fn described_type(m: &Module, sets: &DebugSets, record: &Inst, named: Id) -> Option<Id> {
    if sets.is(record, debug::DECLARE) {
        crate::ir::types::pointer_type(m, named).map(|(_, pointee)| pointee)
    } else {
        Some(named)
    }
}

/// The records of `f` for which `pick` holds, in layout order.
fn records(f: &Function, pick: impl Fn(&Inst) -> bool) -> Vec<InstId> {
    f.layout()
        .map(|(_, i)| i)
        .filter(|&i| pick(f.inst(i)))
        .collect()
}

/// Makes record `i` (a declare or value) a `DebugValue` saying its variable holds an undefined
/// value of type `ty`; when the module may not have an `OpUndef` of `ty` (an 8- or 16-bit type
/// without its capability), the record goes instead. `None` when no id is left.
pub(crate) fn say_undefined(m: &mut Module, f: &mut Function, i: InstId, ty: Id) -> Option<()> {
    let result = f.inst(i).result;
    if !m.constant_allowed(ty) {
        f.retain_all(|x| x.result != result);
        return Some(());
    }
    let undef = m.undef(ty)?;
    let value = debug::value_from_declare(f.inst(i), undef, result.unwrap_or(0));
    f.replace_inst(i, value);
    Some(())
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
    for i in records(f, |r| sets.is_debug_use(r)) {
        let record = f.inst(i);
        let Some(&named) = record.arg(debug::ARG_DESCRIBED).and_then(|d| dead.get(&d)) else {
            continue;
        };
        if let Some(ty) = described_type(m, sets, record, named) {
            say_undefined(m, f, i, ty)?;
            changed = true;
        }
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
    let mut changed = false;
    for i in records(f, |r| sets.is(r, debug::DECLARE)) {
        let record = f.inst(i);
        let Some(d) = record.arg(debug::ARG_DESCRIBED) else {
            continue;
        };
        let Some(def) = definition(m, f, d) else {
            continue;
        };
        if matches!(def.op, Op::Variable | Op::FunctionParameter) {
            continue;
        }
        let Some(ty) = def.ty else { continue };
        match described_type(m, sets, record, ty) {
            // A pointer that is no variable: what it points to is not said.
            Some(pointee) => say_undefined(m, f, i, pointee)?,
            // A value in a parameter's place: it is what the variable holds.
            None => {
                let value = debug::value_from_declare(record, d, record.result.unwrap_or(0));
                f.replace_inst(i, value);
            }
        }
        changed = true;
    }
    Some(changed)
}

/// Where inlined code came from: the call's scope and line, made into `DebugInlinedAt`
/// records that the inlined copy's scopes point to.
pub struct InlineSite {
    /// The record for the call itself.
    at: Id,
    /// Records of the callee's own inlined code, re-made to end at `at`.
    rebased: crate::ir::fxhash::FxHashMap<Id, Id>,
}

impl InlineSite {
    /// The site of a call at `call`; `None` when there is none to say (no `DebugScope` and
    /// `DebugLine` of `NonSemantic.Shader.DebugInfo.100`, whose `DebugInlinedAt` takes a line
    /// id) or no id is left.
    pub fn new(m: &mut Module, sets: &DebugSets, call: &Location) -> Option<Self> {
        let (scope, line) = (call.scope?, call.debug_line?);
        if sets.flavor(scope.set) != Some(debug::Flavor::Shader) {
            return None;
        }
        let mut args = vec![scope.set, line.lines[0], scope.scope];
        args.extend(scope.inlined_at);
        let at = inlined_at(m, Some(scope.ty), args)?;
        Some(InlineSite {
            at,
            rebased: Default::default(),
        })
    }

    /// The inlined-at record for a scope of the inlined copy that was inlined at `old` in the
    /// callee (`None`: the callee's own code): the chain of `old` ending at this call.
    fn chain(&mut self, m: &mut Module, sets: &DebugSets, old: Option<Id>) -> Option<Id> {
        let Some(old) = old else {
            return Some(self.at);
        };
        if let Some(&r) = self.rebased.get(&old) {
            return Some(r);
        }
        let record = m
            .global(old)
            .filter(|g| sets.is(g, debug::INLINED_AT))?
            .clone();
        let parent = self.chain(m, sets, record.args.get(3).copied())?;
        let mut args = record.args[..3.min(record.args.len())].to_vec();
        args.push(parent);
        let r = inlined_at(m, record.ty, args)?;
        self.rebased.insert(old, r);
        Some(r)
    }

    /// Where a location of the callee is in the inlined copy: its scope inlined at this call.
    /// `None` when no id is left.
    pub fn rebase(
        &mut self,
        m: &mut Module,
        sets: &DebugSets,
        mut loc: Location,
    ) -> Option<Location> {
        if let Some(s) = &mut loc.scope {
            s.inlined_at = Some(self.chain(m, sets, s.inlined_at)?);
        }
        Some(loc)
    }
}

/// Gives `insts`, instructions copied from `from` into `to`, locations of `to`'s table: each
/// the one it had in `from`, passed through `map` (`None` from `map`: stop, no id left).
pub fn relocate<'a>(
    insts: impl Iterator<Item = &'a mut Inst>,
    from: &Function,
    to: &mut Function,
    mut map: impl FnMut(Location) -> Option<Location>,
) -> Option<()> {
    let mut moved: crate::ir::fxhash::FxHashMap<Loc, Loc> = Default::default();
    for i in insts {
        let loc = match moved.get(&i.loc) {
            Some(&l) => l,
            None => {
                let l = to.locs.intern(map(*from.location(i.loc))?);
                moved.insert(i.loc, l);
                l
            }
        };
        i.loc = loc;
    }
    Some(())
}

/// A new `DebugInlinedAt` global with `args` (the set's import first).
fn inlined_at(m: &mut Module, ty: Option<Id>, args: Vec<Id>) -> Option<Id> {
    let (&set, rest) = args.split_first()?;
    let id = m.fresh_id()?;
    m.push_global(debug::record(ty, id, set, debug::INLINED_AT, rest));
    Some(id)
}

/// The local variables a function's `DebugDeclare`s and `DebugValue`s describe, each with one
/// of its records and the type of its value: taken before a pass removes blocks, so that a
/// variable whose every record went with them is still described after (its value optimized
/// out), as it was before.
pub struct Described(Vec<(Id, Inst, Id)>);

impl Described {
    pub fn of(m: &Module, f: &Function, sets: &DebugSets) -> Self {
        let mut seen = FxHashSet::default();
        let mut out = Vec::new();
        if sets.is_empty() {
            return Described(out);
        }
        for inst in f.body().filter(|i| sets.is_debug_use(i)) {
            let (Some(var), Some(d)) = (
                inst.arg(debug::ARG_VARIABLE),
                inst.arg(debug::ARG_DESCRIBED),
            ) else {
                continue;
            };
            if seen.contains(&var) {
                continue;
            }
            let ty = definition(m, f, d)
                .and_then(|def| def.ty)
                .and_then(|t| described_type(m, sets, inst, t));
            if let Some(ty) = ty {
                seen.insert(var);
                out.push((var, inst.clone(), ty));
            }
        }
        Described(out)
    }

    /// Says again, at the start of `f`, that each variable no longer described has an
    /// undefined value. Returns whether anything was added (`None`: no id left).
    pub fn restore(self, m: &mut Module, f: &mut Function, sets: &DebugSets) -> Option<bool> {
        if self.0.is_empty() || f.is_declaration() {
            return Some(false);
        }
        let still: FxHashSet<Id> = f
            .body()
            .filter(|i| sets.is_debug_use(i))
            .filter_map(|i| i.arg(debug::ARG_VARIABLE))
            .collect();
        // After the entry block's variables and the records that open the function's scope.
        let at = f
            .block_insts(0)
            .take_while(|i| i.op == Op::Variable || sets.is(i, debug::FUNCTION_DEFINITION))
            .count();
        let mut added = 0;
        for (var, record, ty) in self.0 {
            if still.contains(&var) {
                continue;
            }
            // An 8- or 16-bit value the module may not have an `OpUndef` of is not said.
            if !m.constant_allowed(ty) {
                continue;
            }
            let undef = m.undef(ty)?;
            let id = m.fresh_id()?;
            f.insert_inst(0, at + added, debug::value_from_declare(&record, undef, id));
            added += 1;
        }
        Some(added > 0)
    }
}

/// `prune_unreachable` for a function taken out of `m`, keeping every local variable that was
/// described still described (see `Described`). Returns the ids that went.
pub fn prune_unreachable_in(m: &mut Module, f: &mut Function) -> Vec<Id> {
    let sets = DebugSets::of(m);
    let described = Described::of(m, f, &sets);
    let mut undef = |ty: Id| m.undef(ty).unwrap_or(0);
    let pruned = super::prune_unreachable(f, &mut undef);
    if !pruned.is_empty() {
        described.restore(m, f, &sets);
    }
    pruned
}

/// Module-level debug records that name a global variable or a function of `gone` (deleted,
/// or no longer global) name `DebugInfoNone` instead: `DebugGlobalVariable`'s variable,
/// `OpenCL.DebugInfo.100` `DebugFunction`'s function. (`NonSemantic.Shader.DebugInfo.100`
/// names a function only in its `DebugFunctionDefinition`, which goes with the body.)
pub fn unname_in_records(m: &mut Module, gone: &FxHashSet<Id>) {
    let sets = DebugSets::of(m);
    if sets.is_empty() || gone.is_empty() {
        return;
    }
    let names_globals =
        |g: &Inst| sets.is(g, debug::GLOBAL_VARIABLE) || sets.is(g, debug::FUNCTION);
    let names_gone = |g: &Inst| names_globals(g) && g.args.iter().skip(1).any(|a| gone.contains(a));
    let Some(first) = m.globals().iter().position(names_gone) else {
        return;
    };
    let none = match m
        .globals()
        .iter()
        .position(|g| sets.is(g, debug::INFO_NONE))
    {
        // Defined before its first user.
        Some(p) => {
            if p > first {
                let record = m.globals_mut().remove(p);
                m.globals_mut().insert(first, record);
            }
            m.globals()[first.min(p)].result
        }
        None => {
            let record = &m.globals()[first];
            let (ty, Some(set)) = (record.ty, record.arg(0)) else {
                return;
            };
            let Some(id) = m.fresh_id() else { return };
            let none = debug::record(ty, id, set, debug::INFO_NONE, &[]);
            m.globals_mut().insert(first, none);
            Some(id)
        }
    };
    let Some(none) = none else { return };
    for g in m.globals_mut() {
        if names_globals(g) {
            for a in g.args.iter_mut().skip(1) {
                if gone.contains(a) {
                    *a = none;
                }
            }
        }
    }
}
