//! Module linking, as `spirv-link` does it: modules that declare `Import`/`Export` linkage
//! are merged into one; every import is resolved against the export of the same name, with a
//! type check; equal types and constants are merged; exports nobody imported lose their
//! linkage unless they are to be kept, and the `Linkage` capability goes when nothing is left
//! to link.
//!
//! Ids of each later module are shifted past the ids of the module so far, so nothing
//! collides; types and constants equal to one already there (same opcode, type and operands
//! after renaming, and no decorations) take the existing id.

use std::collections::{BTreeMap, HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{Decoration, LinkageType, Op};

use crate::ir::names::Names;
use crate::ir::rewrite;
use crate::ir::{Id, Inst, Module};

/// One module to link and the name errors call it by (its file).
pub struct LinkInput {
    pub name: String,
    pub module: Module,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkOptions {
    /// Keep `Export` linkage on exports nobody imported (a library, not an executable).
    pub keep_exports: bool,
}

/// What linking did, for the step's diagnostics.
#[derive(Debug, Default)]
pub struct LinkReport {
    pub resolved: Vec<String>,
    pub merged_types_and_constants: usize,
    pub dropped_exports: Vec<String>,
}

/// `(name, linkage type)` of a `LinkageAttributes` decoration.
fn linkage(inst: &Inst) -> Option<(Id, &str, LinkageType)> {
    if inst.op() != Op::Decorate {
        return None;
    }
    match (inst.args(), inst.lits()) {
        (
            [target],
            [Operand::Decoration(Decoration::LinkageAttributes), Operand::LiteralString(name), Operand::LinkageType(t)],
        ) => Some((*target, name.as_str(), *t)),
        _ => None,
    }
}

/// Types and constants that may be merged with an equal one: not structs or arrays (their
/// layout decorations make equal-looking ones differ), not spec constants (their SpecIds do).
fn mergeable(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypePointer
            | Op::TypeFunction
            | Op::TypeSampler
            | Op::TypeImage
            | Op::TypeSampledImage
            | Op::Constant
            | Op::ConstantTrue
            | Op::ConstantFalse
            | Op::ConstantNull
            | Op::ConstantComposite
    )
}

fn decorated(m: &Module) -> HashSet<Id> {
    m.annotations()
        .iter()
        .filter_map(|a| match a.args().first() {
            Some(t) if matches!(a.op(), Op::Decorate | Op::MemberDecorate) => Some(*t),
            _ => None,
        })
        .collect()
}

/// Appends `b` to `out`, renaming its ids past `out`'s and merging equal types and constants.
fn append(out: &mut Module, mut b: Module) -> Result<usize, String> {
    let shift = out.bound.max(1) - 1;
    rewrite::remap_ids(&mut b, |id| id + shift);
    let bound = b.bound.max(1) + shift;

    // Memory models must agree.
    let model = |m: &Module| {
        m.preamble()
            .iter()
            .find(|i| i.op() == Op::MemoryModel)
            .map(|i| i.to_operands())
    };
    if let (Some(a), Some(bm)) = (model(out), model(&b)) {
        if a != bm {
            return Err(format!(
                "the modules use different memory models ({a:?} and {bm:?})"
            ));
        }
    }

    // Ids of `b` that become ids of `out`.
    let mut map: HashMap<Id, Id> = HashMap::new();
    let rename =
        |map: &HashMap<Id, Id>, inst: Inst| inst.remapped(|id| map.get(&id).copied().unwrap_or(id));
    let mut preamble = Vec::new();
    for inst in b.preamble() {
        let inst = rename(&map, inst.clone());
        match inst.op() {
            Op::MemoryModel => {}
            Op::ExtInstImport => {
                let existing = out
                    .preamble()
                    .iter()
                    .find(|i| i.op() == Op::ExtInstImport && i.lits() == inst.lits())
                    .and_then(|i| i.result());
                match (existing, inst.result()) {
                    (Some(e), Some(r)) => {
                        map.insert(r, e);
                    }
                    _ => preamble.push(inst),
                }
            }
            _ if out.preamble().contains(&inst) => {}
            _ => preamble.push(inst),
        }
    }
    let decorated_b = decorated(&b);
    let decorated_out = decorated(out);
    let key = |g: &Inst| g.clone().renamed(None);
    let mut known: HashMap<Inst, Id> = out
        .globals()
        .iter()
        .filter(|g| mergeable(g.op()))
        .filter_map(|g| {
            let r = g.result()?;
            (!decorated_out.contains(&r)).then(|| (key(g), r))
        })
        .collect();
    let mut globals = Vec::new();
    let mut merged = 0;
    for inst in rewrite::take_globals(&mut b) {
        let inst = rename(&map, inst);
        if let Some(r) = inst
            .result()
            .filter(|r| mergeable(inst.op()) && !decorated_b.contains(r))
        {
            let key = key(&inst);
            if let Some(&existing) = known.get(&key) {
                map.insert(r, existing);
                merged += 1;
                continue;
            }
            known.insert(key, r);
        }
        globals.push(inst);
    }
    rewrite::remap_ids(&mut b, |id| map.get(&id).copied().unwrap_or(id));
    // The preamble was read and the globals taken out of `b` before the last rename: rename
    // them too. Capabilities and extensions go in front, imports after them.
    for inst in preamble {
        rewrite::add_to_preamble(out, rename(&map, inst));
    }
    let globals: Vec<Inst> = globals.into_iter().map(|g| rename(&map, g)).collect();
    rewrite::append_sections(out, &mut b);
    rewrite::append_annotations(out, rewrite::take_annotations(&mut b));
    rewrite::append_globals(out, globals);
    rewrite::append_functions(out, rewrite::take_functions(&mut b));
    out.attributes.append(&mut b.attributes);
    out.bound = out.bound.max(bound);
    Ok(merged)
}

/// The type an import or export is checked by: a function's function type, a variable's
/// pointer type.
fn declared_type(m: &Module, id: Id) -> Option<Id> {
    if let Some(f) = m.function(id) {
        return f.def().arg(0);
    }
    m.global(id).and_then(|g| g.ty())
}

pub fn link(inputs: Vec<LinkInput>, opts: LinkOptions) -> Result<(Module, LinkReport), String> {
    let mut report = LinkReport::default();
    let mut iter = inputs.into_iter();
    let first = iter.next().ok_or("nothing to link")?;
    // Which input each id came from, for messages.
    let mut origin: BTreeMap<Id, String> = BTreeMap::new();
    let mut out = first.module;
    origin.insert(0, first.name);
    for input in iter {
        let start = out.bound.max(1);
        report.merged_types_and_constants +=
            append(&mut out, input.module).map_err(|e| format!("{}: {e}", input.name))?;
        origin.insert(start, input.name);
    }
    out.reindex();
    let from = |id: Id| {
        origin
            .range(..=id)
            .next_back()
            .map_or(String::new(), |(_, n)| n.clone())
    };
    let names = Names::for_module(&out);

    let mut exports: HashMap<String, Id> = HashMap::new();
    let mut imports: Vec<(String, Id)> = Vec::new();
    for a in out.annotations() {
        if let Some((target, name, kind)) = linkage(a) {
            match kind {
                LinkageType::Export => {
                    if let Some(previous) = exports.insert(name.to_string(), target) {
                        return Err(format!(
                            "'{name}' is exported twice: %{} in {} and %{} in {}",
                            names.get(previous),
                            from(previous),
                            names.get(target),
                            from(target)
                        ));
                    }
                }
                _ => imports.push((name.to_string(), target)),
            }
        }
    }
    let mut resolve: HashMap<Id, Id> = HashMap::new();
    let mut errors = Vec::new();
    for (name, imp) in &imports {
        let Some(&exp) = exports.get(name) else {
            errors.push(format!(
                "unresolved import '{name}' (%{} in {}): no module exports it",
                names.get(*imp),
                from(*imp)
            ));
            continue;
        };
        let (ti, te) = (declared_type(&out, *imp), declared_type(&out, exp));
        if ti != te {
            let show =
                |t: Option<Id>| t.map_or("nothing".to_string(), |t| format!("%{}", names.get(t)));
            errors.push(format!(
                "'{name}' is imported as {} (%{} in {}) but exported as {} (%{} in {})",
                show(ti),
                names.get(*imp),
                from(*imp),
                show(te),
                names.get(exp),
                from(exp)
            ));
            continue;
        }
        resolve.insert(*imp, exp);
        report.resolved.push(name.clone());
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }

    // Imports become their exports: declarations, their names and decorations go.
    rewrite::retain_functions(&mut out, |f| !resolve.contains_key(&f.id()));
    rewrite::retain_globals(&mut out, |g| {
        !g.result().is_some_and(|r| resolve.contains_key(&r))
    });
    let targets = |i: &Inst| i.arg(0);
    rewrite::retain_annotations(&mut out, |a| {
        !targets(a).is_some_and(|t| resolve.contains_key(&t))
    });
    rewrite::retain_debug(&mut out, |d| {
        !(matches!(d.op(), Op::Name | Op::MemberName)
            && targets(d).is_some_and(|t| resolve.contains_key(&t)))
    });
    rewrite::remap_ids(&mut out, |id| resolve.get(&id).copied().unwrap_or(id));

    // Exports nobody imported from outside: linked, they are ordinary functions now.
    if !opts.keep_exports {
        rewrite::retain_annotations(&mut out, |a| match linkage(a) {
            Some((target, name, LinkageType::Export)) => {
                report
                    .dropped_exports
                    .push(format!("{name} (%{})", names.get(target)));
                false
            }
            _ => true,
        });
    }
    if !out.annotations().iter().any(|a| linkage(a).is_some()) {
        rewrite::retain_preamble(&mut out, |i| {
            !(i.op() == Op::Capability
                && matches!(
                    i.lits().first(),
                    Some(Operand::Capability(spirv::Capability::Linkage))
                ))
        });
    }
    out.reindex();
    Ok((out, report))
}
