//! The rewrite kit: the ways passes change the IR beyond `Function`'s own methods, written once.
//!
//! - `Replacer`: replace all uses of values by others (recorded as `old → new` with the pass in
//!   `Module::replacements`, which a value's history across passes is built from);
//! - `forget`: the names and decorations of ids that no longer exist leave with them;
//! - `remove_insts`: instructions leave a function, their results noted for `forget`;
//! - `Builder`: emits instructions at a place in a function or into a list, declaring the
//!   types and constants they need (`cursor.rs`);
//! - `split_block`, `merge_into_predecessor`, `join_blocks` (all at once, in linear time):
//!   change blocks keeping phis and merge annotations
//!   right (`blocks.rs`);
//! - `clone_body`: a copy of a function's body under fresh ids (`clone.rs`);
//! - `drop_debug_uses_in_module`, `relocate`, `InlineSite`: debug info kept right as values go
//!   and code moves between functions (`debug.rs`).
//! - `retype`, `edit_args`, `set_lit`, `insert_blocks`, `take_blocks`, `move_insts`,
//!   `freeze_spec_constants`, and the retain/take/append of globals, annotations and
//!   functions; `Inst::retyped`/`renamed`/`with_arg`/`with_lit`/`remapped`/
//!   `with_args_edited` for copies (`change.rs`);
//! - the preamble, entry points and their interfaces, execution modes, the debug sections,
//!   and a function's signature and debug lines (`sections.rs`);
//! - `function_at_mut`, `with_function`, `edit_functions`, ...: a function handed out to
//!   change, and `remap_ids` renaming a whole module (`functions.rs`);
//! - `reshape_aggregate`, `reshape_composites`: a struct or array type and its composites
//!   changing shape together (`reshape.rs`).
//!
//! Outside `ir` an instruction's fields and `&mut self` methods, the sections of modules and
//! functions, and the in-place accessors (`Function::inst_mut`, `blocks_mut`,
//! `Module::globals_mut`, `functions_mut`, ...) are private: reading is open, changing goes
//! through here. Interned constants are never rewritten in place: a constant of another shape
//! is interned anew and its uses replaced (`Replacer` then renames it inside the composites
//! that hold it, as it renames every use).

mod blocks;
mod change;
mod clone;
mod cursor;
mod debug;
mod edits;
mod functions;
mod join;
mod reshape;
mod sections;
mod ssa;

pub use blocks::{
    fold_branch, merge_into_predecessor, mergeable_into_predecessor, prune_unreachable,
    redirect_phis, remove_phi_incoming, split_block,
};
pub use change::{
    append_annotations, append_functions, append_globals, edit_annotations, edit_args,
    freeze_spec_constants, insert_blocks, move_global_before, move_insts, reorder_globals,
    restore_function, retain_annotations, retain_functions, retain_globals, retype, set_lit,
    take_annotations, take_blocks, take_functions, take_globals,
};
pub use clone::{clone_body, ClonedBlock};
pub use cursor::{out_of_ids, rewrite_inst, Builder};
pub use debug::{
    drop_debug_uses_in_module, is_debug_only, prune_unreachable_in, relocate, settle_declares,
    undefine_debug_uses, unname_in_records, Described, InlineSite,
};
pub use edits::Edits;
pub use functions::{
    edit_functions, function_at_mut, function_mut, functions_mut, remap_ids, with_function,
};
pub use join::{join_blocks, JoinState};
pub use reshape::{reshape_aggregate, reshape_composites};
pub use sections::{
    add_interface, add_to_preamble, append_sections, drop_member_info, remove_entry_point,
    retain_debug, retain_execution_modes, retain_function_debug, retain_interface,
    retain_interfaces, retain_preamble, retain_trailing_debug, retype_param, set_function_type,
    set_return_type,
};
pub use ssa::repair_ssa;

use spirv::Op;

use super::func::{Function, InstId};
use super::fxhash::{FxHashMap, FxHashSet};
use super::inst::{Id, Inst};
use super::module::{Module, Replacement};

