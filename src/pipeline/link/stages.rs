//! Pipeline linking (after AMD LLPC): the stages of one graphics pipeline — vertex, then
//! fragment (geometry and tessellation in between where present) — each run their own passes,
//! then link steps look across each pair of neighbouring stages:
//!
//! - `link-interface` matches the earlier stage's outputs to the later stage's inputs by
//!   `Location`/`Component` (built-ins by name) and checks type, interpolation and array size;
//!   mismatches are errors naming both variables, an input nobody writes is a warning;
//! - `link-forward-constants` (vertex-first order: the later stage learns what the earlier one
//!   wrote): an output written with one constant, in the entry block of the entry point and
//!   nowhere else with anything else, becomes that constant in the later stage, whose input
//!   leaves the interface;
//! - `link-dead-outputs` (fragment-first order: the earlier stage learns what the later one
//!   reads): an output the later stage does not read is removed with its stores, and `dce`
//!   after it removes the computation only those stores needed.
//!
//! Every link step is a step of each stage's run, so it shows in the pass list and diffs.

use std::collections::{BTreeMap, HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass};

use crate::ir::fxhash::FxHashSet;
use crate::ir::names::Names;
use crate::ir::rewrite;
use crate::ir::rewrite::{forget, remove_insts, Builder, Replacer};
use crate::ir::{Id, Module, Opd};
use crate::pipeline::pass::{Diagnostic, Severity};

/// Which stage is compiled first, and so which way knowledge flows at link time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LinkOrder {
    /// Later stages first: earlier stages learn which outputs are dead.
    #[default]
    FsFirst,
    /// Earlier stages first: later stages learn which inputs are constant.
    VsFirst,
}

impl std::str::FromStr for LinkOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fs-first" => Ok(LinkOrder::FsFirst),
            "vs-first" => Ok(LinkOrder::VsFirst),
            other => Err(format!(
                "unknown link order '{other}': fs-first or vs-first"
            )),
        }
    }
}

/// A stage's rank in the pipeline, from its entry point.
pub fn stage_rank(m: &Module) -> Option<(u32, ExecutionModel)> {
    m.entry_points()
        .iter()
        .find_map(|ep| match ep.lits().first() {
            Some(Operand::ExecutionModel(model)) => {
                let rank = match model {
                    ExecutionModel::Vertex => 0,
                    ExecutionModel::TessellationControl => 1,
                    ExecutionModel::TessellationEvaluation => 2,
                    ExecutionModel::Geometry => 3,
                    ExecutionModel::Fragment => 4,
                    _ => return None,
                };
                Some((rank, *model))
            }
            _ => None,
        })
}

/// Where an interface variable sits: a location and component, or a built-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    Location(u32, u32),
    BuiltIn(BuiltIn),
}

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Slot::Location(l, 0) => write!(f, "location {l}"),
            Slot::Location(l, c) => write!(f, "location {l} component {c}"),
            Slot::BuiltIn(b) => write!(f, "built-in {b:?}"),
        }
    }
}

/// An interface variable of a stage.
#[derive(Clone, Debug)]
pub struct Var {
    pub id: Id,
    pub slot: Slot,
    /// The pointee type, spelled the same way in every module (`f32x4`, `[f32; 3]`).
    pub ty: String,
    /// Interpolation decorations (`Flat`, `NoPerspective`, `Centroid`, `Sample`).
    pub interpolation: Vec<Decoration>,
    pub name: String,
    /// The 32-bit words it occupies: (location, component, scalar type), what the Vulkan
    /// interface rules match (each word of an input must be written with the same type).
    pub words: Vec<(u32, u32, String)>,
}

