//! `fold`: constant folding driven by the op table. An instruction whose op has a folding rule
//! (SPIR-V core or GLSL.std.450) and whose operands are all scalar constants is replaced by the
//! interned constant it computes;
//! an `OpSelect` on a constant condition is replaced by the operand it picks. Folded values feed
//! later folds in the same walk (blocks are in dominance order). Names and decorations of
//! folded values go with them.
//!
//! Bit-vector constants (after `untype`) are read as the op reads its operands — `OpFAdd` as
//! floats, `OpIAdd` as integers — and a bit-vector result is stored as its bits.
//!
//! It does not fold vectors, spec constants (their values come later) or anything the rule
//! leaves undefined (division by zero, oversized shifts).

use std::collections::HashMap;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::build::NarrowCaps;
use crate::ir::number::f64_to_f16;
use crate::ir::ops::{self, fold::Value, Val};
use crate::ir::rewrite::Replacer;
use crate::ir::{Id, Inst, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Fold;

#[derive(Clone, Copy)]
enum Scalar {
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Bool,
    /// A bit-vector (`untype`): the op says whether it is read as an integer or a float.
    Bits {
        width: u32,
    },
}

fn decode_float(bits: u64, width: u32) -> f64 {
    match width {
        16 => crate::ir::number::f16_to_f64(bits as u16),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

fn encode_float(value: f64, width: u32) -> Option<u64> {
    Some(match width {
        16 => u64::from(f64_to_f16(value)),
        32 => u64::from((value as f32).to_bits()),
        64 => value.to_bits(),
        _ => return None,
    })
}

/// A bit-vector constant read as `how` says.
fn read_bits(bits: u64, width: u32, how: Val) -> Option<Value> {
    match how {
        Val::Float => Some(Value::Float {
            value: decode_float(bits, width),
            width,
        }),
        Val::Int | Val::Uint => Some(Value::Int {
            bits: bits & mask(width),
            width,
        }),
        _ => None,
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn literal(op: &Operand) -> Option<u64> {
    match op {
        Operand::LiteralBit32(v) => Some(u64::from(*v)),
        Operand::LiteralBit64(v) => Some(*v),
        _ => None,
    }
}

/// The constant instruction for `v` of type `ty`.
fn constant(ty: Id, scalar: Scalar, v: Value) -> Option<Inst> {
    let word = |bits: u64, width: u32| {
        if width > 32 {
            Operand::LiteralBit64(bits)
        } else {
            Operand::LiteralBit32(bits as u32)
        }
    };
    Some(match (scalar, v) {
        (Scalar::Int { width, signed }, Value::Int { bits, .. }) => {
            // Narrow signed literals are sign-extended to the word.
            let bits = if signed && width < 32 {
                let shift = 64 - width;
                ((((bits << shift) as i64) >> shift) as u64) & 0xffff_ffff
            } else {
                bits & mask(width)
            };
            Inst::new(Op::Constant, Some(ty), None, vec![word(bits, width)])
        }
        (Scalar::Float { width }, Value::Float { value, .. }) => {
            let bits = encode_float(value, width)?;
            Inst::new(Op::Constant, Some(ty), None, vec![word(bits, width)])
        }
        (Scalar::Bits { width }, Value::Float { value, .. }) => {
            let bits = encode_float(value, width)?;
            Inst::new(Op::Constant, Some(ty), None, vec![word(bits, width)])
        }
        (Scalar::Bits { width }, Value::Int { bits, .. }) => Inst::new(
            Op::Constant,
            Some(ty),
            None,
            vec![word(bits & mask(width), width)],
        ),
        (Scalar::Bool, Value::Bool(b)) => Inst::new(
            if b {
                Op::ConstantTrue
            } else {
                Op::ConstantFalse
            },
            Some(ty),
            None,
            vec![],
        ),
        _ => return None,
    })
}

pub fn fold(m: &mut Module) -> bool {
    let mut scalars: HashMap<Id, Scalar> = HashMap::new();
    let mut values: HashMap<Id, Value> = HashMap::new();
    for g in m.globals() {
        let Some(id) = g.result else { continue };
        match (g.op, g.lits()) {
            (Op::TypeInt, [Operand::LiteralBit32(w), Operand::LiteralBit32(s)]) => {
                scalars.insert(
                    id,
                    Scalar::Int {
                        width: *w,
                        signed: *s == 1,
                    },
                );
            }
            (Op::TypeFloat, [Operand::LiteralBit32(w), ..]) => {
                scalars.insert(id, Scalar::Float { width: *w });
            }
            (Op::TypeBool, _) => {
                scalars.insert(id, Scalar::Bool);
            }
            _ => {}
        }
    }
    for (id, kind) in crate::ir::types::scalar_kinds(m) {
        if let crate::ir::number::ScalarKind::Bits { width } = kind {
            scalars.insert(id, Scalar::Bits { width });
        }
    }
    // Bit-vector constants: their bits, read by each op as it reads its operands.
    let mut raw: HashMap<Id, (u64, u32)> = HashMap::new();
    for g in m.globals() {
        let (Some(id), Some(ty)) = (g.result, g.ty) else {
            continue;
        };
        let v = match (g.op, scalars.get(&ty)) {
            (Op::ConstantTrue, _) => Value::Bool(true),
            (Op::ConstantFalse, _) => Value::Bool(false),
            (Op::Constant, Some(Scalar::Int { width, .. })) => {
                match g.lits().first().and_then(literal) {
                    Some(bits) => Value::Int {
                        bits: bits & mask(*width),
                        width: *width,
                    },
                    None => continue,
                }
            }
            (Op::Constant, Some(Scalar::Float { width })) => {
                let Some(bits) = g.lits().first().and_then(literal) else {
                    continue;
                };
                Value::Float {
                    value: decode_float(bits, *width),
                    width: *width,
                }
            }
            (Op::Constant, Some(Scalar::Bits { width })) => {
                if let Some(bits) = g.lits().first().and_then(literal) {
                    raw.insert(id, (bits & mask(*width), *width));
                }
                continue;
            }
            _ => continue,
        };
        values.insert(id, v);
    }

    let sets = ops::ExtSets::of(m);
    let caps = NarrowCaps::of(m);
    // Functions are taken out so constants can be interned into the module meanwhile.
    let mut functions = std::mem::take(m.functions_mut());
    let mut replace = Replacer::new();
    for f in &mut functions {
        let fid = f.id();
        for b in 0..f.blocks().len() {
            for iid in f.block(b).insts.clone() {
                replace.rewrite_inst(f, iid);
                let inst = f.inst(iid);
                let (Some(result), Some(ty)) = (inst.result, inst.ty) else {
                    continue;
                };
                let info = ops::for_inst(inst, &sets);
                // An extended instruction's first id is its set.
                let skip = usize::from(inst.op == Op::ExtInst);
                let ids = &inst.args[skip.min(inst.args.len())..];
                if inst.op == Op::Select {
                    if let (Some(Value::Bool(c)), Some(&a), Some(&b2)) = (
                        ids.first().and_then(|c| values.get(c)),
                        ids.get(1),
                        ids.get(2),
                    ) {
                        // A select of itself (only in a broken module) stays.
                        if replace.replace_in(fid, result, if *c { a } else { b2 }) {
                            continue;
                        }
                    }
                }
                let folded = info
                    .and_then(|info| Some((info.fold?, info.typing.as_ref())))
                    .zip(scalars.get(&ty).copied())
                    .and_then(|((rule, typing), scalar)| {
                        let args: Option<Vec<Value>> = ids
                            .iter()
                            .enumerate()
                            .map(|(n, i)| match values.get(i) {
                                Some(v) => Some(*v),
                                None => {
                                    let &(bits, width) = raw.get(i)?;
                                    read_bits(bits, width, typing?.operand(n))
                                }
                            })
                            .collect();
                        let v = rule(&args?)?;
                        Some((constant(ty, scalar, v)?, v, scalar))
                    })
                    // An 8- or 16-bit result the module may not have constants of stays
                    // computed.
                    .filter(|_| m.constant_allowed_with(&caps, ty));
                if let Some((id, v, scalar)) =
                    folded.and_then(|(c, v, s)| Some((m.intern(c)?, v, s)))
                {
                    match (scalar, v) {
                        (Scalar::Bits { width }, Value::Float { value, .. }) => {
                            raw.insert(id, (encode_float(value, width).unwrap_or(0), width));
                        }
                        (Scalar::Bits { width }, Value::Int { bits, .. }) => {
                            raw.insert(id, (bits & mask(width), width));
                        }
                        _ => {
                            values.insert(id, v);
                        }
                    }
                    replace.replace_in(fid, result, id);
                }
            }
        }
        // Folded instructions leave; phis and terminators may use values folded later in the
        // walk (loop back edges), which `apply` below rewrites.
        f.retain_all(|i| !i.result.is_some_and(|r| replace.is_replaced(r)));
    }
    *m.functions_mut() = functions;
    if replace.is_empty() {
        return false;
    }
    replace.apply(m, "fold");
    true
}

impl Pass for Fold {
    fn name(&self) -> &'static str {
        "fold"
    }
    fn description(&self) -> &'static str {
        "fold operations on scalar constants with the op table's folding rules"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(fold(module).into())
    }
}
