//! Constants: an operand that is a value computed in the function made a null constant, and
//! a value replaced by a null constant or by one of its operands of its type.

use spirv::Op;

use super::guards::{constant_may_stand_for, integer_typed, DIVISIONS};
use super::Chance;
use crate::ir::Module;

/// Each operand of an instruction with a result that is a value computed in the function,
/// of a type a constant has. Under `differs` no divisor.
pub(super) fn operands(m: &Module, differs: bool) -> Vec<Chance> {
    let mut out = Vec::new();
    for f in m.functions() {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            for i in f.block_insts(b) {
                let op = i.op();
                if matches!(op, Op::Phi | Op::AccessChain | Op::InBoundsAccessChain)
                    || i.result().is_none()
                {
                    continue;
                }
                for (k, &a) in i.args().iter().enumerate() {
                    // Values computed in the function, of a type a constant has.
                    let Some(ty) = f.def_of(a).and_then(|d| d.ty()) else {
                        continue;
                    };
                    let divisor = DIVISIONS.contains(&op) && k == 1;
                    if constant_may_stand_for(m, ty, differs) && !(differs && divisor) {
                        out.push(Chance::Operand(fid, i.result().unwrap_or(0), k));
                    }
                }
            }
        }
    }
    out
}

/// Each value made a constant; then each value replaced by an operand of its type.
pub(super) fn values(m: &Module, differs: bool) -> Vec<Chance> {
    let mut out = Vec::new();
    let mut forwards = Vec::new();
    // Divisors stay: a zero there is undefined behaviour.
    let mut divisors = std::collections::HashSet::new();
    if differs {
        for f in m.functions() {
            for i in f.insts() {
                if DIVISIONS.contains(&i.op()) {
                    divisors.extend(i.args().get(1).copied());
                }
            }
        }
    }
    for f in m.functions() {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            for i in f.block_insts(b) {
                let op = i.op();
                if matches!(op, Op::Phi | Op::FunctionCall | Op::ConstantNull)
                    || crate::ir::inst::is_atomic(op)
                {
                    continue;
                }
                // Other types (images, samplers, pointers) become `OpUndef`, except under
                // `differs`.
                let (Some(r), Some(ty)) = (i.result(), i.ty()) else {
                    continue;
                };
                if constant_may_stand_for(m, ty, differs) && !divisors.contains(&r) {
                    out.push(Chance::Value(fid, r))
                }
                // Or by an operand of its type. Not integers under `differs`: an index
                // clamped into bounds would no longer be.
                let integer = integer_typed(m, ty);
                if !(differs && (integer || divisors.contains(&r))) {
                    forwards.extend(
                        i.args()
                            .iter()
                            .enumerate()
                            .filter(|&(_, &a)| {
                                a != r
                                    && f.def_of(a).or_else(|| m.global(a)).and_then(|d| d.ty())
                                        == Some(ty)
                            })
                            .map(|(k, _)| Chance::Forward(fid, r, k)),
                    );
                }
            }
        }
    }
    out.extend(forwards);
    out
}
