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
use crate::ir::func::{Function, InstId};
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

/// Debug info in a function body that describes code without being code: location markers,
/// `DebugDeclare`/`DebugValue`, the function's `DebugFunctionDefinition`. Passes that weigh or
/// move code do not count it.
pub fn is_debug_only(inst: &Inst, sets: &DebugSets) -> bool {
    marker(inst, sets).is_some()
        || sets.is_debug_use(inst)
        || sets.is(inst, debug::FUNCTION_DEFINITION)
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
fn drop_debug_uses_of(f: &mut Function, sets: &DebugSets, gone: &FxHashSet<Id>) {
    f.retain_all(|i| {
        !(sets.is_debug_use(i)
            && i.arg(debug::ARG_DESCRIBED)
                .is_some_and(|d| gone.contains(&d)))
    });
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
fn say_undefined(m: &mut Module, f: &mut Function, i: InstId, ty: Id) -> Option<()> {
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

/// The markers in force before position `pos` of block `b`, by family (`Marker as usize`):
/// the last `OpLine`, `DebugLine` and `DebugScope` (a `No…` marker ends its family's; each
/// block starts with none).
pub fn in_force(f: &Function, b: usize, pos: usize, sets: &DebugSets) -> [Option<Inst>; 3] {
    let mut found: [Option<Inst>; 3] = [None, None, None];
    for &i in f.block(b).insts.iter().take(pos) {
        let inst = f.inst(i);
        let Some(kind) = marker(inst, sets) else {
            continue;
        };
        let ends = inst.op == Op::NoLine
            || sets.is(inst, debug::NO_LINE)
            || sets.is(inst, debug::NO_SCOPE);
        found[kind as usize] = (!ends).then(|| inst.clone());
    }
    found
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
    /// The site of a call whose scope and line in force are `scope` and `line`; `None` when
    /// there is none to say (no `DebugScope`/`DebugLine` of `NonSemantic.Shader.DebugInfo.100`,
    /// whose `DebugInlinedAt` takes a line id) or no id is left.
    pub fn new(m: &mut Module, sets: &DebugSets, scope: &Inst, line: &Inst) -> Option<Self> {
        let shader = |i: &Inst| sets.op(i).is_some_and(|(f, _)| f == debug::Flavor::Shader);
        if !(shader(scope)
            && shader(line)
            && sets.is(scope, debug::SCOPE)
            && sets.is(line, debug::LINE))
        {
            return None;
        }
        let (&set, &lexical) = (scope.args.first()?, scope.args.get(1)?);
        let &line_start = line.args.get(2)?;
        let mut args = vec![set, line_start, lexical];
        args.extend(scope.args.get(2));
        let at = inlined_at(m, scope.ty, args)?;
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

    /// Gives every `DebugScope` of `insts` (an inlined copy) this call as where it was
    /// inlined. Returns `None` when no id is left.
    pub fn rebase(&mut self, m: &mut Module, sets: &DebugSets, insts: &mut [Inst]) -> Option<()> {
        for i in insts.iter_mut().filter(|i| sets.is(i, debug::SCOPE)) {
            let at = self.chain(m, sets, i.args.get(2).copied())?;
            i.args.truncate(2);
            i.args.push(at);
        }
        Some(())
    }
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
            .take_while(|i| {
                i.op == Op::Variable
                    || marker(i, sets).is_some()
                    || sets.is(i, debug::FUNCTION_DEFINITION)
            })
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
