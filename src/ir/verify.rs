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

use std::collections::{HashMap, HashSet};
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
    capabilities: HashSet<spirv::Capability>,
    extensions: HashSet<String>,
    sets: ExtSets,
}

/// The capabilities `declared` implicitly declares too, and themselves.
pub fn capability_closure(
    declared: impl IntoIterator<Item = spirv::Capability>,
) -> HashSet<spirv::Capability> {
    let mut all = HashSet::new();
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

/// The grammar kind an operand value is, for comparison with what the grammar expects.
fn operand_fits(kind: OperandKind, op: Opd) -> bool {
    use OperandKind as K;
    let op = match (kind, op) {
        (K::IdRef | K::IdScope | K::IdMemorySemantics, Opd::Id(_)) => return true,
        (_, Opd::Id(_)) => return false,
        (_, Opd::Lit(l)) => l,
    };
    match kind {
        K::IdRef | K::IdScope | K::IdMemorySemantics => false,
        K::LiteralInteger | K::LiteralContextDependentNumber | K::LiteralFloat => {
            matches!(op, Operand::LiteralBit32(_) | Operand::LiteralBit64(_))
        }
        K::LiteralExtInstInteger => matches!(
            op,
            Operand::LiteralExtInstInteger(_) | Operand::LiteralBit32(_)
        ),
        K::LiteralSpecConstantOpInteger => matches!(op, Operand::LiteralSpecConstantOpInteger(_)),
        K::LiteralString => matches!(op, Operand::LiteralString(_)),
        K::PairLiteralIntegerIdRef | K::PairIdRefLiteralInteger | K::PairIdRefIdRef => true,
        _ => {
            // Enumerants and masks.
            crate::ir::spirv::operand_tables::kind_of(op) == Some(kind)
        }
    }
}

fn is_enum_kind(kind: OperandKind) -> bool {
    use OperandKind as K;
    !matches!(
        kind,
        K::IdRef
            | K::IdScope
            | K::IdMemorySemantics
            | K::IdResult
            | K::IdResultType
            | K::LiteralInteger
            | K::LiteralContextDependentNumber
            | K::LiteralFloat
            | K::LiteralExtInstInteger
            | K::LiteralSpecConstantOpInteger
            | K::LiteralString
            | K::PairLiteralIntegerIdRef
            | K::PairIdRefLiteralInteger
            | K::PairIdRefIdRef
    )
}

/// `OpX` when displayed.
struct OpName(&'static str);

impl std::fmt::Display for OpName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op{}", self.0)
    }
}

/// Checks an instruction against its grammar: result type and id, the required operands up
/// to the first optional one or enumerant (whose parameters the grammar does not list), and no
/// more operands than an op with a fixed list takes.
fn grammar_shape(i: &Inst) -> Option<String> {
    let g = spirv_grammar::core(i.op as u32)?;
    // Said only when something is wrong: formatting it for every instruction was a fifth of
    // verifying a small module.
    let name = OpName(g.opname);
    let wants_type = g
        .operands
        .iter()
        .any(|o| o.kind == OperandKind::IdResultType);
    let wants_result = g.operands.iter().any(|o| o.kind == OperandKind::IdResult);
    if wants_type != i.ty.is_some() {
        return Some(if wants_type {
            format!("{name} needs a result type")
        } else {
            format!("{name} takes no result type")
        });
    }
    if wants_result != i.result.is_some() {
        return Some(if wants_result {
            format!("{name} needs a result id")
        } else {
            format!("{name} has no result id")
        });
    }
    let required: Vec<_> = g
        .operands
        .iter()
        .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
        .collect();
    for (k, lo) in required.iter().enumerate() {
        // OpSpecConstantOp's operands after the opcode are the wrapped op's.
        if lo.quantifier != OperandQuantifier::One
            || lo.kind == OperandKind::LiteralSpecConstantOpInteger
        {
            return None;
        }
        let Some(op) = i.operand(k) else {
            return Some(format!(
                "{name} is missing operand {} ({:?})",
                k + 1,
                lo.kind
            ));
        };
        if !operand_fits(lo.kind, op) {
            let variant = match op {
                Opd::Id(_) => "IdRef".to_string(),
                Opd::Lit(l) => format!("{l:?}"),
            };
            return Some(format!(
                "{name} operand {} should be {:?}, not {}",
                k + 1,
                lo.kind,
                variant.split('(').next().unwrap_or("")
            ));
        }
        if is_enum_kind(lo.kind) {
            return None;
        }
    }
    (i.operand_count() > required.len())
        .then(|| operand_count_message(&name.to_string(), required.len(), i.operand_count(), &[]))
}

fn operand_count_message(name: &str, takes: usize, has: usize, names: &[&str]) -> String {
    let list = if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    };
    format!(
        "{name} takes {takes} operand{}{list}, not {has}",
        if takes == 1 { "" } else { "s" }
    )
}

/// Checks an extended instruction of a set the table knows: operand count, and for dialect
/// ops whether the result type is void exactly when the op yields no value.
fn ext_shape(i: &Inst, info: &OpInfo, void: impl Fn(Id) -> bool) -> Option<String> {
    let has = i.operand_count().saturating_sub(2);
    let fixed = info
        .operands
        .iter()
        .all(|(_, q)| *q == OperandQuantifier::One);
    let takes = info.operands.len();
    if (fixed && has != takes) || has < takes {
        return Some(operand_count_message(
            &info.name,
            takes,
            has,
            info.operand_names,
        ));
    }
    if info.set == OpSet::Dialect {
        let is_void = i.ty.is_some_and(&void);
        if info.typed && is_void {
            return Some(format!(
                "{} yields a value: its result type cannot be void",
                info.name
            ));
        }
        if !info.typed && !is_void {
            return Some(format!(
                "{} yields no value: its result type must be void",
                info.name
            ));
        }
    }
    None
}

