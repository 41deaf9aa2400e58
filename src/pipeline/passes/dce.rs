//! `dce`: dead code elimination. Removes, until nothing more goes:
//! - instructions without side effects whose result nobody uses (arithmetic, conversions,
//!   composites, access chains, non-volatile loads, image sampling, GLSL.std.450 calls);
//! - function-local and private variables that are only ever stored to, with those stores;
//! - functions nobody calls that are not entry points or exported;
//! - types, constants and global variables nothing refers to (an entry point's interface
//!   counts as a reference), with the names and decorations of everything removed.
//!
//! `DebugDeclare`s and `DebugValue`s use nothing: what only they refer to goes, and they say
//! from then on that its value is undefined (optimized out).
//!
//! It does not remove spec constants (they are the pipeline's interface), does not touch
//! control flow (unreachable blocks stay), and treats any instruction it does not know as
//! having side effects.

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::debug::{self, DebugSets};
use crate::ir::fxhash::{FxHashMap, FxHashSet};
use crate::ir::idmap::IdMap;
use crate::ir::inst::{is_constant, is_spec_constant, is_type};
use crate::ir::ops::{self, Attrs, ExtSets};
use crate::ir::rewrite;
use crate::ir::rewrite::{forget, is_metadata, remove_insts, undefine_debug_uses};
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Dce;

/// Instructions whose only effect is their result, by the op table: pure ops, reads and
/// subgroup ops, but nothing that writes, synchronizes or ends a block — whatever set the op
/// is from (GLSL.std.450's Modf writes through its pointer; an instruction of a set the table
/// does not describe counts as having effects). A volatile load is kept.
pub fn is_pure(inst: &Inst, sets: &ExtSets) -> bool {
    if inst.op() == Op::Load
        && inst.lits().iter().any(
            |o| matches!(o, Operand::MemoryAccess(a) if a.contains(spirv::MemoryAccess::VOLATILE)),
        )
    {
        return false;
    }
    let a = ops::attrs_of(inst, sets);
    let no_effect =
        a.contains(Attrs::PURE) || a.contains(Attrs::READS_MEMORY) || a.contains(Attrs::WAVE);
    let effect = a.contains(Attrs::WRITES_MEMORY)
        || a.contains(Attrs::BARRIER)
        || a.contains(Attrs::TERMINATOR);
    no_effect && !effect
}

fn count_uses(m: &Module) -> IdMap<u32> {
    let mut uses = IdMap::new(m, 0u32);
    let dsets = DebugSets::of(m);
    m.for_each_inst(|i| counted_uses(m, &dsets, i, |u| *uses.get_mut(u) += 1));
    uses
}

/// Calls `f` with each id `i` uses, as `count_uses` counts them.
fn counted_uses(m: &Module, dsets: &DebugSets, i: &Inst, mut f: impl FnMut(Id)) {
    // A forward declaration is no use: it goes with the pointer type it declares. Debug
    // info naming its own function is none either: it goes with it.
    if is_metadata(i.op())
        || i.op() == Op::TypeForwardPointer
        || dsets.is(i, debug::FUNCTION_DEFINITION)
    {
        return;
    }
    // A declare or value does not use what it describes: a local value or a constant
    // goes, and the record says its variable is undefined there (an `OpUndef` it does
    // use); a global variable goes, and its declares with it. A global variable's record
    // does not use it either: it names DebugInfoNone once it goes.
    let described = dsets
        .is_debug_use(i)
        .then(|| i.arg(debug::ARG_DESCRIBED))
        .flatten()
        .filter(|&d| m.global(d).is_none_or(|g| g.op() != Op::Undef))
        .or_else(|| debug::described_global(dsets, i));
    for u in i.uses() {
        if Some(u) != described {
            f(u);
        }
    }
}

