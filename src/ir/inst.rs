//! Instructions: an opcode, an optional result type and result id, and operands — the id
//! operands (`args`) kept apart from the literal and enumerant operands (`lits`).
//!
//! Passes mostly ask about and rewrite ids (uses, replacement, renumbering), which then never
//! look at a literal; the few that read literals (`OpCompositeExtract` indices, decorations)
//! find them in a slice of their own. Each literal remembers its position among all operands,
//! so the original operand order — which SPIR-V binaries and the text forms keep — comes back
//! exactly. Literals use rspirv's `dr::Operand`, which knows every SPIR-V operand kind and the
//! parameters of enumerants; an id is never stored there.

use rspirv::dr::Operand;
use rspirv::grammar::reflect;
use spirv::Op;

use super::loc::Loc;

/// A result id. Types, constants, globals, functions, blocks and values share one id space,
/// exactly as in SPIR-V, so ids from the input survive the round trip unchanged.
pub type Id = spirv::Word;

/// An instruction's id operands: up to four inline.
pub type Args = smallvec::SmallVec<[Id; 4]>;

/// Equality and hashing look at what the instruction is, not at where it came from: two
/// instructions at different source locations are the same instruction (`loc` aside).
#[derive(Clone, Debug)]
pub struct Inst {
    pub(in crate::ir) op: Op,
    pub(in crate::ir) ty: Option<Id>,
    pub(in crate::ir) result: Option<Id>,
    /// Id operands in operand order: `IdRef`, `IdScope` and `IdMemorySemantics` alike (the
    /// grammar tells them apart where it matters, see `spirv::grammar::scope_operands`).
    pub(in crate::ir) args: Args,
    /// Literal and enumerant operands, boxed: most instructions have none, and a step of a
    /// large module holds a copy of each of its instructions.
    lits: Option<Box<Lits>>,
    /// Its source location, in its function's table (`Loc::NONE` outside function bodies).
    pub(in crate::ir) loc: Loc,
}

/// An instruction's literal and enumerant operands, never empty.
#[derive(Clone, Debug, PartialEq, Hash)]
struct Lits {
    /// In operand order; one or two in most instructions (a decoration and its value, a
    /// constant's value), so kept in the box: one allocation, not three.
    ops: smallvec::SmallVec<[Operand; 2]>,
    /// Position of each among all operands (ids and literals).
    at: smallvec::SmallVec<[u16; 4]>,
}

impl PartialEq for Inst {
    fn eq(&self, other: &Self) -> bool {
        self.op == other.op
            && self.ty == other.ty
            && self.result == other.result
            && self.args == other.args
            && self.lits == other.lits
    }
}

impl Eq for Inst {}

impl std::hash::Hash for Inst {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.op.hash(state);
        self.ty.hash(state);
        self.result.hash(state);
        self.args.hash(state);
        self.lits.hash(state);
    }
}

/// One operand, seen in operand order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Opd<'a> {
    Id(Id),
    Lit(&'a Operand),
}

impl Opd<'_> {
    pub fn id(self) -> Option<Id> {
        match self {
            Opd::Id(id) => Some(id),
            Opd::Lit(_) => None,
        }
    }
    pub fn lit(&self) -> Option<&Operand> {
        match self {
            Opd::Id(_) => None,
            Opd::Lit(l) => Some(l),
        }
    }
    /// The operand as rspirv spells it (ids as `IdRef`).
    pub fn to_operand(self) -> Operand {
        match self {
            Opd::Id(id) => Operand::IdRef(id),
            Opd::Lit(l) => l.clone(),
        }
    }
}

impl Inst {
    /// An instruction from operands in SPIR-V order; ids go to `args`, the rest to the literals.
    pub fn new(op: Op, ty: Option<Id>, result: Option<Id>, operands: Vec<Operand>) -> Self {
        let mut inst = Inst::with_args(op, ty, result, Vec::new());
        inst.set_operands(operands);
        inst
    }

    /// An instruction whose operands are all ids.
    pub fn with_args(op: Op, ty: Option<Id>, result: Option<Id>, args: impl Into<Args>) -> Self {
        Inst {
            op,
            ty,
            result,
            args: args.into(),
            lits: None,
            loc: Loc::NONE,
        }
    }