/// Instructions whose references are bookkeeping about an id, not uses of it.
pub fn is_metadata(op: Op) -> bool {
    matches!(
        op,
        Op::Name
            | Op::MemberName
            | Op::Decorate
            | Op::MemberDecorate
            | Op::DecorateId
            | Op::DecorateString
            | Op::MemberDecorateString
            | Op::GroupDecorate
            | Op::GroupMemberDecorate
            | Op::DecorationGroup
    )
}

/// Values to replace by others, collected while a pass looks and applied in one sweep.
#[derive(Default, Debug)]
pub struct Replacer {
    map: FxHashMap<Id, Id>,
    /// The function each replaced value was local to, when known.
    local_to: FxHashMap<Id, Id>,
}

impl Replacer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Records that `old` is to be replaced by `new` (or by what `new` is already replaced
    /// by). A replacement that would make a cycle is refused; returns whether it was recorded.
    pub fn replace(&mut self, old: Id, new: Id) -> bool {
        let new = self.resolve(new);
        if new == old {
            return false;
        }
        self.map.insert(old, new);
        true
    }

    /// `replace` for a value local to function `f`.
    pub fn replace_in(&mut self, f: Id, old: Id, new: Id) -> bool {
        let done = self.replace(old, new);
        if done {
            self.local_to.insert(old, f);
        }
        done
    }

    /// What `id` stands for now: the end of its chain of replacements.
    pub fn resolve(&self, mut id: Id) -> Id {
        for _ in 0..=self.map.len() {
            match self.map.get(&id) {
                Some(&next) if next != id => id = next,
                _ => break,
            }
        }
        id
    }

    pub fn is_replaced(&self, id: Id) -> bool {
        self.map.contains_key(&id)
    }

    /// The replaced ids.
    pub fn replaced(&self) -> impl Iterator<Item = Id> + '_ {
        self.map.keys().copied()
    }

    /// Rewrites the uses in one instruction; returns whether any changed.
    pub fn rewrite(&self, inst: &mut Inst) -> bool {
        let mut changed = false;
        for a in &mut inst.args {
            let r = self.resolve(*a);
            if r != *a {
                *a = r;
                changed = true;
            }
        }
        changed
    }

    /// Rewrites the uses in instruction `i` of `f` (leaving `f` untouched when there are
    /// none); returns whether any changed.
    pub fn rewrite_inst(&self, f: &mut Function, i: InstId) -> bool {
        if f.inst(i).args.iter().any(|a| self.map.contains_key(a)) {
            f.map_args(i, |a| self.resolve(a))
        } else {
            false
        }
    }

    /// Rewrites every use in the body of `f` (for values local to it, this is all of them).
    pub fn apply_to_function(&self, f: &mut Function) {
        if self.map.is_empty() {
            return;
        }
        let ids: Vec<_> = f.layout().map(|(_, i)| i).collect();
        for i in ids {
            self.rewrite_inst(f, i);
        }
    }

    /// Replaces every use in the module — operands of every instruction, except the targets
    /// of names and decorations, which are about the replaced value and leave with it — and
    /// records each replacement as made by `pass`.
    pub fn apply(self, m: &mut Module, pass: &'static str) {
        if self.map.is_empty() {
            return;
        }
        let gone: FxHashSet<Id> = self.map.keys().copied().collect();
        self.carry_decorations(m);
        forget_replaced(m, &gone);
        for section in [
            &mut m.preamble,
            &mut m.entry_points,
            &mut m.execution_modes,
            &mut m.debug,
        ] {
            for i in section.iter_mut() {
                self.rewrite(i);
            }
        }
        for a in m.annotations_mut() {
            self.rewrite(a);
        }
        for g in m.globals_mut() {
            self.rewrite(g);
        }
        for f in m.functions_mut() {
            for p in f.params.iter_mut() {
                self.rewrite(p);
            }
            self.apply_to_function(f);
        }
        let mut records: Vec<Replacement> = self
            .map
            .keys()
            .map(|&old| Replacement {
                old,
                new: self.resolve(old),
                function: self.local_to.get(&old).copied(),
                pass,
            })
            .collect();
        records.sort_by_key(|r| r.old);
        m.replacements.extend(records);
    }
}

