//! Type helpers that do not need a whole analysis: the scalar kinds of a module's numeric
//! types, and the dialect's bit-vector types.

use rspirv::dr::Operand;
use spirv::Op;

use super::fxhash::FxHashMap;
use super::inst::{Id, Inst};
use super::module::Module;
use super::number::ScalarKind;
use super::ops;

/// Integer, float and bit-vector scalar types of the module, by id.
pub fn scalar_kinds(m: &Module) -> FxHashMap<Id, ScalarKind> {
    let mut t = FxHashMap::default();
    let sets = ops::ExtSets::of(m);
    for inst in m.globals() {
        if let Some(width) = dialect_type_width(inst, &sets) {
            if let Some(id) = inst.result {
                t.insert(id, ScalarKind::Bits { width });
            }
            continue;
        }
        let (Some(id), ops) = (inst.result, inst.lits()) else {
            continue;
        };
        match (inst.op, ops) {
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                t.insert(
                    id,
                    ScalarKind::Int {
                        width: *w,
                        signed: *s == 1,
                    },
                );
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => {
                t.insert(id, ScalarKind::Float { width: *w });
            }
            _ => {}
        }
    }
    t
}

/// The width of `inst` if it declares a dialect bit-vector type.
pub fn dialect_type_width(inst: &Inst, sets: &ops::ExtSets) -> Option<u32> {
    let info = ops::for_inst(inst, sets).filter(|o| o.set == ops::OpSet::Dialect)?;
    ScalarKind::bits_width(&info.name)
}

/// A typed pointer type's storage class and pointee.
pub fn pointer_type(m: &Module, ty: Id) -> Option<(spirv::StorageClass, Id)> {
    let t = m.global(ty)?;
    match (t.op, t.lits(), t.args.as_slice()) {
        (Op::TypePointer, [Operand::StorageClass(c)], [p]) => Some((*c, *p)),
        _ => None,
    }
}

/// The value of an integer constant (its bits, zero-extended), if `id` is one.
pub fn const_int(m: &Module, id: Id) -> Option<u64> {
    let c = m.global(id)?;
    match (c.op, c.lits()) {
        (Op::Constant, [Operand::LiteralBit32(v)]) => Some(u64::from(*v)),
        (Op::Constant, [Operand::LiteralBit64(v)]) => Some(*v),
        (Op::ConstantNull, _) => Some(0),
        _ => None,
    }
}

/// The members of an aggregate or vector type whose members are known in number.
pub enum Members<'m> {
    /// A struct's member types.
    Listed(&'m [Id]),
    /// A vector, matrix or array: this many of one type.
    Repeated(Id, u32),
}

impl Members<'_> {
    pub fn count(&self) -> u32 {
        match self {
            Members::Listed(l) => l.len() as u32,
            Members::Repeated(_, n) => *n,
        }
    }
    /// The type of member `k`.
    pub fn get(&self, k: u32) -> Option<Id> {
        match self {
            Members::Listed(l) => l.get(k as usize).copied(),
            Members::Repeated(e, n) => (k < *n).then_some(*e),
        }
    }
}

/// The members of type `ty`; `None` for scalars and runtime arrays.
pub fn members(m: &Module, ty: Id) -> Option<Members<'_>> {
    let t = m.global(ty)?;
    match (t.op, t.args.as_slice(), t.lits()) {
        (Op::TypeStruct, members, _) => Some(Members::Listed(members)),
        (Op::TypeVector | Op::TypeMatrix, [e], [Operand::LiteralBit32(n)]) => {
            Some(Members::Repeated(*e, *n))
        }
        (Op::TypeArray, [e, len], _) => {
            let n = u32::try_from(const_int(m, *len)?).ok()?;
            Some(Members::Repeated(*e, n))
        }
        _ => None,
    }
}

/// The type reached from `ty` by constant member indices (`OpCompositeExtract` literals or the
/// constant indices of an access chain).
pub fn member_type(m: &Module, ty: Id, path: &[u32]) -> Option<Id> {
    let mut t = ty;
    for &k in path {
        t = members(m, t)?.get(k)?;
    }
    Some(t)
}

/// The component count of a vector type (2 to 16, the sizes SPIR-V has); `None` for other
/// types, and for a vector of a size no valid module has.
pub fn vector_len(m: &Module, ty: Id) -> Option<u32> {
    let t = m.global(ty)?;
    (t.op == Op::TypeVector)
        .then(|| t.lit_u32(0))
        .flatten()
        .filter(|n| (2..=16).contains(n))
}

/// The literal indices of an `OpCompositeExtract` or `OpCompositeInsert`.
pub fn literal_path(inst: &Inst) -> Vec<u32> {
    inst.lits()
        .iter()
        .filter_map(|o| match o {
            Operand::LiteralBit32(k) => Some(*k),
            _ => None,
        })
        .collect()
}

/// The ids decorated `BuiltIn`, with the built-in each is.
pub fn builtins(m: &Module) -> FxHashMap<Id, spirv::BuiltIn> {
    m.annotations()
        .iter()
        .filter(|a| a.op == Op::Decorate)
        .filter_map(|a| match (a.arg(0), a.lits()) {
            (Some(t), [Operand::Decoration(spirv::Decoration::BuiltIn), Operand::BuiltIn(b)]) => {
                Some((t, *b))
            }
            _ => None,
        })
        .collect()
}

/// Whether a load or store carries the `Volatile` memory access flag.
pub fn is_volatile(inst: &Inst) -> bool {
    inst.lits()
        .iter()
        .any(|o| matches!(o, Operand::MemoryAccess(a) if a.contains(spirv::MemoryAccess::VOLATILE)))
}
