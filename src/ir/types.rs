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