    pub fn label(id: Id) -> Self {
        Inst::with_args(Op::Label, None, Some(id), vec![])
    }

    /// Its opcode.
    pub fn op(&self) -> Op {
        self.op
    }

    /// Its result type, if it has one.
    pub fn ty(&self) -> Option<Id> {
        self.ty
    }

    /// Its result id, if it has one.
    pub fn result(&self) -> Option<Id> {
        self.result
    }

    /// Its id operands, in operand order.
    pub fn args(&self) -> &[Id] {
        &self.args
    }

    /// Its source location (`Loc::NONE` outside function bodies).
    pub fn loc(&self) -> Loc {
        self.loc
    }

    /// The literal and enumerant operands, in order.
    pub fn lits(&self) -> &[Operand] {
        self.lits.as_ref().map_or(&[], |l| &l.ops[..])
    }

    /// Where each literal is among all operands.
    fn lit_at(&self) -> &[u16] {
        self.lits.as_ref().map_or(&[], |l| &l.at[..])
    }

    /// The literals, to change in place (their number and positions stay).
    pub(in crate::ir) fn lits_mut(&mut self) -> &mut [Operand] {
        self.lits
            .as_mut()
            .map_or(Default::default(), |l| &mut l.ops[..])
    }

    pub fn lit(&self, k: usize) -> Option<&Operand> {
        self.lits().get(k)
    }

    /// Literal `k` as a 32-bit number (a plain literal, an extended instruction number or the
    /// opcode of an `OpSpecConstantOp`).
    pub fn lit_u32(&self, k: usize) -> Option<u32> {
        match self.lits().get(k)? {
            Operand::LiteralBit32(v) | Operand::LiteralExtInstInteger(v) => Some(*v),
            Operand::LiteralSpecConstantOpInteger(op) => Some(*op as u32),
            _ => None,
        }
    }

    /// Id operand `k` (counting ids only).
    pub fn arg(&self, k: usize) -> Option<Id> {
        self.args.get(k).copied()
    }

    pub fn operand_count(&self) -> usize {
        self.args.len() + self.lits().len()
    }

    /// Every operand in SPIR-V order.
    pub fn operands(&self) -> Operands<'_> {
        Operands {
            inst: self,
            pos: 0,
            arg: 0,
            lit: 0,
        }
    }

    /// Operand `k` counting ids and literals alike, as SPIR-V orders them.
    pub fn operand(&self, k: usize) -> Option<Opd<'_>> {
        match self.lit_at().iter().position(|&p| usize::from(p) == k) {
            Some(l) => Some(Opd::Lit(&self.lits()[l])),
            None => {
                let before = self
                    .lit_at()
                    .iter()
                    .filter(|&&p| usize::from(p) < k)
                    .count();
                self.args.get(k - before).map(|&id| Opd::Id(id))
            }
        }
    }

    /// The id at operand position `k`, if that operand is an id.
    pub fn id_at(&self, k: usize) -> Option<Id> {
        self.operand(k).and_then(Opd::id)
    }

    /// The position among all operands of id operand `n`.
    pub fn arg_position(&self, n: usize) -> usize {
        let mut pos = n;
        for &l in self.lit_at() {
            if usize::from(l) > pos {
                break;
            }
            pos += 1;
        }
        pos
    }

    /// The operands as rspirv spells them (ids as `IdRef`).
    pub fn to_operands(&self) -> Vec<Operand> {
        self.operands().map(Opd::to_operand).collect()
    }

    /// Replaces every operand.
    pub(in crate::ir) fn set_operands(&mut self, operands: Vec<Operand>) {
        self.args.clear();
        self.lits = None;
        for o in operands {
            self.push_operand(o);
        }
    }

    /// Appends an operand after the last one.
    pub(in crate::ir) fn push_operand(&mut self, o: Operand) {
        match operand_id(&o) {
            Some(id) => self.args.push(id),
            None => {
                let at = self.operand_count() as u16;
                let lits = self.lits.get_or_insert_with(|| {
                    Box::new(Lits {
                        ops: smallvec::SmallVec::new(),
                        at: smallvec::SmallVec::new(),
                    })
                });
                lits.at.push(at);
                lits.ops.push(o);
            }
        }
    }

    /// For `OpExtInst`: the set's import and the instruction number.
    pub fn ext_inst(&self) -> Option<(Id, u32)> {
        if self.op != Op::ExtInst {
            return None;
        }
        Some((self.arg(0)?, self.lit_u32(0)?))
    }

    pub fn is_terminator(&self) -> bool {
        reflect::is_block_terminator(self.op)
    }

    /// Blocks this terminator may transfer control to, in operand order.
    pub fn branch_targets(&self) -> &[Id] {
        self.args.get(self.target_range()).unwrap_or(&[])
    }

    /// Where the branch targets are among `args`.
    pub fn target_range(&self) -> std::ops::Range<usize> {
        let n = self.args.len();
        match self.op {
            Op::Branch => 0..n.min(1),
            Op::BranchConditional => 1.min(n)..n.min(3),
            Op::Switch => 1.min(n)..n,
            _ => 0..0,
        }
    }

    /// Ids referenced by operands (not the result type).
    pub fn id_operands(&self) -> impl Iterator<Item = Id> + '_ {
        self.args.iter().copied()
    }

    /// Every id this instruction refers to, result type included.
    pub fn uses(&self) -> impl Iterator<Item = Id> + '_ {
        self.ty.into_iter().chain(self.args.iter().copied())
    }

    /// Applies `f` to every id this instruction refers to (result type included) and its result.
    pub(in crate::ir) fn remap_ids(&mut self, mut f: impl FnMut(Id) -> Id) {
        if let Some(t) = self.ty.as_mut() {
            *t = f(*t);
        }
        if let Some(r) = self.result.as_mut() {
            *r = f(*r);
        }
        for a in &mut self.args {
            *a = f(*a);
        }
    }

    /// The instruction without its result: what makes two types or constants the same.
    pub(crate) fn intern_key(&self) -> Inst {
        Inst {
            result: None,
            loc: Loc::NONE,
            ..self.clone()
        }
    }

    /// Number of words this instruction takes in a binary.
    pub fn word_count(&self) -> usize {
        1 + usize::from(self.ty.is_some())
            + usize::from(self.result.is_some())
            + self.args.len()
            + self.lits().iter().map(lit_words).sum::<usize>()
    }
}

