//! The IR verifier. It checks exactly these invariants and collects every violation:
//!
//! 1. Ids: every result id is defined once and is below the module's bound; every id used is
//!    defined somewhere in the module; a result type names a type.
//! 2. Blocks: every branch target is a block of the same function; a merge block or continue
//!    target is a block of the same function; a merge instruction precedes a branch of the
//!    right kind (selection: conditional branch or switch; loop: branch or conditional branch).
//! 3. SSA: a value defined in a function is used only where its definition dominates the use;
//!    a phi's incoming value dominates the end of its incoming block, and each incoming block is
//!    a predecessor; phis come first in their block.
//! 4. Structure: a merge block is the merge of one header only; a reachable header dominates its
//!    merge block (when reachable) and a loop header its continue target.
//! 5. Types of operands: loads and stores match their pointer's pointee type, a return value has
//!    the function's return type, a conditional branch tests a bool, a call passes as many
//!    arguments as the callee takes; and the op table's result rule holds (same type, same
//!    shape, shift, compare, same component count, resize, reduce, select), with the result
//!    and each value operand of the element kind (and, for `u`, signedness) the op's typing
//!    names — as `spirv-val` checks them, never stricter: a rule checks scalars and vectors
//!    only, and signedness only where `spirv-val` does (an unsigned op's `u`).
//! 6. Shape, from the op table: an instruction has a result type and a result id exactly when
//!    its op does, and its operands are there in the number and of the kinds the op takes (ids
//!    where ids go, literals where literals go, enumerants of the right kind). GLSL.std.450 and
//!    dialect instructions are checked against their own entries.
//! 7. Overloads, from the op table: an op works on an element kind and width it has an overload
//!    for, and the capability that width needs (Float16, Float64, Int8, Int16, Int64) is declared.
//!    A dialect bit-vector fits the integer and float overloads of its width.
//! 8. Target: an op needs the SPIR-V version it was added in (or one of the extensions that
//!    brought it earlier), and one of the capabilities it lists; so does every enumerant operand
//!    (decorations, built-ins, storage classes, image operands…). Capabilities implied by
//!    declared ones count as declared.
//! 9. Partitions: an op of the experimental partition is accepted only with `experimental`.
//!
//! Unreachable blocks are exempt from the dominance rules, as in SPIR-V itself.
//!
//! By family: `ids` (1, and 8 for the module's declarations), `flow` (2–4), `typing` (5, 7)
//! and `shape` (6, 8 and 9 per instruction); this file holds the verifier's state and the walk.

use super::fxhash::FxHashSet;
use std::fmt;

use rspirv::dr::Operand;
use rspirv::grammar::{OperandKind, OperandQuantifier};
use spirv::Op;

use super::analysis::Cfg;
use super::func::{Function, Merge};
use super::idmap::{IdMap, IdSpan};
use super::inst::{self, Id, Inst, Opd};
use super::module::Module;
use super::ops::{self, ExtSets, Kind, OpClass, OpInfo, OpSet, Rule, Val};
use super::spirv::disasm::{enum_text, op_name};
use super::spirv::grammar as spirv_grammar;
use super::types::dialect_type_width;

mod flow;
mod ids;
mod shape;
mod typing;

/// How bad a finding is: an error breaks an invariant the IR and its passes rely on; a
/// warning is a rule of SPIR-V's the verifier checks by its own reading (types, capabilities,
/// versions), where `spirv-val`, the reference, may accept what it rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VerifyError {
    pub level: Level,
    /// Function the error is in, if any.
    pub function: Option<Id>,
    /// Result id of the offending instruction, or the block label.
    pub at: Option<Id>,
    pub message: String,
    /// Where it is, as the IR text names it: `at %sum`, `in %main`.
    pub place: Option<String>,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(place) = &self.place {
            return write!(f, "{place}: {}", self.message);
        }
        match (self.function, self.at) {
            (Some(func), Some(at)) => write!(f, "in function %{func}, at %{at}: {}", self.message),
            (Some(func), None) => write!(f, "in function %{func}: {}", self.message),
            (None, Some(at)) => write!(f, "at %{at}: {}", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

/// What the verifier accepts beyond the module itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Accept ops of the experimental partition.
    pub experimental: bool,
}

struct Verifier<'m> {
    m: &'m Module,
    options: Options,
    errors: Vec<VerifyError>,
    /// Per id (indexed by id, sized by the bound): its type, 0 when untyped.
    value_type: IdMap<Id>,
    types: IdMap<Option<&'m Inst>>,
    defined: IdMap<bool>,
    /// Declared capabilities and every capability they imply.
    capabilities: FxHashSet<spirv::Capability>,
    extensions: FxHashSet<String>,
    sets: ExtSets,
}