/// The (location, component, scalar type) words a value of type `ty` occupies from
/// `(location, component)`, and the locations it takes: vectors fill the components of a
/// location (64-bit scalars two each, spilling into the next location), matrix columns, array
/// elements and struct members take consecutive locations.
fn footprint(
    m: &Module,
    ty: Id,
    (location, component): (u32, u32),
    out: &mut Vec<(u32, u32, String)>,
    depth: usize,
) -> u32 {
    let Some(t) = m.global(ty) else { return 1 };
    if depth > 8 || out.len() > 4096 {
        return 1;
    }
    let lit = |k: usize| match t.operand(k) {
        Some(Opd::Lit(Operand::LiteralBit32(n))) => *n,
        _ => 0,
    };
    match t.op() {
        Op::TypeFloat | Op::TypeInt | Op::TypeBool | Op::TypeVector => {
            let (scalar, n) = match t.op() {
                Op::TypeVector => (t.arg(0).unwrap_or(0), lit(1)),
                _ => (ty, 1),
            };
            let name = type_sig(m, scalar, 0);
            let wide = m
                .global(scalar)
                .and_then(|s| s.lits().first().cloned())
                .is_some_and(|w| w == Operand::LiteralBit32(64));
            let words = n * if wide { 2 } else { 1 };
            for k in 0..words.min(64) {
                let at = component + k;
                out.push((location + at / 4, at % 4, name.clone()));
            }
            (component + words).div_ceil(4).max(1)
        }
        Op::TypeMatrix => {
            let col = t.arg(0).unwrap_or(0);
            let mut taken = 0;
            for _ in 0..lit(1).min(64) {
                taken += footprint(m, col, (location + taken, 0), out, depth + 1);
            }
            taken
        }
        Op::TypeArray => {
            let len = m
                .global(t.arg(1).unwrap_or(0))
                .and_then(|c| match c.lits().first() {
                    Some(Operand::LiteralBit32(n)) => Some(*n),
                    _ => None,
                })
                .unwrap_or(1);
            let elem = t.arg(0).unwrap_or(0);
            let mut taken = 0;
            for _ in 0..len.min(256) {
                taken += footprint(m, elem, (location + taken, component), out, depth + 1);
            }
            taken
        }
        Op::TypeStruct => {
            let mut taken = 0;
            for &member in t.args() {
                taken += footprint(m, member, (location + taken, 0), out, depth + 1);
            }
            taken
        }
        _ => 1,
    }
}

fn decorations_of(m: &Module, id: Id) -> Vec<&[Operand]> {
    m.decorations_of(id)
        .filter(|a| a.op() == Op::Decorate)
        .map(|a| a.lits())
        .collect()
}

/// The built-in a block of built-ins stands for: its `Position` member's, else its first
/// member's (by `OpMemberDecorate … BuiltIn`).
fn block_builtin(m: &Module, ty: Id) -> Option<BuiltIn> {
    let mut members: Vec<(u32, BuiltIn)> = m
        .decorations_of(ty)
        .filter(|a| a.op() == Op::MemberDecorate)
        .filter_map(|a| match a.lits() {
            [Operand::LiteralBit32(k), Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)] => {
                Some((*k, *b))
            }
            _ => None,
        })
        .collect();
    members.sort_by_key(|&(k, _)| k);
    members
        .iter()
        .find(|(_, b)| *b == BuiltIn::Position)
        .or(members.first())
        .map(|&(_, b)| b)
}