fn version_text((major, minor): (u8, u8)) -> String {
    format!("{major}.{minor}")
}

fn capability_list(caps: &[spirv::Capability]) -> String {
    match caps {
        [one] => format!("capability {one:?}"),
        _ => format!(
            "one of the capabilities {}",
            caps.iter()
                .map(|c| format!("{c:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
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

    fn ids(&mut self) {
        let m = self.m;
        let bound = m.bound;
        let mut errors = Vec::new();
        let (defined, value_type) = (&mut self.defined, &mut self.value_type);
        m.for_each_inst(|i| {
            let Some(id) = i.result else { return };
            if id >= bound {
                errors.push(VerifyError {
                    level: Level::Error,
                    function: None,
                    at: Some(id),
                    message: format!("%{id} is not below the bound {bound}"),
                    place: None,
                });
            }
            let d = defined.get_mut(id);
            if *d {
                errors.push(VerifyError {
                    level: Level::Error,
                    function: None,
                    at: Some(id),
                    message: format!("%{id} is defined more than once"),
                    place: None,
                });
            } else {
                *d = true;
                if let Some(t) = i.ty {
                    *value_type.get_mut(id) = t;
                }
            }
        });
        for g in m.globals() {
            let dialect_type = g.op == Op::ExtInst
                && ops::for_inst(g, &self.sets).is_some_and(|o| o.class == OpClass::Type);
            if inst::is_type(g.op) || dialect_type {
                if let Some(r) = g.result {
                    *self.types.get_mut(r) = Some(g);
                }
            }
        }
        let (defined, types) = (&self.defined, &self.types);
        m.for_each_inst(|i| {
            for (k, id) in i.uses().enumerate() {
                let is_type = k == 0 && i.ty.is_some();
                if !*defined.get(id) {
                    errors.push(VerifyError {
                        level: Level::Error,
                        function: None,
                        at: i.result,
                        message: format!("Op{} uses %{id}, which is never defined", op_name(i.op)),
                        place: None,
                    });
                } else if is_type && types.get(id).is_none() {
                    errors.push(VerifyError {
                        level: Level::Error,
                        function: None,
                        at: i.result,
                        message: format!(
                            "Op{} has result type %{id}, which is not a type",
                            op_name(i.op)
                        ),
                        place: None,
                    });
                }
            }
        });
        self.errors.extend(errors);
    }

    /// The table checks of every instruction outside function bodies.
    fn module_level(&mut self) {
        let m = self.m;
        let sections = [
            &m.preamble,
            &m.entry_points,
            &m.execution_modes,
            &m.debug,
            m.annotations(),
            m.globals(),
            &m.trailing_debug,
        ];
        for i in sections.into_iter().flatten() {
            self.check_inst(None, i, i.result);
        }
        for f in m.functions() {
            let headers = f
                .leading_debug
                .iter()
                .chain(std::iter::once(&f.def))
                .chain(&f.params)
                .chain(&f.prologue_debug)
                .chain(&f.epilogue_debug);
            for i in headers {
                self.check_inst(Some(f), i, i.result);
            }
        }
    }

    fn is_void(&self, ty: Id) -> bool {
        self.type_inst(ty).is_some_and(|t| t.op == Op::TypeVoid)
    }

    /// Everything the op table says about one instruction: shape, target version,
    /// capabilities, the experimental gate, overloads and the result rule.
    fn check_inst(&mut self, f: Option<&Function>, i: &Inst, at: Option<Id>) {
        let func = f.map(Function::id);
        let info = ops::for_inst(i, &self.sets);
        let shape = match info {
            Some(info) if info.set != OpSet::Core => ext_shape(i, info, |t| self.is_void(t)),
            _ => grammar_shape(i),
        };
        if let Some(e) = shape {
            self.error(func, at, e);
            return;
        }
        if i.op == Op::TypeVector {
            let n = i.lit_u32(0).unwrap_or(0);
            let any = self
                .capabilities
                .contains(&spirv::Capability::VectorAnyINTEL);
            if !(matches!(n, 2 | 3 | 4 | 8 | 16) || any && n >= 2) {
                self.error(
                    func,
                    at,
                    format!("a vector has 2, 3, 4, 8 or 16 components, not {n}"),
                );
            }
        }
        // Widths no SPIR-V type has (the passes compute with them: a width of 0 shifts by 64).
        if matches!(i.op, Op::TypeInt | Op::TypeFloat) {
            let w = i.lit_u32(0).unwrap_or(0);
            if w == 0 || w > 64 {
                self.error(
                    func,
                    at,
                    format!("Op{} of width {w}: widths are 1 to 64 bits", op_name(i.op)),
                );
            }
        }
        let Some(info) = info else { return };
        if info.experimental() && !self.options.experimental {
            self.error(
                func,
                at,
                format!(
                    "{} is an experimental op (FeatureID 0x{:04x}); pass --experimental to use it",
                    info.name,
                    info.feature_id()
                ),
            );
        }
        if let Some(need) = info.min_version {
            let have = self.m.header.version;
            let by_extension = info.extensions.iter().any(|e| self.extensions.contains(*e));
            if have < need && !by_extension {
                let alternative = if info.extensions.is_empty() {
                    String::new()
                } else {
                    format!(" (or the extension {})", info.extensions.join(" or "))
                };
                self.warn(
                    func,
                    at,
                    format!(
                        "{} needs SPIR-V {}{alternative}; the module is {}",
                        info.name,
                        version_text(need),
                        version_text(have)
                    ),
                );
            }
        }
        if !info.capabilities.is_empty()
            && !info
                .capabilities
                .iter()
                .any(|c| self.capabilities.contains(c))
        {
            self.warn(
                func,
                at,
                format!(
                    "{} needs {}, which the module does not declare",
                    info.name,
                    capability_list(&info.capabilities)
                ),
            );
        }
        if i.op != Op::Capability {
            // A built-in needs its capability only where it is used; a block member such as
            // gl_PerVertex's ClipDistance is declared whether or not the shader writes it.
            let member_builtin = i.op == Op::MemberDecorate;
            for operand in i.lits() {
                if member_builtin && matches!(operand, Operand::BuiltIn(_)) {
                    continue;
                }
                let needs = operand.required_capabilities();
                if !needs.is_empty() && !needs.iter().any(|c| self.capabilities.contains(c)) {
                    self.warn(
                        func,
                        at,
                        format!(
                            "{} operand {} needs {}, which the module does not declare",
                            info.name,
                            enum_text(operand).unwrap_or_else(|| operand.to_string()),
                            capability_list(&needs)
                        ),
                    );
                }
            }
        }
        if let Some(f) = f {
            // A kind error from the rule would be said again as a missing overload.
            if (info.set != OpSet::Core || !matches!(i.op, Op::Function | Op::FunctionParameter))
                && !self.result_rule(f, i, info, at)
            {
                self.overload(f, i, info, at);
            }
        }
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

    fn function(&mut self, f: &Function) {
        let fid = Some(f.id());
        if f.blocks().is_empty() {
            return;
        }
        let cfg = f.cfg();
        let dom = f.domtree();
        // SPIR-V exempts unreachable blocks from the dominance rules.
        let dominates = |a: usize, b: usize| !cfg.reachable(b) || dom.dominates(a, b);
        // Where each local value is defined: (block index, position); params at (usize::MAX, 0).
        let mut def_at: HashMap<Id, (usize, usize)> = HashMap::new();
        for p in &f.params {
            if let Some(r) = p.result {
                def_at.insert(r, (usize::MAX, 0));
            }
        }
        for bi in 0..f.blocks().len() {
            for (k, i) in f.block_insts(bi).enumerate() {
                if let Some(r) = i.result {
                    def_at.insert(r, (bi, k));
                }
            }
        }
        let labels: HashSet<Id> = cfg.labels.iter().copied().collect();
        let mut merge_owner: HashMap<Id, Id> = HashMap::new();

        for (bi, b) in f.blocks().iter().enumerate() {
            let at = Some(b.label);
            for &t in f.successors(bi) {
                if !labels.contains(&t) {
                    self.error(
                        fid,
                        at,
                        format!("branch to %{t}, which is not a block of this function"),
                    );
                }
            }
            if let Some(merge) = &b.merge {
                let (kind_ok, what) = match merge {
                    Merge::Selection { .. } => (
                        matches!(f.terminator(bi).op, Op::BranchConditional | Op::Switch),
                        "OpSelectionMerge must be followed by OpBranchConditional or OpSwitch",
                    ),
                    Merge::Loop { .. } => (
                        matches!(f.terminator(bi).op, Op::Branch | Op::BranchConditional),
                        "OpLoopMerge must be followed by OpBranch or OpBranchConditional",
                    ),
                };
                if !kind_ok {
                    self.error(fid, at, what.into());
                }
                let mb = merge.merge_block();
                match cfg.index.get(&mb) {
                    None => self.error(
                        fid,
                        at,
                        format!("merge block %{mb} is not a block of this function"),
                    ),
                    Some(&mi) => {
                        if let Some(prev) = merge_owner.insert(mb, b.label) {
                            self.error(
                                fid,
                                at,
                                format!("%{mb} is already the merge block of header %{prev}"),
                            );
                        }
                        if cfg.reachable(bi) && cfg.reachable(mi) && !dominates(bi, mi) {
                            self.error(
                                fid,
                                at,
                                format!("header does not dominate its merge block %{mb}"),
                            );
                        }
                    }
                }
                if let Some(ct) = merge.continue_target() {
                    match cfg.index.get(&ct) {
                        None => self.error(
                            fid,
                            at,
                            format!("continue target %{ct} is not a block of this function"),
                        ),
                        Some(&ci) => {
                            if cfg.reachable(bi) && cfg.reachable(ci) && !dominates(bi, ci) {
                                self.error(
                                    fid,
                                    at,
                                    format!(
                                        "loop header does not dominate its continue target %{ct}"
                                    ),
                                );
                            }
                        }
                    }
                }
            }

            let mut seen_non_phi = false;
            let all = f.block_insts(bi).chain(std::iter::once(f.terminator(bi)));
            for (k, i) in all.enumerate() {
                let at = i.result.or(Some(b.label));
                if i.op == Op::Phi {
                    if seen_non_phi {
                        self.error(fid, at, "OpPhi after a non-phi instruction".into());
                    }
                    self.phi(f, &cfg, &dominates, &def_at, bi, i);
                    continue;
                }
                seen_non_phi = true;
                if cfg.reachable(bi) {
                    for u in i.id_operands() {
                        if let Some(&(db, dk)) = def_at.get(&u) {
                            let ok = db == usize::MAX
                                || (db == bi && dk < k)
                                || (db != bi && dominates(db, bi));
                            if !ok {
                                self.error(
                                    fid,
                                    at,
                                    format!("use of %{u} is not dominated by its definition"),
                                );
                            }
                        }
                    }
                }
                self.check_inst(Some(f), i, at);
                self.operand_types(f, i, at);
            }
        }
    }

    fn phi(
        &mut self,
        f: &Function,
        cfg: &Cfg,
        dominates: &dyn Fn(usize, usize) -> bool,
        def_at: &HashMap<Id, (usize, usize)>,
        bi: usize,
        i: &Inst,
    ) {
        let fid = Some(f.id());
        let at = i.result;
        let ids: Vec<Id> = i.id_operands().collect();
        if !ids.len().is_multiple_of(2) {
            self.error(
                fid,
                at,
                "OpPhi operands must be (value, block) pairs".into(),
            );
            return;
        }
        for pair in ids.chunks(2) {
            let (value, pred) = (pair[0], pair[1]);
            let Some(&pi) = cfg.index.get(&pred) else {
                self.error(
                    fid,
                    at,
                    format!("OpPhi names %{pred}, which is not a block of this function"),
                );
                continue;
            };
            if !cfg.preds[bi].contains(&pi) {
                self.error(
                    fid,
                    at,
                    format!("OpPhi names %{pred}, which is not a predecessor"),
                );
                continue;
            }
            if let Some(&(db, _)) = def_at.get(&value) {
                if db != usize::MAX && cfg.reachable(pi) && !dominates(db, pi) {
                    self.error(
                        fid,
                        at,
                        format!("phi value %{value} does not dominate incoming block %{pred}"),
                    );
                }
            }
            if let (Some(t), Some(vt)) = (i.ty, self.value_type(value)) {
                if !self.compatible(vt, t) {
                    self.error(
                        fid,
                        at,
                        format!("phi value %{value} has type %{vt}, the phi has %{t}"),
                    );
                }
            }
        }
    }

    /// Element kind and width of a numeric or bool type, looking through vectors and matrices.
    fn element(&self, ty: Id) -> Option<(Kind, u32)> {
        // A matrix of vectors of scalars is two steps deep; a broken module may loop.
        let mut ty = ty;
        for _ in 0..3 {
            let t = self.type_inst(ty)?;
            match (t.op, t.lits(), t.arg(0)) {
                (Op::TypeFloat, [Operand::LiteralBit32(w), ..], _) => {
                    return Some((Kind::Float, *w))
                }
                (Op::TypeInt, [Operand::LiteralBit32(w), ..], _) => return Some((Kind::Int, *w)),
                (Op::TypeBool, _, _) => return Some((Kind::Bool, 1)),
                (Op::TypeVector | Op::TypeMatrix, _, Some(c)) => ty = c,
                (Op::ExtInst, _, _) => {
                    return dialect_type_width(t, &self.sets).map(|w| (Kind::Bits, w))
                }
                _ => return None,
            }
        }
        None
    }

    /// Whether a value of type `a` may stand where `b` is expected: the same type, or a
    /// bit-vector and a numeric type of the same width and count (the access types the bits).
    fn compatible(&self, a: Id, b: Id) -> bool {
        if a == b {
            return true;
        }
        match (self.shape(a), self.shape(b)) {
            (Some((ka, wa, na)), Some((kb, wb, nb))) => {
                wa == wb && na == nb && (ka == Kind::Bits || kb == Kind::Bits)
            }
            _ => false,
        }
    }

    /// Element kind, width and component count of a scalar or vector type.
    fn shape(&self, ty: Id) -> Option<(Kind, u32, u32)> {
        let t = self.type_inst(ty)?;
        let count = match (t.op, t.lits()) {
            (Op::TypeVector, [Operand::LiteralBit32(n)]) => *n,
            (Op::TypeMatrix | Op::TypeVector, _) => return None,
            _ => 1,
        };
        let (kind, width) = self.element(ty)?;
        Some((kind, width, count))
    }

    /// The op table's overloads: the element type the op works on must be one it has, and the
    /// capability that width needs must be declared.
    fn overload(&mut self, f: &Function, i: &Inst, info: &OpInfo, at: Option<Id>) {
        if info.overloads.is_empty() {
            return;
        }
        // Comparisons produce bools: their overload is the operands' type.
        let ty = if info.class == OpClass::Compare {
            self.value_operands(i, info)
                .first()
                .and_then(|v| self.value_type(*v))
        } else {
            i.ty
        };
        let Some((kind, width)) = ty.and_then(|t| self.element(t)) else {
            return;
        };
        let matching: Vec<Kind> = info
            .overloads
            .iter()
            .filter(|o| {
                o.widths.contains(&width)
                    && (o.kind == kind
                        || (kind == Kind::Bits && matches!(o.kind, Kind::Int | Kind::Float)))
            })
            .map(|o| o.kind)
            .collect();
        if matching.is_empty() {
            let valid: Vec<String> = info.overloads.iter().map(ToString::to_string).collect();
            self.warn(
                Some(f.id()),
                at,
                format!(
                    "{} has no {}{width} overload (it takes {})",
                    info.name,
                    kind.short(),
                    valid.join("; ")
                ),
            );
            return;
        }
        // A bit-vector needs the capability of the kind the op reads it as, when that is one.
        let read_as = match matching.as_slice() {
            [k] => *k,
            _ if kind != Kind::Bits => kind,
            _ => return,
        };
        if let Some(cap) = ops::width_capability(read_as, width) {
            if !self.capabilities.contains(&cap) {
                self.warn(
                    Some(f.id()),
                    at,
                    format!(
                        "{} on {}{width} needs capability {cap:?}, which the module does not declare",
                        info.name,
                        kind.short()
                    ),
                );
            }
        }
    }

    /// The value operands of an instruction: after the set and number of an extended one.
    fn value_operands(&self, i: &Inst, info: &OpInfo) -> Vec<Id> {
        let skip = if info.set == OpSet::Core { 0 } else { 1 };
        i.id_operands().skip(skip).collect()
    }

    /// Whether a type is a signed integer (or a vector or matrix of them).
    fn is_signed_int(&self, ty: Id) -> bool {
        let mut ty = ty;
        for _ in 0..3 {
            let Some(t) = self.type_inst(ty) else {
                return false;
            };
            match (t.op, t.lits(), t.arg(0)) {
                (Op::TypeInt, [_, Operand::LiteralBit32(s)], _) => return *s != 0,
                (Op::TypeVector | Op::TypeMatrix, _, Some(c)) => ty = c,
                _ => return false,
            }
        }
        false
    }

    /// Whether a value of type `ty` is of the kind (and signedness) typing symbol `want` names.
    /// Types that are not scalars or vectors, and symbols that name no kind, always fit.
    fn fits(&self, ty: Id, want: Val, result_kind: Option<Kind>) -> Option<bool> {
        let want_kind = match want {
            Val::Same => result_kind?,
            other => other.kind()?,
        };
        let (kind, _, _) = self.shape(ty)?;
        let kind_ok = kind == want_kind
            || (kind == Kind::Bits && matches!(want_kind, Kind::Int | Kind::Float));
        Some(kind_ok && !(want.unsigned() && self.is_signed_int(ty)))
    }

    /// The op table's result rule: how the value operands' types relate to the result type,
    /// and the element kinds its typing names. Returns whether the result or an operand is of
    /// the wrong kind (then the overload check, which would say it again, is skipped).
    fn result_rule(&mut self, f: &Function, i: &Inst, info: &OpInfo, at: Option<Id>) -> bool {
        let (Some(t), true) = (i.ty, info.rule != Rule::None) else {
            return false;
        };
        let fid = Some(f.id());
        let operands = self.value_operands(i, info);
        let typed: Vec<(Id, Id)> = operands
            .iter()
            .filter_map(|v| Some((*v, self.value_type(*v)?)))
            .collect();
        let describe = |(k, w, n): (Kind, u32, u32)| {
            let element = if k == Kind::Bool {
                "bool".to_string()
            } else {
                format!("{}{w}", k.short())
            };
            if n == 1 {
                let article = if matches!(k, Kind::Int | Kind::Float) {
                    "an"
                } else {
                    "a"
                };
                format!("{article} {element}")
            } else {
                format!("{n} × {element}")
            }
        };
        let signed_text = |(_, w, n): (Kind, u32, u32)| {
            if n == 1 {
                format!("a signed i{w}")
            } else {
                format!("{n} × signed i{w}")
            }
        };
        let kind_text = |want: Val, result: Option<Kind>, plural: bool| {
            let kind = match want {
                Val::Same => result,
                other => other.kind(),
            };
            let text = match (kind, want.unsigned(), plural) {
                (Some(Kind::Int), true, false) => "an unsigned integer",
                (Some(Kind::Int), true, true) => "unsigned integers",
                (Some(Kind::Int), false, false) => "an integer",
                (Some(Kind::Int), false, true) => "integers",
                (Some(Kind::Float), _, false) => "a float",
                (Some(Kind::Float), _, true) => "floats",
                (_, _, false) => "a bool",
                (_, _, true) => "bools",
            };
            text.to_string()
        };
        let rs = self.shape(t);
        // Element kinds, from the typing. A comparison's bool result is its rule's to check;
        // a same-type rule compares whole types, which says more than the kind.
        if let Some(typing) = info.typing.clone() {
            if info.rule != Rule::Compare && self.fits(t, typing.result, None) == Some(false) {
                let rs = rs.expect("a type that fits or not is a scalar or vector");
                let signed = if typing.result.unsigned() && rs.0 == Kind::Int {
                    "signed"
                } else {
                    ""
                };
                let what = if signed.is_empty() {
                    describe(rs)
                } else {
                    signed_text(rs)
                };
                self.error(
                    fid,
                    at,
                    format!(
                        "{} gives %{t}, {what}; it gives {}",
                        info.name,
                        kind_text(typing.result, None, true)
                    ),
                );
                return true;
            }
            if info.rule != Rule::SameType {
                let result_kind = rs.map(|s| s.0);
                let mut wrong = false;
                for (k, &(v, vt)) in typed.iter().enumerate() {
                    let want = typing.operand(k);
                    if self.fits(vt, want, result_kind) != Some(false) {
                        continue;
                    }
                    let Some(vs) = self.shape(vt) else { continue };
                    let what = if want.unsigned() && vs.0 == Kind::Int {
                        signed_text(vs)
                    } else {
                        describe(vs)
                    };
                    self.error(
                        fid,
                        at,
                        format!(
                            "{} operand %{v} is {what}, not {}",
                            info.name,
                            kind_text(want, result_kind, false)
                        ),
                    );
                    wrong = true;
                }
                if wrong {
                    return true;
                }
            }
        }
        match info.rule {
            Rule::None => {}
            Rule::SameType => {
                for (v, vt) in typed {
                    if !self.compatible(vt, t) {
                        // spirv-val lets signedness differ for some ops (GLSL.std.450's SAbs
                        // on unsigned values); kind, width and count must agree.
                        let message =
                            format!("{} operand %{v} has type %{vt}, the result %{t}", info.name);
                        if self.shape(vt).is_some() && self.shape(vt) == self.shape(t) {
                            self.warn(fid, at, message);
                        } else {
                            self.error(fid, at, message);
                        }
                    }
                }
            }
            Rule::SameShape | Rule::Shift => {
                let Some(rs) = self.shape(t) else {
                    return false;
                };
                for (k, (v, vt)) in typed.into_iter().enumerate() {
                    let Some(vs) = self.shape(vt) else { continue };
                    let ok = if info.rule == Rule::Shift && k == 1 {
                        vs.2 == rs.2
                    } else {
                        vs.1 == rs.1 && vs.2 == rs.2
                    };
                    if !ok {
                        self.error(
                            fid,
                            at,
                            format!(
                                "{} operand %{v} is {}; the result is {}",
                                info.name,
                                describe(vs),
                                describe(rs)
                            ),
                        );
                    }
                }
            }
            Rule::Compare => {
                let shapes: Vec<(Id, (Kind, u32, u32))> = typed
                    .iter()
                    .filter_map(|(v, vt)| Some((*v, self.shape(*vt)?)))
                    .collect();
                let Some(&(_, first)) = shapes.first() else {
                    return false;
                };
                let result_ok = self
                    .shape(t)
                    .is_some_and(|(k, _, n)| k == Kind::Bool && n == first.2);
                if !result_ok {
                    self.error(
                        fid,
                        at,
                        format!(
                            "{} gives %{t}; it must give {}",
                            info.name,
                            if first.2 == 1 {
                                "a bool".to_string()
                            } else {
                                format!("a vector of {} bools", first.2)
                            }
                        ),
                    );
                }
                for &(v, vs) in &shapes[1..] {
                    if vs.1 != first.1 || vs.2 != first.2 {
                        self.error(
                            fid,
                            at,
                            format!(
                                "{} compares {} with {} (%{v})",
                                info.name,
                                describe(first),
                                describe(vs)
                            ),
                        );
                    }
                }
            }
            Rule::SameCount => {
                let Some(rs) = self.shape(t) else {
                    return false;
                };
                for (v, vt) in typed {
                    let Some(vs) = self.shape(vt) else { continue };
                    if vs.2 != rs.2 {
                        self.error(
                            fid,
                            at,
                            format!(
                                "{} operand %{v} has {} component{}; the result {}",
                                info.name,
                                vs.2,
                                if vs.2 == 1 { "" } else { "s" },
                                rs.2
                            ),
                        );
                    }
                }
            }
            Rule::Resize => {
                let Some(rs) = rs else { return false };
                for (v, vt) in typed {
                    let Some(vs) = self.shape(vt) else { continue };
                    if vs.2 != rs.2 || vs.1 == rs.1 {
                        let why = if vs.2 != rs.2 {
                            "the component counts differ"
                        } else {
                            "a conversion changes the width"
                        };
                        self.error(
                            fid,
                            at,
                            format!(
                                "{} operand %{v} is {}; the result is {}: {why}",
                                info.name,
                                describe(vs),
                                describe(rs)
                            ),
                        );
                    }
                }
            }
            Rule::Reduce => {
                let Some(rs) = rs else { return false };
                if rs.2 != 1 {
                    self.error(
                        fid,
                        at,
                        format!(
                            "{} gives %{t}, {}; it gives a scalar",
                            info.name,
                            describe(rs)
                        ),
                    );
                    return false;
                }
                let mut count = None;
                for (v, vt) in typed {
                    let Some(vs) = self.shape(vt) else { continue };
                    let problem = if vs.2 == 1 {
                        Some("it takes vectors".to_string())
                    } else if vs.1 != rs.1 {
                        Some(format!("the result is {}", describe(rs)))
                    } else if count.is_some_and(|n| n != vs.2) {
                        Some("the operands' component counts differ".to_string())
                    } else {
                        None
                    };
                    count = Some(vs.2);
                    if let Some(problem) = problem {
                        self.error(
                            fid,
                            at,
                            format!("{} operand %{v} is {}; {problem}", info.name, describe(vs)),
                        );
                    }
                }
            }
            Rule::Select => {
                let Some((&(c, ct), objects)) = typed.split_first() else {
                    return false;
                };
                if let (Some(cs), Some(rs)) = (self.shape(ct), rs) {
                    if cs.2 != 1 && cs.2 != rs.2 {
                        self.error(
                            fid,
                            at,
                            format!(
                                "{} condition %{c} is {}; the result is {}: a vector condition needs \
                                 a vector result of its component count",
                                info.name,
                                describe(cs),
                                describe(rs)
                            ),
                        );
                    }
                }
                for &(v, vt) in objects {
                    if !self.compatible(vt, t) {
                        self.error(
                            fid,
                            at,
                            format!("{} operand %{v} has type %{vt}, the result %{t}", info.name),
                        );
                    }
                }
            }
        }
        false
    }

    fn operand_types(&mut self, f: &Function, i: &Inst, at: Option<Id>) {
        let fid = Some(f.id());
        let ids: Vec<Id> = i.id_operands().collect();
        match i.op {
            Op::Load => {
                if let (Some(t), Some(&p)) = (i.ty, ids.first()) {
                    match self.pointee(p) {
                        Some(pt) if !self.compatible(t, pt) => self.error(
                            fid,
                            at,
                            format!("OpLoad of %{t} through a pointer to %{pt}"),
                        ),
                        None if self.value_type(p).is_some() && !self.is_untyped_pointer(p) => {
                            self.error(fid, at, format!("OpLoad from %{p}, which is not a pointer"))
                        }
                        _ => {}
                    }
                }
            }
            Op::Store => {
                if let (Some(&p), Some(&v)) = (ids.first(), ids.get(1)) {
                    if let (Some(pt), Some(vt)) = (self.pointee(p), self.value_type(v)) {
                        if !self.compatible(vt, pt) {
                            self.error(
                                fid,
                                at,
                                format!("OpStore of a %{vt} value through a pointer to %{pt}"),
                            );
                        }
                    }
                }
            }
            Op::ReturnValue => {
                let ret = f.def.ty;
                if let (Some(&v), Some(r)) = (ids.first(), ret) {
                    if let Some(vt) = self.value_type(v) {
                        if !self.compatible(vt, r) {
                            self.error(
                                fid,
                                at,
                                format!("returns a %{vt} from a function returning %{r}"),
                            );
                        }
                    }
                }
            }
            Op::BranchConditional => {
                if let Some(&c) = ids.first() {
                    if self.value_type(c).is_some() && !self.is_bool(c) {
                        self.error(fid, at, format!("branch condition %{c} is not a bool"));
                    }
                }
            }
            Op::FunctionCall => {
                if let Some(&callee) = ids.first() {
                    if let Some(cf) = self.m.function(callee) {
                        if cf.params.len() != ids.len() - 1 {
                            self.error(
                                fid,
                                at,
                                format!(
                                    "call to %{callee} passes {} arguments; it takes {}",
                                    ids.len() - 1,
                                    cf.params.len()
                                ),
                            );
                        }
                    }
                }
            }
            Op::CompositeExtract | Op::CompositeInsert => self.composite_access(fid, i, at),
            Op::CompositeConstruct => self.composite_construct(fid, i, at),
            Op::VectorShuffle => self.vector_shuffle(fid, i, at),
            Op::MatrixTimesVector
            | Op::VectorTimesMatrix
            | Op::MatrixTimesMatrix
            | Op::MatrixTimesScalar
            | Op::VectorTimesScalar
            | Op::Transpose
            | Op::OuterProduct => self.matrix_op(fid, i, at),
            Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
                self.bit_field(fid, i, at)
            }
            _ => {}
        }
    }

    /// The members of a composite type: their types and how many (`None` for a runtime
    /// array, whose length is not known, or what is not a composite).
    fn members(&self, ty: Id) -> Option<(Members, &'static str)> {
        let t = self.type_inst(ty)?;
        Some(match t.op {
            Op::TypeStruct => (Members::List(t.args.to_vec()), "members"),
            Op::TypeVector | Op::TypeMatrix => (
                Members::Repeat(*t.args.first()?, u64::from(t.lit_u32(0)?)),
                "components",
            ),
            Op::TypeArray => {
                let len = self.m.global(*t.args.get(1)?)?;
                if len.op != Op::Constant {
                    return None;
                }
                (
                    Members::Repeat(*t.args.first()?, u64::from(len.lit_u32(0)?)),
                    "elements",
                )
            }
            _ => return None,
        })
    }

    /// `OpCompositeExtract`/`OpCompositeInsert`: the index path stays inside the composite,
    /// and the part it reaches has the type of the result (or of the inserted object).
    fn composite_access(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let name = if i.op == Op::CompositeExtract {
            "OpCompositeExtract"
        } else {
            "OpCompositeInsert"
        };
        let (composite, object) = match i.op {
            Op::CompositeExtract => (i.arg(0), None),
            _ => (i.arg(1), i.arg(0)),
        };
        let Some(mut ty) = composite.and_then(|c| self.value_type(c)) else {
            return;
        };
        let whole = ty;
        for l in i.lits() {
            let Operand::LiteralBit32(k) = l else { return };
            if self
                .type_inst(ty)
                .is_some_and(|t| t.op == Op::TypeRuntimeArray)
            {
                self.error(
                    fid,
                    at,
                    format!("{name} into %{ty}, a runtime array: its length is not known"),
                );
                return;
            }
            let Some((members, what)) = self.members(ty) else {
                // Not a composite the verifier knows (a dialect type, a cooperative matrix).
                if self
                    .type_inst(ty)
                    .is_some_and(|t| matches!(t.op, Op::TypeInt | Op::TypeFloat | Op::TypeBool))
                {
                    self.error(
                        fid,
                        at,
                        format!("{name} index {k} goes into %{ty}, which is not a composite"),
                    );
                }
                return;
            };
            match members.get(u64::from(*k)) {
                Some(m) => ty = m,
                None => {
                    self.error(
                        fid,
                        at,
                        format!(
                            "{name} index {k} is out of %{ty}, which has {} {what}",
                            members.len()
                        ),
                    );
                    return;
                }
            }
        }
        let (want, said) = match i.op {
            Op::CompositeExtract => (i.ty, "gives"),
            _ => (object.and_then(|o| self.value_type(o)), "inserts"),
        };
        if let Some(want) = want {
            if !self.compatible(want, ty) {
                self.error(
                    fid,
                    at,
                    format!("{name} {said} a %{want}; the path reaches a %{ty} of %{whole}"),
                );
            }
        }
        if i.op == Op::CompositeInsert {
            if let Some(t) = i.ty {
                if !self.compatible(t, whole) {
                    self.error(
                        fid,
                        at,
                        format!("{name} gives %{t}; the composite is a %{whole}"),
                    );
                }
            }
        }
    }

    /// `OpCompositeConstruct`: a struct, array or matrix from one value per member of its
    /// type; a vector from scalars and vectors of its component type, as many components as
    /// it has.
    fn composite_construct(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let Some(t) = i.ty else { return };
        let Some(ti) = self.type_inst(t) else { return };
        let parts: Vec<Id> = i.args.to_vec();
        if ti.op == Op::TypeVector {
            let (Some(&comp), Some(n)) = (ti.args.first(), ti.lit_u32(0)) else {
                return;
            };
            let mut total = 0u64;
            for &p in &parts {
                let Some(pt) = self.value_type(p) else { return };
                let Some(pi) = self.type_inst(pt) else { return };
                let (c, k) = if pi.op == Op::TypeVector {
                    (*pi.args.first().unwrap_or(&0), pi.lit_u32(0).unwrap_or(0))
                } else {
                    (pt, 1)
                };
                if !self.compatible(c, comp) {
                    self.error(
                        fid,
                        at,
                        format!("OpCompositeConstruct of %{t}: part %{p} is a %{pt}, not of its component type %{comp}"),
                    );
                    return;
                }
                total += u64::from(k);
            }
            if total != u64::from(n) {
                self.error(
                    fid,
                    at,
                    format!("OpCompositeConstruct of %{t} gives it {total} components; it has {n}"),
                );
            }
            return;
        }
        let Some((members, what)) = self.members(t) else {
            return;
        };
        if members.len() != parts.len() as u64 {
            self.error(
                fid,
                at,
                format!(
                    "OpCompositeConstruct of %{t} has {} parts; it has {} {what}",
                    parts.len(),
                    members.len()
                ),
            );
            return;
        }
        for (k, &p) in parts.iter().enumerate() {
            let Some(m) = members.get(k as u64) else {
                break;
            };
            if let Some(pt) = self.value_type(p) {
                if !self.compatible(pt, m) {
                    self.error(
                        fid,
                        at,
                        format!(
                            "OpCompositeConstruct of %{t}: part %{p} is a %{pt}, where a %{m} goes"
                        ),
                    );
                    return;
                }
            }
        }
    }

    /// `OpVectorShuffle`: two vectors of the result's component type, as many components in
    /// the result as indices, each index one of their components (or 0xFFFFFFFF, undefined).
    fn vector_shuffle(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let vector = |v: &Self, ty: Id| -> Option<(Id, u32)> {
            let t = v.type_inst(ty)?;
            if t.op != Op::TypeVector {
                return None;
            }
            Some((*t.args.first()?, t.lit_u32(0)?))
        };
        let (Some(t), Some(a), Some(b)) = (i.ty, i.arg(0), i.arg(1)) else {
            return;
        };
        let (Some((rc, rn)), Some(at_), Some(bt)) =
            (vector(self, t), self.value_type(a), self.value_type(b))
        else {
            return;
        };
        let (Some((ac, an)), Some((bc, bn))) = (vector(self, at_), vector(self, bt)) else {
            return;
        };
        if !self.compatible(ac, rc) || !self.compatible(bc, rc) {
            self.error(
                fid,
                at,
                format!(
                    "OpVectorShuffle of %{at_} and %{bt} gives %{t}: the component types differ"
                ),
            );
            return;
        }
        if i.lits().len() != rn as usize {
            self.error(
                fid,
                at,
                format!(
                    "OpVectorShuffle gives %{t}, {rn} components, from {} indices",
                    i.lits().len()
                ),
            );
            return;
        }
        for l in i.lits() {
            if let Operand::LiteralBit32(k) = l {
                if *k != u32::MAX && u64::from(*k) >= u64::from(an) + u64::from(bn) {
                    self.error(
                        fid,
                        at,
                        format!(
                            "OpVectorShuffle index {k} is out of the {} components of its vectors",
                            u64::from(an) + u64::from(bn)
                        ),
                    );
                    return;
                }
            }
        }
    }

    /// Matrix arithmetic: the shapes of its operands and result agree (columns and rows, the
    /// component type).
    fn matrix_op(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        // (component type, rows, columns) of a float matrix, vector (columns 1) or scalar.
        let shape = |v: &Self, ty: Id| -> Option<(Id, u32, u32)> {
            let t = v.type_inst(ty)?;
            match t.op {
                Op::TypeMatrix => {
                    let col = v.type_inst(*t.args.first()?)?;
                    Some((*col.args.first()?, col.lit_u32(0)?, t.lit_u32(0)?))
                }
                Op::TypeVector => Some((*t.args.first()?, t.lit_u32(0)?, 1)),
                Op::TypeFloat => Some((ty, 1, 1)),
                _ => None,
            }
        };
        let Some(t) = i.ty else { return };
        let ops: Vec<Id> = i.args.to_vec();
        let mut shapes = Vec::new();
        for &o in &ops {
            let Some(s) = self.value_type(o).and_then(|ty| shape(self, ty)) else {
                return;
            };
            shapes.push(s);
        }
        let Some((rc, rr, rcols)) = shape(self, t) else {
            return;
        };
        let name = format!("{:?}", i.op);
        let same_comp = shapes.iter().all(|s| self.compatible(s.0, rc));
        let ok = same_comp
            && match (i.op, shapes.as_slice()) {
                // r x c matrix times c-vector: an r-vector.
                (Op::MatrixTimesVector, [(_, r, c), (_, n, 1)]) => {
                    *c == *n && rr == *r && rcols == 1
                }
                // r-vector times r x c matrix: a c-vector.
                (Op::VectorTimesMatrix, [(_, n, 1), (_, r, c)]) => {
                    *n == *r && rr == *c && rcols == 1
                }
                (Op::MatrixTimesMatrix, [(_, r, c), (_, r2, c2)]) => {
                    *c == *r2 && rr == *r && rcols == *c2
                }
                (Op::MatrixTimesScalar, [(_, r, c), (_, 1, 1)]) => {
                    rr == *r && rcols == *c && *c > 1
                }
                (Op::VectorTimesScalar, [(_, n, 1), (_, 1, 1)]) => rr == *n && rcols == 1 && *n > 1,
                (Op::Transpose, [(_, r, c)]) => rr == *c && rcols == *r,
                (Op::OuterProduct, [(_, r, 1), (_, c, 1)]) => rr == *r && rcols == *c,
                _ => false,
            };
        if !ok {
            let names: Vec<String> = ops
                .iter()
                .map(|o| format!("%{}", self.value_type(*o).unwrap_or(0)))
                .collect();
            self.error(
                fid,
                at,
                format!(
                    "Op{} of {} cannot give %{t}: the shapes do not agree",
                    name,
                    names.join(" and ")
                ),
            );
        }
    }

    /// `OpBitFieldInsert` and the extracts: base (and insert) of the result type; offset and
    /// count scalar integers.
    fn bit_field(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let Some(t) = i.ty else { return };
        let values = if i.op == Op::BitFieldInsert { 2 } else { 1 };
        let name = format!("Op{:?}", i.op);
        for (k, &a) in i.args.iter().enumerate() {
            let Some(at_) = self.value_type(a) else {
                continue;
            };
            if k < values {
                if !self.compatible(at_, t) {
                    self.error(
                        fid,
                        at,
                        format!("{name} operand %{a} has type %{at_}, the result %{t}"),
                    );
                    return;
                }
            } else if !matches!(self.shape(at_), Some((Kind::Int | Kind::Bits, _, 1))) {
                self.error(
                    fid,
                    at,
                    format!("{name} offset or count %{a} is a %{at_}, not an integer scalar"),
                );
                return;
            }
        }
    }
}

/// A composite type's member types: each its own (a struct), or one repeated (vectors,
/// matrices, arrays — never spelled out, a count may be huge).
enum Members {
    List(Vec<Id>),
    Repeat(Id, u64),
}

impl Members {
    fn len(&self) -> u64 {
        match self {
            Members::List(l) => l.len() as u64,
            Members::Repeat(_, n) => *n,
        }
    }

    fn get(&self, k: u64) -> Option<Id> {
        match self {
            Members::List(l) => usize::try_from(k).ok().and_then(|k| l.get(k)).copied(),
            Members::Repeat(of, n) => (k < *n).then_some(*of),
        }
    }
}