impl Replacer {
    /// Decorations that make a value's uses stricter move to its replacement: `NonUniform`
    /// (a descriptor index or sampled image that may differ between invocations; losing it
    /// would make the access undefined) and `NoContraction` (the value must not be fused into
    /// a multiply-add). Both only restrict what the replacement's other uses may do, so adding
    /// them is always safe. `RelaxedPrecision` does not move (it would relax the
    /// replacement's other uses) and goes with the replaced value, which only asks for full
    /// precision. Constants take none: they are uniform, and computed by no instruction.
    fn carry_decorations(&self, m: &mut Module) {
        use rspirv::dr::Operand;
        use spirv::Decoration;
        let mut carried: Vec<(Id, Decoration)> = Vec::new();
        for a in m.annotations() {
            let (Op::Decorate, Some(old), [Operand::Decoration(d)]) = (a.op, a.arg(0), a.lits())
            else {
                continue;
            };
            if !matches!(d, Decoration::NonUniform | Decoration::NoContraction) {
                continue;
            }
            if !self.map.contains_key(&old) {
                continue;
            }
            let new = self.resolve(old);
            if m.global(new).is_none() {
                carried.push((new, *d));
            }
        }
        carried.sort_by_key(|&(id, d)| (id, d as u32));
        carried.dedup();
        carried.retain(|&(new, d)| {
            !m.decorations_of(new).any(|a| {
                a.op == Op::Decorate && matches!(a.lits(), [Operand::Decoration(x)] if *x == d)
            })
        });
        for (new, d) in carried {
            m.annotations_mut().push(Inst::new(
                Op::Decorate,
                None,
                None,
                vec![Operand::IdRef(new), Operand::Decoration(d)],
            ));
        }
    }
}

/// Ids with decorations a pass that moves or splits them could lose, for passes that leave
/// those alone. `RelaxedPrecision` is not one of them: without it a value is only computed
/// more precisely (and `mem2reg` gives it to the phis of the variables it promotes).
pub fn decorated_ids(m: &Module) -> FxHashSet<Id> {
    m.annotations()
        .iter()
        .filter(|a| {
            !(a.op == Op::Decorate
                && matches!(
                    a.lits(),
                    [rspirv::dr::Operand::Decoration(
                        spirv::Decoration::RelaxedPrecision
                    )]
                ))
        })
        .filter_map(|a| a.arg(0))
        .collect()
}

/// Names and decorations of ids that no longer exist leave the module; a decoration group
/// loses them from its target lists; the `DebugDeclare`s and `DebugValue`s describing them go
/// from the module's functions (call it once every function is back in the module).
pub fn forget(m: &mut Module, gone: &FxHashSet<Id>) {
    forget_with(m, gone, false);
}

/// `forget` for values replaced by others (`Replacer::apply`): their `DebugValue`s stay, to
/// follow the replacement.
fn forget_replaced(m: &mut Module, gone: &FxHashSet<Id>) {
    forget_with(m, gone, true);
}