/// The operands of an instruction in SPIR-V order.
pub struct Operands<'a> {
    inst: &'a Inst,
    pos: usize,
    arg: usize,
    lit: usize,
}

impl<'a> Iterator for Operands<'a> {
    type Item = Opd<'a>;
    fn next(&mut self) -> Option<Opd<'a>> {
        let inst = self.inst;
        let out = if inst.lit_at().get(self.lit).map(|&p| usize::from(p)) == Some(self.pos)
            || self.arg >= inst.args.len()
        {
            let l = inst.lits().get(self.lit)?;
            self.lit += 1;
            Opd::Lit(l)
        } else {
            let id = inst.args[self.arg];
            self.arg += 1;
            Opd::Id(id)
        };
        self.pos += 1;
        Some(out)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.inst.operand_count() - self.arg - self.lit;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Operands<'_> {}

/// Words a literal or enumerant operand takes in a binary.
pub fn lit_words(o: &Operand) -> usize {
    match o {
        Operand::LiteralString(s) => super::strings::word_count(s),
        Operand::LiteralBit64(_) => 2,
        _ => 1,
    }
}

pub fn operand_id(op: &Operand) -> Option<Id> {
    match op {
        Operand::IdRef(id) | Operand::IdMemorySemantics(id) | Operand::IdScope(id) => Some(*id),
        _ => None,
    }
}

/// Type declarations: every op the grammar names `OpType…` (vendor types included, such as
/// `OpTypeCooperativeMatrixNV`).
pub fn is_type(op: Op) -> bool {
    static TYPES: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let types = TYPES.get_or_init(|| {
        let table = &rspirv::grammar::INSTRUCTION_TABLE;
        let max = table.iter().map(|g| g.opcode as usize).max().unwrap_or(0);
        let mut t = vec![false; max + 1];
        for g in table.iter() {
            if g.opname.starts_with("Type") {
                t[g.opcode as usize] = true;
            }
        }
        t
    });
    types.get(op as usize).copied().unwrap_or(false)
}

/// Specialization constants: their values are set when the pipeline is made.
pub fn is_spec_constant(op: Op) -> bool {
    matches!(
        op,
        Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstant
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
    )
}

/// Constant declarations (spec constants included).
pub fn is_constant(op: Op) -> bool {
    matches!(
        op,
        Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantSampler
            | Op::ConstantNull
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstant
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
    )
}

/// Types and constants that are equal exactly when their operands are equal. Aggregates are
/// nominal (equal members with different decorations are different types) and spec constants
/// are told apart by their `SpecId`, so neither is merged.
pub fn is_internable(op: Op) -> bool {
    (is_type(op)
        && !matches!(
            op,
            Op::TypeStruct
                | Op::TypeArray
                | Op::TypeRuntimeArray
                | Op::TypeForwardPointer
                | Op::TypeOpaque
        ))
        || matches!(
            op,
            Op::ConstantTrue
                | Op::ConstantFalse
                | Op::Constant
                | Op::ConstantComposite
                | Op::ConstantNull
        )
}

/// Debug instructions that `strip-debug` removes.
pub fn is_debug(op: Op) -> bool {
    matches!(
        op,
        Op::SourceContinued
            | Op::Source
            | Op::SourceExtension
            | Op::Name
            | Op::MemberName
            | Op::String
            | Op::Line
            | Op::NoLine
            | Op::ModuleProcessed
    )
}

/// Instructions that can only appear inside a block: seeing one at module level is a layout
/// error, not an opaque global.
pub fn is_block_level_only(op: Op) -> bool {
    reflect::is_block_terminator(op) || matches!(op, Op::Phi | Op::SelectionMerge | Op::LoopMerge)
}

/// Atomic memory operations: their first operand is the pointer they act on.
pub fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step of a large module holds a copy of its instructions: their size is most of
    /// the TUI's memory.
    #[test]
    fn an_instruction_stays_small() {
        assert!(
            std::mem::size_of::<Inst>() <= 56,
            "{}",
            std::mem::size_of::<Inst>()
        );
    }