/// The capabilities `declared` implicitly declares too, and themselves.
pub fn capability_closure(
    declared: impl IntoIterator<Item = spirv::Capability>,
) -> FxHashSet<spirv::Capability> {
    let mut all = FxHashSet::default();
    let mut work: Vec<_> = declared.into_iter().collect();
    while let Some(c) = work.pop() {
        if all.insert(c) {
            work.extend(Operand::Capability(c).required_capabilities());
        }
    }
    all
}

pub fn verify(m: &Module) -> Vec<VerifyError> {
    verify_with(m, &Options::default())
}

pub fn verify_with(m: &Module, options: &Options) -> Vec<VerifyError> {
    let span = IdSpan::of(m);
    let mut v = Verifier {
        m,
        options: *options,
        errors: Vec::new(),
        value_type: IdMap::sized(span, 0),
        types: IdMap::sized(span, None),
        defined: IdMap::sized(span, false),
        capabilities: capability_closure(m.preamble.iter().filter_map(|i| {
            match (i.op, i.lits().first()) {
                (Op::Capability, Some(Operand::Capability(c))) => Some(*c),
                _ => None,
            }
        })),
        extensions: m
            .preamble
            .iter()
            .filter_map(|i| match (i.op, i.lits().first()) {
                (Op::Extension, Some(Operand::LiteralString(e))) => Some(e.clone()),
                _ => None,
            })
            .collect(),
        sets: ExtSets::of(m),
    };
    v.ids();
    v.module_level();
    for f in m.functions() {
        v.function(f);
    }
    if !v.errors.is_empty() {
        let names = super::names::Names::for_module(m);
        for e in &mut v.errors {
            e.message = with_names(&e.message, &names);
            e.place = place(e.function, e.at, &names);
        }
    }
    v.errors
}

/// `at %sum` (an id names one instruction, wherever it is) or `in %main`: a location as the
/// IR text names it.
pub fn place(function: Option<Id>, at: Option<Id>, names: &super::names::Names) -> Option<String> {
    match (function, at) {
        (_, Some(a)) => Some(format!("at %{}", names.get(a))),
        (Some(f), None) => Some(format!("in %{}", names.get(f))),
        (None, None) => None,
    }
}

/// Rewrites `%12` in a message as the IR text spells id 12 (`%int_1`, `%main`), so messages
/// read like the code they are about.
fn with_names(message: &str, names: &super::names::Names) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(k) = rest.find('%') {
        out.push_str(&rest[..=k]);
        rest = &rest[k + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<Id>() {
            Ok(id) => out.push_str(&names.get(id)),
            Err(_) => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

impl<'m> Verifier<'m> {
    fn error(&mut self, function: Option<Id>, at: Option<Id>, message: String) {
        self.errors.push(VerifyError {
            level: Level::Error,
            function,
            at,
            message,
            place: None,
        });
    }

    fn warn(&mut self, function: Option<Id>, at: Option<Id>, message: String) {
        self.errors.push(VerifyError {
            level: Level::Warning,
            function,
            at,
            message,
            place: None,
        });
    }

    fn value_type(&self, id: Id) -> Option<Id> {
        Some(*self.value_type.get(id)).filter(|t| *t != 0)
    }

    fn type_inst(&self, id: Id) -> Option<&'m Inst> {
        *self.types.get(id)
    }

    fn is_void(&self, ty: Id) -> bool {
        self.type_inst(ty).is_some_and(|t| t.op == Op::TypeVoid)
    }

    /// Whether `value` is an untyped pointer: loads and stores through it are typed by the access.
    fn is_untyped_pointer(&self, value: Id) -> bool {
        self.value_type(value)
            .and_then(|t| self.type_inst(t))
            .is_some_and(|t| t.op == Op::TypeUntypedPointerKHR)
    }

    fn pointee(&self, value: Id) -> Option<Id> {
        let ty = self.type_inst(self.value_type(value)?)?;
        match (ty.op, ty.arg(0)) {
            (Op::TypePointer, Some(p)) => Some(p),
            _ => None,
        }
    }

    fn is_bool(&self, value: Id) -> bool {
        self.value_type(value)
            .and_then(|t| self.type_inst(t))
            .is_some_and(|t| t.op == Op::TypeBool)
    }
}
