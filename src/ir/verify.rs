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
//! 5. Types of operands: loads and stores match their pointer's pointee type, float arithmetic
//!    has operands of the result type, a return value has the function's return type, a
//!    conditional branch tests a bool, a call passes as many arguments as the callee takes.
//! 6. Shape, from the grammar: an instruction has a result type and a result id exactly when its
//!    op does, and its required operands are present with the right kinds (ids where ids go,
//!    literals where literals go, enumerants of the right kind).
//! 7. Overloads, from the op table: an op works on an element kind and width it has an overload
//!    for, and the capability that width needs (Float16, Float64, Int8, Int16, Int64) is declared.
//!
//! Unreachable blocks are exempt from the dominance rules, as in SPIR-V itself.

use std::collections::{HashMap, HashSet};
use std::fmt;

use rspirv::dr::Operand;
use rspirv::grammar::{OperandKind, OperandQuantifier};
use spirv::Op;

use super::cfg::Cfg;
use super::idmap::IdMap;
use super::inst::{self, Id, Inst};
use super::module::{Function, Merge, Module};
use super::ops::{self, Kind, OpClass};
use super::spirv::disasm::op_name;
use super::spirv::grammar as spirv_grammar;

#[derive(Clone, Debug, PartialEq)]
pub struct VerifyError {
    /// Function the error is in, if any.
    pub function: Option<Id>,
    /// Result id of the offending instruction, or the block label.
    pub at: Option<Id>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.function, self.at) {
            (Some(func), Some(at)) => write!(f, "in function %{func}, at %{at}: {}", self.message),
            (Some(func), None) => write!(f, "in function %{func}: {}", self.message),
            (None, Some(at)) => write!(f, "at %{at}: {}", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

struct Verifier<'m> {
    m: &'m Module,
    errors: Vec<VerifyError>,
    /// Per id (indexed by id, sized by the bound): its type, 0 when untyped.
    value_type: IdMap<Id>,
    types: IdMap<Option<&'m Inst>>,
    defined: IdMap<bool>,
    capabilities: std::collections::HashSet<spirv::Capability>,
}

pub fn verify(m: &Module) -> Vec<VerifyError> {
    let mut v = Verifier {
        m,
        errors: Vec::new(),
        value_type: IdMap::new(m, 0),
        types: IdMap::new(m, None),
        defined: IdMap::new(m, false),
        capabilities: m
            .preamble
            .iter()
            .filter_map(|i| match (i.op, i.operands.first()) {
                (Op::Capability, Some(Operand::Capability(c))) => Some(*c),
                _ => None,
            })
            .collect(),
    };
    v.ids();
    for f in &m.functions {
        v.function(f);
    }
    v.errors
}

/// The grammar kind an operand value is, for comparison with what the grammar expects.
fn operand_fits(kind: OperandKind, op: &Operand) -> bool {
    use OperandKind as K;
    match kind {
        K::IdRef | K::IdScope | K::IdMemorySemantics => {
            matches!(
                op,
                Operand::IdRef(_) | Operand::IdScope(_) | Operand::IdMemorySemantics(_)
            )
        }
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
            // Enumerants: the operand's variant is named after its kind.
            let variant = format!("{op:?}");
            let name = variant.split('(').next().unwrap_or("");
            name == format!("{kind:?}")
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

/// Checks an instruction against its grammar: result type and id, and the required operands up
/// to the first optional one or enumerant (whose parameters the grammar does not list).
fn grammar_shape(i: &Inst) -> Option<String> {
    let g = spirv_grammar::core(i.op as u32)?;
    let name = format!("Op{}", g.opname);
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
    let required = g
        .operands
        .iter()
        .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult));
    for (k, lo) in required.enumerate() {
        if lo.quantifier != OperandQuantifier::One {
            break;
        }
        let Some(op) = i.operands.get(k) else {
            return Some(format!(
                "{name} is missing operand {} ({:?})",
                k + 1,
                lo.kind
            ));
        };
        if !operand_fits(lo.kind, op) {
            let variant = format!("{op:?}");
            return Some(format!(
                "{name} operand {} should be {:?}, not {}",
                k + 1,
                lo.kind,
                variant.split('(').next().unwrap_or("")
            ));
        }
        if is_enum_kind(lo.kind) {
            break;
        }
    }
    None
}

impl<'m> Verifier<'m> {
    fn error(&mut self, function: Option<Id>, at: Option<Id>, message: String) {
        self.errors.push(VerifyError {
            function,
            at,
            message,
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
                    function: None,
                    at: Some(id),
                    message: format!("%{id} is not below the bound {bound}"),
                });
            }
            let d = defined.get_mut(id);
            if *d {
                errors.push(VerifyError {
                    function: None,
                    at: Some(id),
                    message: format!("%{id} is defined more than once"),
                });
            } else {
                *d = true;
                if let Some(t) = i.ty {
                    *value_type.get_mut(id) = t;
                }
            }
        });
        for g in &m.globals {
            if inst::is_type(g.op) {
                if let Some(r) = g.result {
                    *self.types.get_mut(r) = Some(g);
                }
            }
        }
        let (defined, types) = (&self.defined, &self.types);
        m.for_each_inst(|i| {
            if let Some(e) = grammar_shape(i) {
                errors.push(VerifyError {
                    function: None,
                    at: i.result,
                    message: e,
                });
            }
            for (k, id) in i.uses().enumerate() {
                let is_type = k == 0 && i.ty.is_some();
                if !*defined.get(id) {
                    errors.push(VerifyError {
                        function: None,
                        at: i.result,
                        message: format!("Op{} uses %{id}, which is never defined", op_name(i.op)),
                    });
                } else if is_type && types.get(id).is_none() {
                    errors.push(VerifyError {
                        function: None,
                        at: i.result,
                        message: format!(
                            "Op{} has result type %{id}, which is not a type",
                            op_name(i.op)
                        ),
                    });
                }
            }
        });
        self.errors.extend(errors);
    }

    fn pointee(&self, value: Id) -> Option<Id> {
        let ty = self.type_inst(self.value_type(value)?)?;
        match (ty.op, ty.operands.get(1)) {
            (Op::TypePointer, Some(Operand::IdRef(p))) => Some(*p),
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
        if f.blocks.is_empty() {
            return;
        }
        let cfg = Cfg::new(f);
        // Where each local value is defined: (block index, position); params at (usize::MAX, 0).
        let mut def_at: HashMap<Id, (usize, usize)> = HashMap::new();
        for p in &f.params {
            if let Some(r) = p.result {
                def_at.insert(r, (usize::MAX, 0));
            }
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            for (k, i) in b.insts.iter().enumerate() {
                if let Some(r) = i.result {
                    def_at.insert(r, (bi, k));
                }
            }
        }
        let labels: HashSet<Id> = cfg.labels.iter().copied().collect();
        let mut merge_owner: HashMap<Id, Id> = HashMap::new();

        for (bi, b) in f.blocks.iter().enumerate() {
            let at = Some(b.label);
            for t in b.successors() {
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
                        matches!(b.terminator.op, Op::BranchConditional | Op::Switch),
                        "OpSelectionMerge must be followed by OpBranchConditional or OpSwitch",
                    ),
                    Merge::Loop { .. } => (
                        matches!(b.terminator.op, Op::Branch | Op::BranchConditional),
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
                        if cfg.reachable(bi) && cfg.reachable(mi) && !cfg.dominates(bi, mi) {
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
                            if cfg.reachable(bi) && cfg.reachable(ci) && !cfg.dominates(bi, ci) {
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
            let all = b.insts.iter().chain(std::iter::once(&b.terminator));
            for (k, i) in all.enumerate() {
                let at = i.result.or(Some(b.label));
                if i.op == Op::Phi {
                    if seen_non_phi {
                        self.error(fid, at, "OpPhi after a non-phi instruction".into());
                    }
                    self.phi(f, &cfg, &def_at, bi, i);
                    continue;
                }
                if !matches!(i.op, Op::Line | Op::NoLine) {
                    seen_non_phi = true;
                }
                if cfg.reachable(bi) {
                    for u in i.id_operands() {
                        if let Some(&(db, dk)) = def_at.get(&u) {
                            let ok = db == usize::MAX
                                || (db == bi && dk < k)
                                || (db != bi && cfg.dominates(db, bi));
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
                self.operand_types(f, i, at);
            }
        }
    }

    fn phi(
        &mut self,
        f: &Function,
        cfg: &Cfg,
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
                if db != usize::MAX && cfg.reachable(pi) && !cfg.dominates(db, pi) {
                    self.error(
                        fid,
                        at,
                        format!("phi value %{value} does not dominate incoming block %{pred}"),
                    );
                }
            }
            if let (Some(t), Some(vt)) = (i.ty, self.value_type(value)) {
                if t != vt {
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
            match (t.op, t.operands.as_slice()) {
                (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => return Some((Kind::Float, *w)),
                (Op::TypeInt, [Operand::LiteralBit32(w), ..]) => return Some((Kind::Int, *w)),
                (Op::TypeBool, _) => return Some((Kind::Bool, 1)),
                (Op::TypeVector | Op::TypeMatrix, [Operand::IdRef(c), ..]) => ty = *c,
                _ => return None,
            }
        }
        None
    }

    /// The op table's overloads: the element type the op works on must be one it has, and the
    /// capability that width needs must be declared.
    fn overload(&mut self, f: &Function, i: &Inst, at: Option<Id>) {
        let Some(info) = ops::info(i.op) else { return };
        if info.overloads.is_empty() {
            return;
        }
        // Comparisons produce bools: their overload is the operands' type.
        let ty = if info.class == OpClass::Compare {
            i.id_operands().next().and_then(|v| self.value_type(v))
        } else {
            i.ty
        };
        let Some((kind, width)) = ty.and_then(|t| self.element(t)) else {
            return;
        };
        let fits = info
            .overloads
            .iter()
            .any(|o| o.kind == kind && o.widths.contains(&width));
        let short = |k: Kind| &k.name()[..1];
        if !fits {
            let valid: Vec<String> = info.overloads.iter().map(ToString::to_string).collect();
            self.error(
                Some(f.id()),
                at,
                format!(
                    "{} has no {}{width} overload (it takes {})",
                    info.name,
                    short(kind),
                    valid.join("; ")
                ),
            );
        } else if let Some(cap) = ops::width_capability(kind, width) {
            if !self.capabilities.contains(&cap) {
                self.error(
                    Some(f.id()),
                    at,
                    format!("{} on {}{width} needs capability {cap:?}, which the module does not declare", info.name, short(kind)),
                );
            }
        }
    }

    fn operand_types(&mut self, f: &Function, i: &Inst, at: Option<Id>) {
        self.overload(f, i, at);
        let fid = Some(f.id());
        let ids: Vec<Id> = i.id_operands().collect();
        match i.op {
            Op::Load => {
                if let (Some(t), Some(&p)) = (i.ty, ids.first()) {
                    match self.pointee(p) {
                        Some(pt) if pt != t => self.error(
                            fid,
                            at,
                            format!("OpLoad of %{t} through a pointer to %{pt}"),
                        ),
                        None if self.value_type(p).is_some() => {
                            self.error(fid, at, format!("OpLoad from %{p}, which is not a pointer"))
                        }
                        _ => {}
                    }
                }
            }
            Op::Store => {
                if let (Some(&p), Some(&v)) = (ids.first(), ids.get(1)) {
                    if let (Some(pt), Some(vt)) = (self.pointee(p), self.value_type(v)) {
                        if pt != vt {
                            self.error(
                                fid,
                                at,
                                format!("OpStore of a %{vt} value through a pointer to %{pt}"),
                            );
                        }
                    }
                }
            }
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate => {
                if let Some(t) = i.ty {
                    for v in &ids {
                        if let Some(vt) = self.value_type(*v) {
                            if vt != t {
                                self.error(
                                    fid,
                                    at,
                                    format!(
                                        "Op{} operand %{v} has type %{vt}, the result %{t}",
                                        op_name(i.op)
                                    ),
                                );
                            }
                        }
                    }
                }
            }
            Op::ReturnValue => {
                let ret = f.def.ty;
                if let (Some(&v), Some(r)) = (ids.first(), ret) {
                    if let Some(vt) = self.value_type(v) {
                        if vt != r {
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
            _ => {}
        }
    }
}