fn forget_with(m: &mut Module, gone: &FxHashSet<Id>, replaced: bool) {
    if gone.is_empty() {
        return;
    }
    let about_gone = |i: &Inst| i.arg(0).is_some_and(|t| gone.contains(&t));
    m.debug
        .retain(|i| !(matches!(i.op, Op::Name | Op::MemberName) && about_gone(i)));
    m.annotations_mut()
        .retain(|i| !(is_metadata(i.op) && i.op != Op::DecorationGroup && about_gone(i)));
    for a in m.annotations_mut() {
        if matches!(a.op, Op::GroupDecorate | Op::GroupMemberDecorate) {
            let group = a.arg(0);
            let mut ops = a.to_operands();
            let mut k = 1;
            // GroupDecorate: targets; GroupMemberDecorate: (target, member) pairs.
            let step = if a.op == Op::GroupDecorate { 1 } else { 2 };
            while k < ops.len() {
                let dead = matches!(ops[k], rspirv::dr::Operand::IdRef(t) if gone.contains(&t));
                if dead {
                    ops.drain(k..(k + step).min(ops.len()));
                } else {
                    k += step;
                }
            }
            if group.is_some() {
                a.set_operands(ops);
            }
        }
    }
    drop_unapplied_groups(m);
    m.attributes.retain(|id, _| !gone.contains(id));
    if replaced {
        debug::drop_debug_declares_in_module(m, gone);
    } else {
        drop_debug_uses_in_module(m, gone);
        unname_in_records(m, gone);
    }
}

/// Decoration groups applied to nothing leave the module with their decorations, and so do
/// `OpGroupDecorate`s left without targets.
fn drop_unapplied_groups(m: &mut Module) {
    if !m.annotations().iter().any(|a| a.op == Op::DecorationGroup) {
        return;
    }
    let applies = |a: &Inst| matches!(a.op, Op::GroupDecorate | Op::GroupMemberDecorate);
    m.annotations_mut()
        .retain(|a| !applies(a) || a.operands().nth(1).is_some());
    let applied: FxHashSet<Id> = m
        .annotations()
        .iter()
        .filter(|a| applies(a))
        .filter_map(|a| a.arg(0))
        .collect();
    let unapplied: FxHashSet<Id> = m
        .annotations()
        .iter()
        .filter(|a| a.op == Op::DecorationGroup)
        .filter_map(|a| a.result)
        .filter(|g| !applied.contains(g))
        .collect();
    if unapplied.is_empty() {
        return;
    }
    m.annotations_mut().retain(|a| {
        let group = match a.op {
            Op::DecorationGroup => a.result,
            _ => a.arg(0),
        };
        !group.is_some_and(|g| unapplied.contains(&g))
    });
    m.debug
        .retain(|i| !(i.op == Op::Name && i.arg(0).is_some_and(|t| unapplied.contains(&t))));
}

/// Removes from `f` every body instruction (terminators excepted) for which `dead` holds,
/// adding their results to `gone`. Returns how many left.
pub fn remove_insts(
    f: &mut Function,
    gone: &mut FxHashSet<Id>,
    mut dead: impl FnMut(&Inst) -> bool,
) -> usize {
    f.retain_all(|i| {
        let d = dead(i);
        if d {
            gone.extend(i.result);
        }
        !d
    })
}

/// The decorations of values, by value: copies of values (inlined, unrolled) take them along.
pub struct Decorations(FxHashMap<Id, Vec<Inst>>);

impl Decorations {
    pub fn of(m: &Module) -> Self {
        let mut by_target: FxHashMap<Id, Vec<Inst>> = FxHashMap::default();
        for a in m.annotations() {
            if matches!(a.op, Op::Decorate | Op::DecorateId | Op::DecorateString) {
                if let Some(t) = a.arg(0) {
                    by_target.entry(t).or_default().push(a.clone());
                }
            }
        }
        Decorations(by_target)
    }

    /// Decorates each `new` as its `old` is (`NonUniform`, `RelaxedPrecision`,
    /// `NoContraction`, …), in `new` order so output does not depend on hash order; the copies
    /// are remembered, so a copy of a copy is decorated too.
    pub fn copy(&mut self, m: &mut Module, pairs: impl IntoIterator<Item = (Id, Id)>) {
        let mut copied: Vec<(Id, Inst)> = Vec::new();
        for (old, new) in pairs {
            for d in self.0.get(&old).into_iter().flatten() {
                let mut c = d.clone();
                c.args[0] = new;
                copied.push((new, c));
            }
        }
        copied.sort_by_key(|(new, _)| *new);
        for (new, c) in copied {
            self.0.entry(new).or_default().push(c.clone());
            m.annotations_mut().push(c);
        }
    }
}