    #[test]
    fn literals_keep_their_places_among_the_operands() {
        let ops = vec![
            Operand::IdRef(7),
            Operand::LiteralBit32(3),
            Operand::IdRef(9),
            Operand::LiteralBit32(5),
        ];
        let mut i = Inst::new(Op::CompositeInsert, Some(1), Some(2), ops.clone());
        assert_eq!(i.to_operands(), ops);
        assert_eq!(i.arg_position(1), 2);
        assert_eq!(i.lits().len(), 2);
        i.set_operands(vec![Operand::IdRef(4)]);
        assert!(i.lits().is_empty());
        assert_eq!(
            i,
            Inst::with_args(Op::CompositeInsert, Some(1), Some(2), vec![4])
        );
    }

    #[test]
    fn operands_come_back_in_order() {
        let ops = vec![
            Operand::IdRef(5),
            Operand::LiteralExtInstInteger(31),
            Operand::IdRef(7),
            Operand::IdRef(8),
        ];
        let i = Inst::new(Op::ExtInst, Some(1), Some(2), ops.clone());
        assert_eq!(i.args.as_slice(), [5, 7, 8]);
        assert_eq!(i.to_operands(), ops);
        assert_eq!(i.id_at(2), Some(7));
        assert_eq!(
            i.operand(1),
            Some(Opd::Lit(&Operand::LiteralExtInstInteger(31)))
        );
        assert_eq!(i.arg_position(0), 0);
        assert_eq!(i.arg_position(1), 2);
        assert_eq!(i.word_count(), 7);
    }

    #[test]
    fn switch_pairs_interleave() {
        let ops = vec![
            Operand::IdRef(3),
            Operand::IdRef(4),
            Operand::LiteralBit32(1),
            Operand::IdRef(5),
            Operand::LiteralBit32(2),
            Operand::IdRef(6),
        ];
        let mut i = Inst::new(Op::Switch, None, None, ops.clone());
        assert_eq!(i.branch_targets(), &[4, 5, 6]);
        assert_eq!(i.to_operands(), ops);
        assert_eq!(i.arg_position(3), 5);
        i.push_operand(Operand::LiteralBit32(3));
        i.push_operand(Operand::IdRef(9));
        assert_eq!(i.operand(6), Some(Opd::Lit(&Operand::LiteralBit32(3))));
        assert_eq!(i.id_at(7), Some(9));
    }
}