pub fn dce(m: &mut Module) -> bool {
    let before = m.inst_count();
    let sets = ExtSets::of(m);
    let dsets = DebugSets::of(m);
    let mut removed: FxHashSet<Id> = FxHashSet::default();

    // Instructions and write-only locals, to a fixed point.
    loop {
        let uses = count_uses(m);
        let used = |id: Id| *uses.get(id) > 0;
        // Locals whose every use is as the pointer of a store.
        let mut store_uses = IdMap::new(m, 0u32);
        for f in m.functions() {
            for i in f.body() {
                if let (Op::Store, Some(&p)) = (i.op(), i.args().first()) {
                    // A value stored to itself would count twice; that is fine here.
                    *store_uses.get_mut(p) += 1;
                }
            }
        }
        let write_only = |i: &Inst| {
            i.op() == Op::Variable && i.result().is_some_and(|r| uses.get(r) == store_uses.get(r))
        };
        let mut dead_vars: FxHashSet<Id> = FxHashSet::default();
        for f in m.functions() {
            for i in f.body() {
                if write_only(i) {
                    dead_vars.insert(i.result().expect("variable has a result"));
                }
            }
        }
        // Private globals too: no other invocation or stage sees them. An entry point's
        // interface may list them (SPIR-V 1.4+); that is not a read.
        let mut listed = IdMap::new(m, 0u32);
        for ep in m.entry_points() {
            for &v in ep.args().iter().skip(1) {
                *listed.get_mut(v) += 1;
            }
        }
        for g in m.globals() {
            if let (
                Op::Variable,
                Some(r),
                Some(Operand::StorageClass(spirv::StorageClass::Private)),
            ) = (g.op(), g.result(), g.lits().first())
            {
                if *uses.get(r) == *store_uses.get(r) + *listed.get(r) {
                    dead_vars.insert(r);
                }
            }
        }
        let mut changed = false;
        let before_globals = m.globals().len();
        // The private globals that go, with their types: their declares say undefined.
        let mut dead_globals: FxHashMap<Id, Id> = FxHashMap::default();
        crate::ir::rewrite::retain_globals(m, |g| {
            let dead = g.result().is_some_and(|r| dead_vars.contains(&r));
            if dead && !dsets.is_empty() {
                dead_globals.extend(g.result().zip(g.ty()));
            }
            !dead
        });
        if m.globals().len() != before_globals {
            changed = true;
            rewrite::retain_interfaces(m, |v| !dead_vars.contains(&v));
            removed.extend(dead_vars.iter().copied());
        }
        let mut undefined: Vec<FxHashMap<Id, Id>> = Vec::new();
        for f in rewrite::functions_mut(m) {
            let mut typed = FxHashMap::default();
            let n = remove_insts(f, &mut removed, |i| {
                let dead = match i.result() {
                    Some(r) if dead_vars.contains(&r) => true,
                    Some(r) => !used(r) && is_pure(i, &sets),
                    None => {
                        i.op() == Op::Store
                            && i.args().first().is_some_and(|p| dead_vars.contains(p))
                    }
                };
                if dead && !dsets.is_empty() {
                    typed.extend(i.result().zip(i.ty()));
                }
                dead
            });
            typed.extend(dead_globals.iter().map(|(&r, &t)| (r, t)));
            undefined.push(typed);
            changed |= n > 0;
        }
        // What debug info said of the values that went: undefined from there on.
        for (k, typed) in undefined.iter().enumerate() {
            if typed.is_empty() {
                continue;
            }
            rewrite::with_function(m, k, |m, f| undefine_debug_uses(m, f, &dsets, typed));
        }
        if !changed {
            break;
        }
    }

    // Functions nobody calls.
    loop {
        let uses = count_uses(m);
        let exported: FxHashSet<Id> = m
            .annotations()
            .iter()
            .filter(|i| {
                i.op() == Op::Decorate
                    && i.lits().iter().any(|o| {
                        matches!(o, Operand::Decoration(spirv::Decoration::LinkageAttributes))
                    })
            })
            .filter_map(|i| i.arg(0))
            .collect();
        let n = m.functions().len();
        crate::ir::rewrite::retain_functions(m, |f| {
            let id = f.id();
            let keep = *uses.get(id) > 0 || exported.contains(&id);
            if !keep {
                removed.extend(f.defined_ids());
            }
            keep
        });
        if m.functions().len() == n {
            break;
        }
    }

    remove_unused_globals(m, &mut removed, SpecConstants::Keep);

    // Names and decorations of what is gone.
    forget(m, &removed);
    if !removed.is_empty() {
        m.reindex();
    }
    m.inst_count() != before
}