/// A type's spelling independent of ids, so two modules' types can be compared.
pub fn type_sig(m: &Module, id: Id, depth: usize) -> String {
    let Some(t) = m.global(id) else {
        return format!("?{id}");
    };
    if depth > 16 {
        return "…".into();
    }
    let id_of = |k: usize| t.id_at(k).unwrap_or(0);
    let lit = |k: usize| match t.operand(k) {
        Some(Opd::Lit(Operand::LiteralBit32(n))) => *n,
        _ => 0,
    };
    match t.op() {
        Op::TypeVoid => "void".into(),
        Op::TypeBool => "bool".into(),
        Op::TypeFloat => format!("f{}", lit(0)),
        Op::TypeInt => format!("{}{}", if lit(1) == 1 { "i" } else { "u" }, lit(0)),
        Op::TypeVector => format!("{}x{}", type_sig(m, id_of(0), depth + 1), lit(1)),
        Op::TypeMatrix => format!("mat{}<{}>", lit(1), type_sig(m, id_of(0), depth + 1)),
        Op::TypeArray => {
            let len = m
                .global(id_of(1))
                .and_then(|c| match c.lits().first() {
                    Some(Operand::LiteralBit32(n)) => Some(n.to_string()),
                    _ => None,
                })
                .unwrap_or_else(|| "?".into());
            format!("[{}; {len}]", type_sig(m, id_of(0), depth + 1))
        }
        Op::TypeRuntimeArray => format!("[{}]", type_sig(m, id_of(0), depth + 1)),
        Op::TypeStruct => {
            let members: Vec<String> = t
                .args()
                .iter()
                .map(|&i| type_sig(m, i, depth + 1))
                .collect();
            format!("struct {{{}}}", members.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// The interface variables of a module's entry point in one storage class.
pub fn interface(m: &Module, class: StorageClass) -> Vec<Var> {
    let names = Names::for_module(m);
    let model = stage_rank(m).map(|r| r.1);
    let arrayed = matches!(
        (model, class),
        (
            Some(ExecutionModel::Geometry | ExecutionModel::TessellationEvaluation),
            StorageClass::Input
        ) | (Some(ExecutionModel::TessellationControl), _)
    );
    let mut out = Vec::new();
    let listed: HashSet<Id> = m
        .entry_points()
        .iter()
        .flat_map(|ep| ep.args().iter().skip(1).copied())
        .collect();
    for g in m.globals() {
        let (Op::Variable, Some(id)) = (g.op(), g.result()) else {
            continue;
        };
        if g.lits().first() != Some(&Operand::StorageClass(class)) || !listed.contains(&id) {
            continue;
        }
        let mut pointee = g
            .ty()
            .and_then(|p| m.global(p))
            .and_then(|p| p.arg(0))
            .unwrap_or(0);
        // Per-vertex interfaces (geometry and tessellation inputs, tessellation control
        // outputs, fragment inputs decorated PerVertexKHR) are arrays of what the neighbouring
        // stage writes or reads per vertex.
        let has = |what: Decoration| {
            decorations_of(m, id)
                .iter()
                .any(|d| d.first() == Some(&Operand::Decoration(what)))
        };
        if (arrayed && !has(Decoration::Patch)) || has(Decoration::PerVertexKHR) {
            if let Some(e) = m
                .global(pointee)
                .filter(|t| t.op() == Op::TypeArray)
                .and_then(|t| t.arg(0))
            {
                pointee = e;
            }
        }
        let mut location = None;
        let mut component = 0;
        let mut builtin = None;
        let mut interpolation = Vec::new();
        for d in decorations_of(m, id) {
            match d {
                [Operand::Decoration(Decoration::Location), Operand::LiteralBit32(l)] => {
                    location = Some(*l)
                }
                [Operand::Decoration(Decoration::Component), Operand::LiteralBit32(c)] => {
                    component = *c
                }
                [Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)] => {
                    builtin = Some(*b)
                }
                [Operand::Decoration(
                    d @ (Decoration::Flat
                    | Decoration::NoPerspective
                    | Decoration::Centroid
                    | Decoration::Sample),
                )] => interpolation.push(*d),
                _ => {}
            }
        }
        let slot = match (location, builtin) {
            (Some(l), _) => Slot::Location(l, component),
            (None, Some(b)) => Slot::BuiltIn(b),
            // A block of built-ins (gl_PerVertex, as glslang writes `gl_Position`) stands for
            // its Position (else its first built-in): shown as that, and, as every built-in,
            // never dead and never constant here.
            (None, None) => match block_builtin(m, pointee) {
                Some(b) => Slot::BuiltIn(b),
                None => continue,
            },
        };
        interpolation.sort_by_key(|d| *d as u32);
        let mut words = Vec::new();
        if let Slot::Location(l, c) = slot {
            footprint(m, pointee, (l, c), &mut words, 0);
        }
        out.push(Var {
            id,
            slot,
            ty: type_sig(m, pointee, 0),
            interpolation,
            name: format!("%{}", names.get(id)),
            words,
        });
    }
    out.sort_by_key(|v| v.slot);
    out
}

/// The interface check between an earlier and a later stage, by the Vulkan interface
/// matching rules: every word of an input must be written by the earlier stage with the same
/// scalar type (an error naming both variables when the types differ; a warning when it is
/// not written, for its value is undefined); an output may have more components than the
/// input reads; interpolation decorations need not match (the later stage's apply), which is
/// a warning when they differ.
pub fn check_interface(producer: &Module, consumer: &Module) -> Vec<Diagnostic> {
    let outs = interface(producer, StorageClass::Output);
    let written: HashMap<(u32, u32), (&str, &Var)> = outs
        .iter()
        .flat_map(|v| {
            v.words
                .iter()
                .map(move |(l, c, t)| ((*l, *c), (t.as_str(), v)))
        })
        .collect();
    let by_slot: BTreeMap<Slot, &Var> = outs.iter().map(|v| (v.slot, v)).collect();
    let mut diags = Vec::new();
    for input in interface(consumer, StorageClass::Input) {
        if matches!(input.slot, Slot::BuiltIn(_)) {
            continue;
        }
        let mut unwritten = Vec::new();
        let mut mismatch = None;
        for (l, c, t) in &input.words {
            match written.get(&(*l, *c)) {
                None => unwritten.push((*l, *c)),
                Some((wt, out)) if *wt != t && mismatch.is_none() => {
                    mismatch = Some((*l, *c, *wt, t.clone(), *out))
                }
                Some(_) => {}
            }
        }
        // A type that differs, or an input written in part beside an output at its own slot:
        // an error naming both variables. The spec requires every word of an input written.
        let partly = unwritten.len() < input.words.len();
        let conflict = match mismatch {
            Some((l, c, wt, t, out)) => {
                Some((out, format!("location {l} component {c}: {wt} against {t}")))
            }
            None if partly => by_slot
                .get(&input.slot)
                .zip(unwritten.first())
                .map(|(out, (l, c))| (*out, format!("location {l} component {c} is not written"))),
            None => None,
        };
        if let Some((out, detail)) = conflict {
            let kind = if out.ty.starts_with('[') || input.ty.starts_with('[') {
                "array size or type"
            } else {
                "type"
            };
            diags.push(Diagnostic::new(
                Severity::Error,
                format!(
                    "{kind} mismatch at {}: output {} is {} but input {} is {} ({detail})",
                    input.slot, out.name, out.ty, input.name, input.ty
                ),
            ));
            continue;
        }
        // Not written at all: its value is undefined, which is legal; in part: an error.
        if !unwritten.is_empty() {
            let at = if partly {
                let parts: Vec<String> = unwritten
                    .iter()
                    .map(|(l, c)| format!("location {l} component {c}"))
                    .collect();
                format!(" at {}", parts.join(", "))
            } else {
                String::new()
            };
            diags.push(Diagnostic::new(
                if partly {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                format!(
                    "input {} ({}, {}) is not written by the earlier stage{at}: its value is undefined",
                    input.name, input.slot, input.ty
                ),
            ));
            continue;
        }
        if let Some(out) = by_slot.get(&input.slot) {
            if out.interpolation != input.interpolation {
                diags.push(Diagnostic::new(
                    Severity::Warning,
                    format!(
                        "interpolation differs at {}: output {} is {} but input {} is {}; the later stage's applies",
                        input.slot,
                        out.name,
                        interp_or_smooth(out),
                        input.name,
                        interp_or_smooth(&input)
                    ),
                ));
            }
        }
    }
    diags
}

/// Ids of every access chain (transitively) based on `var`, and `var` itself.
fn pointers_into(m: &Module, var: Id) -> HashSet<Id> {
    let mut set: HashSet<Id> = [var].into();
    loop {
        let before = set.len();
        for f in m.functions() {
            for i in f.insts() {
                if matches!(
                    i.op(),
                    Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject
                ) && matches!(i.args().first(), Some(base) if set.contains(base))
                {
                    if let Some(r) = i.result() {
                        set.insert(r);
                    }
                }
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// Removes interface variables: their stores (or loads, which must not exist for outputs),
/// access chains, entry point listing, decorations, names and the variables.
fn remove_vars(m: &mut Module, vars: &HashSet<Id>) {
    let mut ptrs = HashSet::new();
    for &v in vars {
        ptrs.extend(pointers_into(m, v));
    }
    let mut gone: FxHashSet<Id> = vars.iter().copied().collect();
    for f in rewrite::functions_mut(m) {
        remove_insts(f, &mut gone, |i| {
            let store = i.op() == Op::Store && i.args().first().is_some_and(|p| ptrs.contains(p));
            let chain = i.result().is_some_and(|r| ptrs.contains(&r));
            store || chain
        });
    }
    // Keeps the function operand (the first id) even in the unlikely case it was listed.
    rewrite::retain_interfaces(m, |i| !vars.contains(&i));
    crate::ir::rewrite::retain_globals(m, |g| !g.result().is_some_and(|r| vars.contains(&r)));
    forget(m, &gone);
    m.reindex();
}

/// Removes location inputs no code reads (after the outputs they fed were removed), so the
/// stage before sees them as dead too. Returns their names.
pub fn remove_unread_inputs(m: &mut Module) -> Vec<String> {
    let mut used = HashSet::new();
    let sets = crate::ir::ext_sets::ExtSets::of(m);
    for f in m.functions() {
        // A declare of an input reads nothing.
        for i in f.body().filter(|i| !sets.is_debug_only(i)) {
            used.extend(i.id_operands());
        }
    }
    let unread: Vec<Var> = interface(m, StorageClass::Input)
        .into_iter()
        .filter(|v| matches!(v.slot, Slot::Location(..)) && !used.contains(&v.id))
        .collect();
    let ids: HashSet<Id> = unread.iter().map(|v| v.id).collect();
    if !ids.is_empty() {
        remove_vars(m, &ids);
    }
    unread
        .iter()
        .map(|v| format!("{} ({})", v.name, v.slot))
        .collect()
}

/// What `remove_dead_outputs` did: the outputs it removed, and those the next stage does not
/// read but the stage itself reads back, which stay (removing one would leave its loads
/// without a pointer).
#[derive(Debug, Default)]
pub struct DeadOutputs {
    pub removed: Vec<String>,
    pub read_back: Vec<String>,
}

/// Removes the producer's location outputs the consumer does not read, unless the producer
/// reads them back itself.
pub fn remove_dead_outputs(producer: &mut Module, consumer: &Module) -> DeadOutputs {
    // Read word by word: an input may read part of an output, or parts of several.
    let read: HashSet<(u32, u32)> = interface(consumer, StorageClass::Input)
        .into_iter()
        .flat_map(|v| v.words.into_iter().map(|(l, c, _)| (l, c)))
        .collect();
    let (dead, read_back): (Vec<Var>, Vec<Var>) = interface(producer, StorageClass::Output)
        .into_iter()
        .filter(|v| {
            // An output whose words are unknown (a type the footprint does not take) stays.
            matches!(v.slot, Slot::Location(..))
                && !v.words.is_empty()
                && !v.words.iter().any(|(l, c, _)| read.contains(&(*l, *c)))
        })
        .partition(|v| !reads_back(producer, v.id));
    let ids: HashSet<Id> = dead.iter().map(|v| v.id).collect();
    if !ids.is_empty() {
        remove_vars(producer, &ids);
    }
    let named = |vars: &[Var]| {
        vars.iter()
            .map(|v| format!("{} ({})", v.name, v.slot))
            .collect()
    };
    DeadOutputs {
        removed: named(&dead),
        read_back: named(&read_back),
    }
}

/// Whether code of `m` does anything with `var` (or a pointer into it) but store to it: a load,
/// a copy, a call that takes the pointer. Debug records describing it do not count.
fn reads_back(m: &Module, var: Id) -> bool {
    let ptrs = pointers_into(m, var);
    let sets = crate::ir::ext_sets::ExtSets::of(m);
    m.functions().iter().any(|f| {
        f.insts().any(|i| {
            if sets.record(i).is_some() {
                return false;
            }
            let chain = matches!(
                i.op(),
                Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject
            );
            i.id_operands()
                .enumerate()
                .any(|(k, id)| ptrs.contains(&id) && !(k == 0 && (i.op() == Op::Store || chain)))
        })
    })
}

/// Blocks of `f` that run whenever `f` returns: the entry block and those it reaches through
/// unconditional branches.
fn always_blocks(f: &crate::ir::Function) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < f.blocks().len() && !out.contains(&at) {
        out.push(at);
        let t = f.terminator(at);
        match (t.op(), t.args().first()) {
            (Op::Branch, Some(next)) => match f.block_index(*next) {
                Some(n) => at = n,
                None => break,
            },
            _ => break,
        }
    }
    out
}

fn entry_function(m: &Module) -> Option<Id> {
    m.entry_points().first().and_then(|ep| ep.arg(0))
}

/// The constant an output is always written with: every store to it stores the same value,
/// directly (no access chain), one of them in a block of the entry point that always runs,
/// and that value is a constant — or a load of a private variable that holds one constant
/// by then (how naga's wrappers copy outputs).
fn constant_output(m: &Module, var: Id) -> Option<Id> {
    let entry = entry_function(m)?;
    let ptrs = pointers_into(m, var);
    let mut value = None;
    let mut always = false;
    for f in m.functions() {
        let sure = if f.id() == entry {
            always_blocks(f)
        } else {
            Vec::new()
        };
        for (bi, b) in f.blocks().iter().enumerate() {
            for i in b.insts.iter().map(|&i| f.inst(i)) {
                let Some(p) = i.args().first() else {
                    continue;
                };
                if !ptrs.contains(p) {
                    continue;
                }
                match i.op() {
                    Op::Store if *p == var => {
                        let v = i.args().get(1)?;
                        if value.is_some_and(|x| x != *v) {
                            return None;
                        }
                        value = Some(*v);
                        always |= sure.contains(&bi);
                    }
                    // Stores through access chains, or anything else that writes it.
                    Op::Store | Op::CopyMemory | Op::CopyMemorySized => return None,
                    _ => {}
                }
            }
        }
    }
    let v = value?;
    if !always {
        return None;
    }
    if is_constant(m, v) {
        return Some(v);
    }
    private_constant(m, entry, v)
}

fn is_constant(m: &Module, v: Id) -> bool {
    m.global(v).is_some_and(|def| {
        matches!(
            def.op(),
            Op::Constant
                | Op::ConstantComposite
                | Op::ConstantTrue
                | Op::ConstantFalse
                | Op::ConstantNull
        )
    })
}

/// For `loaded`, a load in the entry function: the constant it reads when it loads a
/// `Private` variable that every write sets to one constant `C`, and either its initializer
/// is `C` or a store of `C` surely runs before the load (earlier in the load's block, or in a
/// block that always runs of a function called earlier in that block).
fn private_constant(m: &Module, entry: Id, loaded: Id) -> Option<Id> {
    let ef = m.function(entry)?;
    let (load_block, load_at, var) = (0..ef.blocks().len()).find_map(|bi| {
        ef.block_insts(bi).enumerate().find_map(|(k, i)| {
            match (i.op(), i.result(), i.args().first()) {
                (Op::Load, Some(r), Some(p)) if r == loaded => Some((bi, k, *p)),
                _ => None,
            }
        })
    })?;
    let def = m.global(var)?;
    if def.op() != Op::Variable
        || def.lits().first() != Some(&Operand::StorageClass(StorageClass::Private))
    {
        return None;
    }
    let mut value = None;
    // Functions holding a store of the variable in a block that always runs.
    let mut stored_surely_in: HashSet<Id> = HashSet::new();
    let sets = crate::ir::ext_sets::ExtSets::of(m);
    for f in m.functions() {
        let sure = always_blocks(f);
        for (bi, i) in f.layout() {
            let i = f.inst(i);
            {
                // A declare of the variable is no access.
                if sets.is_debug_only(i) || !i.id_operands().any(|u| u == var) {
                    continue;
                }
                match (i.op(), i.args()) {
                    (Op::Load, [p, ..]) if *p == var => {}
                    (Op::Store, [p, x, ..]) if *p == var => {
                        if value.is_some_and(|c| c != *x) || !is_constant(m, *x) {
                            return None;
                        }
                        value = Some(*x);
                        if sure.contains(&bi) {
                            stored_surely_in.insert(f.id());
                        }
                    }
                    // Access chains, copies, calls that take the pointer: writes we cannot see.
                    _ => return None,
                }
            }
        }
    }
    let c = value?;
    let init = def.arg(0);
    if init.is_none() || init == Some(c) {
        return Some(c);
    }
    // The initializer differs: a store must run before the load.
    let stored_first = ef
        .block_insts(load_block)
        .take(load_at)
        .any(|i| match (i.op(), i.args()) {
            (Op::Store, [p, ..]) => *p == var,
            (Op::FunctionCall, [callee, ..]) => stored_surely_in.contains(callee),
            _ => false,
        });
    stored_first.then_some(c)
}

/// Rebuilds constant `c` of `from` in `to`, with `to`'s type `ty`: scalars, and composites of
/// them. `None` when the shapes do not agree.
fn copy_constant(from: &Module, c: Id, to: &mut Module, ty: Id) -> Option<Id> {
    let def = from.global(c)?.clone();
    let ty_inst = to.global(ty)?.clone();
    match def.op() {
        Op::Constant | Op::ConstantTrue | Op::ConstantFalse | Op::ConstantNull => {
            if matches!(def.op(), Op::ConstantNull)
                || type_sig(from, def.ty()?, 0) == type_sig(to, ty, 0)
            {
                to.intern(def.clone().retyped(Some(ty)).renamed(None))
            } else {
                None
            }
        }
        Op::ConstantComposite => {
            let elem_ty = match (ty_inst.op(), ty_inst.args().first()) {
                (Op::TypeVector, Some(e)) => *e,
                _ => return None,
            };
            let mut parts = Vec::new();
            for &part in def.args() {
                parts.push(copy_constant(from, part, to, elem_ty)?);
            }
            Builder::detached(to).composite(ty, &parts).ok()
        }
        _ => None,
    }
}

/// Replaces the consumer's inputs that the producer always writes with one constant by that
/// constant. Returns what it forwarded.
pub fn forward_constants(producer: &Module, consumer: &mut Module) -> Vec<String> {
    let outs: HashMap<Slot, Var> = interface(producer, StorageClass::Output)
        .into_iter()
        .map(|v| (v.slot, v))
        .collect();
    let mut forwarded = Vec::new();
    let mut gone = HashSet::new();
    for input in interface(consumer, StorageClass::Input) {
        if !matches!(input.slot, Slot::Location(..)) {
            continue;
        }
        let Some(out) = outs.get(&input.slot).filter(|o| o.ty == input.ty) else {
            continue;
        };
        // A per-vertex input holds three of the output's values: not the output's constant.
        let per_vertex = decorations_of(consumer, input.id)
            .iter()
            .any(|d| d.first() == Some(&Operand::Decoration(Decoration::PerVertexKHR)));
        if per_vertex {
            continue;
        }
        let Some(c) = constant_output(producer, out.id) else {
            continue;
        };
        // Every use of the input in code must be a plain load we can replace.
        let mut loads = Vec::new();
        let mut other_use = false;
        let sets = crate::ir::ext_sets::ExtSets::of(consumer);
        for f in consumer.functions() {
            for i in f.body() {
                // A declare of the input is no use: it goes with the input.
                if sets.is_debug_only(i) || !i.id_operands().any(|u| u == input.id) {
                    continue;
                }
                match (i.op(), i.result(), i.ty()) {
                    (Op::Load, Some(r), Some(t)) if i.args().first() == Some(&input.id) => {
                        loads.push((r, t))
                    }
                    _ => other_use = true,
                }
            }
        }
        if other_use {
            continue;
        }
        let Some(&(_, load_ty)) = loads.first() else {
            continue;
        };
        let Some(value) = copy_constant(producer, c, consumer, load_ty) else {
            continue;
        };
        let mut replace = Replacer::new();
        for &(r, _) in &loads {
            replace.replace(r, value);
        }
        for f in rewrite::functions_mut(consumer) {
            f.retain_all(|i| !i.result().is_some_and(|r| replace.is_replaced(r)));
        }
        replace.apply(consumer, "link-forward-constants");
        gone.insert(input.id);
        forwarded.push(format!(
            "{} ({}) = %{} from {}",
            input.name,
            input.slot,
            Names::for_module(producer).get(c),
            out.name
        ));
    }
    if !gone.is_empty() {
        remove_vars(consumer, &gone);
    }
    forwarded
}

/// What became of an interface slot at a step, against the stages' first step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowStatus {
    /// Written by the earlier stage and read by the later, with the same type.
    Matched,
    /// Both sides are there but disagree (type, array size, interpolation).
    Mismatch,
    /// Written, never read.
    Dead,
    /// Was dead; the output is gone (`link-dead-outputs`).
    Removed,
    /// The later stage's input became a constant (`link-forward-constants`).
    Constant,
    /// Read, never written: undefined.
    Unwritten,
    /// A vertex input fetched by the fetch glue, or a fragment output converted by the export
    /// glue: the variable is private now.
    Glued,
    /// A variable the glue added to the interface.
    AddedByGlue,
    /// A vertex input or fragment output left to fixed-function fetch or export.
    FixedFunction,
}

impl RowStatus {
    pub fn label(self) -> &'static str {
        match self {
            RowStatus::Matched => "matched",
            RowStatus::Mismatch => "mismatch",
            RowStatus::Dead => "dead",
            RowStatus::Removed => "removed (dead)",
            RowStatus::Constant => "constant",
            RowStatus::Unwritten => "not written",
            RowStatus::Glued => "glue",
            RowStatus::AddedByGlue => "added by glue",
            RowStatus::FixedFunction => "fixed function",
        }
    }
}

/// One row of the stage interface table (the TUI's link view).
#[derive(Clone, Debug, PartialEq)]
pub struct InterfaceRow {
    /// Which boundary: `vertex input`, `vs → fs`, `colour output`.
    pub edge: String,
    pub slot: Slot,
    pub ty: String,
    pub interpolation: String,
    /// (stage index, variable name) of the writer and the reader, where there is one.
    pub writer: Option<(usize, String)>,
    pub reader: Option<(usize, String)>,
    pub status: RowStatus,
}

fn stage_short(m: &Module) -> &'static str {
    match stage_rank(m).map(|r| r.1) {
        Some(ExecutionModel::Vertex) => "vs",
        Some(ExecutionModel::TessellationControl) => "tcs",
        Some(ExecutionModel::TessellationEvaluation) => "tes",
        Some(ExecutionModel::Geometry) => "gs",
        Some(ExecutionModel::Fragment) => "fs",
        _ => "?",
    }
}

fn interp_or_smooth(v: &Var) -> String {
    match interp_text(v) {
        t if t.is_empty() => "smooth".into(),
        t => t,
    }
}

fn interp_text(v: &Var) -> String {
    v.interpolation
        .iter()
        .map(|d| format!("{d:?}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The interface of a pipeline's stages at one step (`now`, one module per stage) against
/// their first step (`first`): the pipeline's vertex inputs, each boundary between
/// neighbouring stages, and the fragment outputs.
pub fn interface_table(first: &[&Module], now: &[&Module]) -> Vec<InterfaceRow> {
    let mut ranked: Vec<usize> = (0..now.len()).collect();
    ranked.sort_by_key(|&i| stage_rank(now[i]).map_or(u32::MAX, |r| r.0));
    let by_slot = |m: &Module, class| -> BTreeMap<Slot, Var> {
        interface(m, class)
            .into_iter()
            .map(|v| (v.slot, v))
            .collect()
    };
    let mut rows = Vec::new();
    // The ends of the pipeline: vertex inputs and fragment outputs.
    let ends = [
        (
            ranked.first().copied(),
            StorageClass::Input,
            ExecutionModel::Vertex,
            "vertex input",
        ),
        (
            ranked.last().copied(),
            StorageClass::Output,
            ExecutionModel::Fragment,
            "colour output",
        ),
    ];
    for (stage, class, model, edge) in ends {
        let Some(i) = stage else { continue };
        if stage_rank(now[i]).map(|r| r.1) != Some(model) {
            continue;
        }
        let (before, after) = (interface(first[i], class), interface(now[i], class));
        let end = match class {
            StorageClass::Input => "vertex buffer",
            _ => "attachment",
        };
        let kept = |v: &Var, others: &[Var]| others.iter().any(|o| o.id == v.id);
        let mut vars: Vec<(&Var, RowStatus)> = before
            .iter()
            .map(|v| {
                let status = if kept(v, &after) {
                    RowStatus::FixedFunction
                } else {
                    RowStatus::Glued
                };
                (v, status)
            })
            .chain(
                after
                    .iter()
                    .filter(|v| !kept(v, &before))
                    .map(|v| (v, RowStatus::AddedByGlue)),
            )
            .collect();
        vars.sort_by_key(|(v, _)| v.slot);
        for (var, status) in vars {
            let here = Some((i, var.name.clone()));
            let there = Some((usize::MAX, end.to_string()));
            let (writer, reader) = match class {
                StorageClass::Input => (there, here),
                _ => (here, there),
            };
            rows.push(InterfaceRow {
                edge: edge.into(),
                slot: var.slot,
                ty: var.ty.clone(),
                interpolation: interp_text(var),
                writer,
                reader,
                status,
            });
        }
    }
    // Between stages.
    for pair in ranked.windows(2) {
        let (p, c) = (pair[0], pair[1]);
        let edge = format!("{} → {}", stage_short(now[p]), stage_short(now[c]));
        let (outs0, ins0) = (
            by_slot(first[p], StorageClass::Output),
            by_slot(first[c], StorageClass::Input),
        );
        let (outs, ins) = (
            by_slot(now[p], StorageClass::Output),
            by_slot(now[c], StorageClass::Input),
        );
        let slots: std::collections::BTreeSet<Slot> = outs0
            .keys()
            .chain(ins0.keys())
            .chain(outs.keys())
            .chain(ins.keys())
            .copied()
            .collect();
        for slot in slots {
            let (w, r) = (outs.get(&slot), ins.get(&slot));
            let status = match (w, r) {
                (Some(w), Some(r)) if w.ty != r.ty => RowStatus::Mismatch,
                (Some(_), Some(_)) => RowStatus::Matched,
                (Some(_), None) if ins0.contains_key(&slot) => RowStatus::Constant,
                // Position, point size and clip distances feed the rasterizer too.
                (Some(_), None) if matches!(slot, Slot::BuiltIn(_)) => RowStatus::FixedFunction,
                (Some(_), None) => RowStatus::Dead,
                (None, Some(_)) => RowStatus::Unwritten,
                (None, None) if ins0.contains_key(&slot) => RowStatus::Constant,
                (None, None) => RowStatus::Removed,
            };
            let shown = w
                .or(r)
                .or_else(|| outs0.get(&slot))
                .or_else(|| ins0.get(&slot))
                .expect("a slot of either side");
            let name = |v: Option<&Var>, old: Option<&Var>, stage: usize| {
                v.or(old).map(|v| (stage, v.name.clone()))
            };
            rows.push(InterfaceRow {
                edge: edge.clone(),
                slot,
                ty: match (w, r) {
                    (Some(w), Some(r)) if w.ty != r.ty => format!("{} / {}", w.ty, r.ty),
                    _ => shown.ty.clone(),
                },
                interpolation: match (w, r) {
                    (Some(w), Some(r)) if w.interpolation != r.interpolation => {
                        format!("{} / {}", interp_or_smooth(w), interp_or_smooth(r))
                    }
                    _ => interp_text(shown),
                },
                writer: name(w, outs0.get(&slot), p),
                reader: match status {
                    RowStatus::FixedFunction => Some((usize::MAX, "rasterizer".into())),
                    _ => name(r, ins0.get(&slot), c),
                },
                status,
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_order_parses() {
        assert_eq!("fs-first".parse::<LinkOrder>(), Ok(LinkOrder::FsFirst));
        assert_eq!("vs-first".parse::<LinkOrder>(), Ok(LinkOrder::VsFirst));
        assert!("sideways".parse::<LinkOrder>().is_err());
    }
}
