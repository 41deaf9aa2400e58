//! Constants: an operand that is a value computed in the function made a null constant (then
//! another constant of its type), and a value replaced by a null constant, by one of its
//! operands of its type or by an earlier value of its type.

use spirv::Op;

use super::guards::{constant_may_stand_for, integer_typed, DIVISIONS};
use super::Chance;
use crate::ir::Module;

/// Each operand of an instruction with a result that is a value computed in the function,
/// of a type a constant has. Under `differs` no divisor.
pub(super) fn operands(m: &Module, differs: bool) -> Vec<Chance> {
    let mut out = Vec::new();
    let mut others = Vec::new();
    let mut earlier = Vec::new();
    for f in m.functions() {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            // Values computed in this block so far, by type.
            let mut before: Vec<(crate::ir::Id, crate::ir::Id)> = Vec::new();
            for i in f.block_insts(b) {
                let op = i.op();
                if let (Some(r), Some(ty)) = (i.result(), i.ty()) {
                    if op != Op::Phi {
                        before.push((ty, r));
                    }
                }
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
                    if !divisor && other_constant(m, ty).is_some() {
                        others.push(Chance::OperandConstant(fid, i.result().unwrap_or(0), k));
                    }
                    // The last value of its type before this one, other than the operand.
                    let r = i.result().unwrap_or(0);
                    let last = before
                        .iter()
                        .rev()
                        .find(|&&(t, v)| t == ty && v != a && v != r)
                        .map(|&(_, v)| v);
                    if let (Some(v), false) = (last, divisor || (differs && integer_typed(m, ty))) {
                        earlier.push(Chance::Dominating(fid, r, k, v));
                    }
                }
            }
        }
    }
    out.extend(others);
    out.extend(earlier);
    out
}

/// The module's first constant of type `ty` that is not null: a scalar `OpConstant` other
/// than zero, or `true`.
pub(super) fn other_constant(m: &Module, ty: crate::ir::Id) -> Option<crate::ir::Id> {
    m.globals()
        .iter()
        .find(|g| {
            g.ty() == Some(ty)
                && match g.op() {
                    Op::ConstantTrue => true,
                    Op::Constant => g.lits().iter().any(|l| {
                        !matches!(
                            l,
                            rspirv::dr::Operand::LiteralBit32(0)
                                | rspirv::dr::Operand::LiteralBit64(0)
                        )
                    }),
                    _ => false,
                }
        })
        .and_then(|g| g.result())
}

/// Values of its type computed before it in its block that a value may be replaced by
/// (`Chance::Earlier`), nearest first: a conversion and its inverse, or a composite built and
/// taken apart again, leave a value equal to an earlier one; more are rarely worth a
/// candidate each.
const EARLIER: usize = 3;

/// Each value made a constant; then each value replaced by an operand of its type; then by an
/// earlier value of its type in its block.
pub(super) fn values(m: &Module, differs: bool) -> Vec<Chance> {
    let mut out = Vec::new();
    let mut forwards = Vec::new();
    let mut earlier = Vec::new();
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
            // Values computed in this block so far, with their types.
            let mut before: Vec<(crate::ir::Id, crate::ir::Id)> = Vec::new();
            for i in f.block_insts(b) {
                let op = i.op();
                let seen = before.len();
                if let (Some(r), Some(ty)) = (i.result(), i.ty()) {
                    if op != Op::Phi && op != Op::Variable {
                        before.push((ty, r));
                    }
                }
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
                    // Operands are the forwards' already.
                    earlier.extend(
                        before[..seen]
                            .iter()
                            .rev()
                            .filter(|&&(t, v)| t == ty && !i.args().contains(&v))
                            .take(EARLIER)
                            .map(|&(_, v)| Chance::Earlier(fid, r, v)),
                    );
                }
            }
        }
    }
    out.extend(forwards);
    out.extend(earlier);
    out
}