/// Whether unused spec constants go with the other unused globals.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum SpecConstants {
    /// Kept: they are the pipeline's interface, and `dce` shows what a shader computes.
    Keep,
    /// Removed: Vulkan ignores specialization entries for ids a shader does not have, and
    /// `spirv-opt -O` removes them too.
    Remove,
}

/// Removes types, constants and global variables nothing refers to (an entry point's
/// interface counts as a reference), adding their ids to `removed`; types refer to types, so
/// to a fixed point.
pub fn remove_unused_globals(m: &mut Module, removed: &mut FxHashSet<Id>, spec: SpecConstants) {
    // A built-in is used by being there: a constant decorated `BuiltIn WorkgroupSize` sets
    // the workgroup size, whatever `LocalSize` says.
    let builtins = crate::ir::types::builtins(m);
    let dsets = DebugSets::of(m);
    // Removed constants and global variables and their types, for the records that
    // described them.
    let mut constants: FxHashMap<Id, Id> = FxHashMap::default();
    // Counted once: a global that goes takes its own uses with it, and only the debug
    // records' edits below change the functions' (then everything is counted again).
    let mut uses = count_uses(m);
    loop {
        let n = m.globals().len();
        let mut dead = Vec::with_capacity(n);
        for g in m.globals() {
            let is_dead = if g.op() == Op::TypeForwardPointer {
                g.arg(0).is_none_or(|p| *uses.get(p) == 0)
            } else {
                let removable = is_type(g.op())
                    || matches!(g.op(), Op::Variable | Op::Undef)
                    // A local variable no declare or value describes any more describes
                    // nothing.
                    || (spec == SpecConstants::Remove && dsets.is(g, debug::LOCAL_VARIABLE))
                    || (is_constant(g.op())
                        && (spec == SpecConstants::Remove || !is_spec_constant(g.op())));
                removable
                    && g.result().is_some_and(|r| {
                        *uses.get(r) == 0 && !(is_constant(g.op()) && builtins.contains_key(&r))
                    })
            };
            if is_dead {
                removed.extend(g.result());
                // A global variable's declares say it is undefined, as a constant's values
                // do: the variable keeps its place among the source's locals.
                let described = is_constant(g.op()) || g.op() == Op::Variable;
                if let (true, Some(r), Some(t)) = (described, g.result(), g.ty()) {
                    constants.insert(r, t);
                }
                counted_uses(m, &dsets, g, |u| {
                    let n = uses.get_mut(u);
                    *n = n.saturating_sub(1);
                });
            }
            dead.push(is_dead);
        }
        let mut k = 0;
        crate::ir::rewrite::retain_globals(m, |_| {
            k += 1;
            !dead[k - 1]
        });
        // Records that described a constant that went say undefined, before its type can
        // go too (the `OpUndef` uses it).
        if !constants.is_empty() && !dsets.is_empty() {
            // Interning must not hand out what just went (an `OpUndef` nothing used).
            m.reindex();
            rewrite::edit_functions(m, |m, f| {
                let _ = undefine_debug_uses(m, f, &dsets, &constants);
            });
            uses = count_uses(m);
        }
        constants.clear();
        if m.globals().len() == n {
            break;
        }
    }
}

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }
    fn description(&self) -> &'static str {
        "remove unused pure instructions, write-only locals, uncalled functions and unused globals"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(dce(module).into())
    }
}
