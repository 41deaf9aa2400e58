//! Constant-folding rules of the op table: for ops that have one, the value of the op applied
//! to constant scalar operands — one result per component (`Fold::Each`), two for ops whose
//! result is a struct of two members (`Fold::Pair`: carries, high halves, modf), or over the
//! operands' components together (`Fold::Whole`: packing, integer dot products). A rule
//! returns `None` where SPIR-V leaves the result undefined (division by zero, shifts by the
//! width or more, signed overflow of division, a bit field past the width) or to the
//! implementation's choice (`Round` of x.5), so folding never invents a value the hardware
//! would not compute. Float results are rounded to their width after each step.

use spirv::Op;

use crate::ir::number::{f16_to_f64, f64_to_f16};

/// A scalar constant: integers as their bits (the op says how to read them), floats in the
/// precision of their width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int { bits: u64, width: u32 },
    Float { value: f64, width: u32 },
    Bool(bool),
}

impl Value {
    fn int(self) -> Option<(u64, u32)> {
        match self {
            Value::Int { bits, width } => Some((bits, width)),
            _ => None,
        }
    }
    fn float(self) -> Option<(f64, u32)> {
        match self {
            Value::Float { value, width } => Some((value, width)),
            _ => None,
        }
    }
    fn bool(self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// `bits` as a signed integer of `width` bits, widened so sums cannot overflow.
fn wide(bits: u64, width: u32) -> i128 {
    i128::from(signed(bits, width))
}

/// `v` clamped to the signed range of `width` bits, as bits.
fn saturated(v: i128, width: u32) -> u64 {
    let max = i128::from(mask(width) >> 1);
    v.clamp(-max - 1, max) as u64
}

fn signed(bits: u64, width: u32) -> i64 {
    let shift = 64 - width.min(64);
    ((bits << shift) as i64) >> shift
}

fn min_signed(width: u32) -> i64 {
    if width >= 64 {
        i64::MIN
    } else {
        -(1i64 << (width - 1))
    }
}

/// Whether a signed result is representable in `width` bits (INT_MIN / -1 is not).
fn fits_signed(v: i64, width: u32) -> bool {
    width >= 64 || (min_signed(width)..=-(min_signed(width) + 1)).contains(&v)
}

/// Rounds to the precision of the width (f32 arithmetic happens in f32, f16 in f16), so a rule
/// of several steps rounds after each as the type's own arithmetic would.
fn round(value: f64, width: u32) -> f64 {
    match width {
        16 => f16_to_f64(f64_to_f16(value)),
        32 => f64::from(value as f32),
        _ => value,
    }
}

/// A rule applied component by component: a result from the operands' components at one index.
pub type FoldFn = fn(&[Value]) -> Option<Value>;

/// A rule with two results per component: the two members of a struct result (the low bits and
/// the carry, the fraction and the whole part).
pub type PairFn = fn(&[Value]) -> Option<(Value, Value)>;

/// A rule over whole operands: each operand's components in order (a scalar is one), giving the
/// result's components in order (a scalar result is one). For ops whose components do not line
/// up: packing, unpacking, dot products.
pub type WholeFn = fn(&[Vec<Value>]) -> Option<Vec<Value>>;

/// How an op folds: the shape of its rule.
#[derive(Clone, Copy, Debug)]
pub enum Fold {
    /// Component by component; a scalar operand beside vector ones stands for every
    /// component (the offset and count of a bit-field op).
    Each(FoldFn),
    /// Component by component, into a struct of two members of the operands' shape.
    Pair(PairFn),
    Whole(WholeFn),
}

impl Fold {
    /// Whether each result component comes from the operands' components at its index only.
    pub fn is_component_wise(self) -> bool {
        matches!(self, Fold::Each(_))
    }
}

/// How a core op folds, if it does.
pub fn fold(op: Op) -> Option<Fold> {
    rule(op)
        .map(Fold::Each)
        .or_else(|| pair_rule(op).map(Fold::Pair))
        .or_else(|| whole_rule(op).map(Fold::Whole))
}

/// How a GLSL.std.450 instruction folds, if it does.
pub fn glsl_fold(number: u32) -> Option<Fold> {
    glsl_rule(number)
        .map(Fold::Each)
        .or_else(|| glsl_pair_rule(number).map(Fold::Pair))
        .or_else(|| glsl_whole_rule(number).map(Fold::Whole))
}

fn int2(a: &[Value], f: impl Fn(u64, u64, u32) -> Option<u64>) -> Option<Value> {
    let ((x, w), (y, w2)) = (a.first()?.int()?, a.get(1)?.int()?);
    if w != w2 {
        return None;
    }
    f(x, y, w).map(|bits| Value::Int {
        bits: bits & mask(w),
        width: w,
    })
}

fn int_cmp(a: &[Value], f: impl Fn(u64, u64, u32) -> bool) -> Option<Value> {
    let ((x, w), (y, _)) = (a.first()?.int()?, a.get(1)?.int()?);
    Some(Value::Bool(f(x & mask(w), y & mask(w), w)))
}

fn float2(a: &[Value], f: impl Fn(f64, f64) -> f64) -> Option<Value> {
    let ((x, w), (y, _)) = (a.first()?.float()?, a.get(1)?.float()?);
    Some(Value::Float {
        value: round(f(x, y), w),
        width: w,
    })
}

fn float_cmp(a: &[Value], f: impl Fn(f64, f64) -> bool) -> Option<Value> {
    let ((x, _), (y, _)) = (a.first()?.float()?, a.get(1)?.float()?);
    Some(Value::Bool(f(x, y)))
}

fn unordered_or(a: &[Value], f: impl Fn(f64, f64) -> bool) -> Option<Value> {
    float_cmp(a, |x, y| x.is_nan() || y.is_nan() || f(x, y))
}

/// A classification of one float, by its value and width.
fn float_class(a: &[Value], f: impl Fn(f64, u32) -> bool) -> Option<Value> {
    let (x, w) = a.first()?.float()?;
    Some(Value::Bool(f(x, w)))
}

const MIN_NORMAL_F16: f64 = 1.0 / 16384.0;

/// The smallest positive normal number of a float width.
fn min_normal(width: u32) -> Option<f64> {
    match width {
        16 => Some(MIN_NORMAL_F16),
        32 => Some(f64::from(f32::MIN_POSITIVE)),
        64 => Some(f64::MIN_POSITIVE),
        _ => None,
    }
}

/// The mask of the bit field at `offset` of `count` bits in a `width`-bit base, with the
/// offset and count; `None` when the field does not fit (undefined). Both are read unsigned.
fn field_mask(offset: &Value, count: &Value, width: u32) -> Option<(u64, u32, u32)> {
    let ((offset, ow), (count, cw)) = (offset.int()?, count.int()?);
    let (offset, count) = (offset & mask(ow), count & mask(cw));
    if offset.checked_add(count)? > u64::from(width) {
        return None;
    }
    let (offset, count) = (offset as u32, count as u32);
    Some((mask(count).checked_shl(offset).unwrap_or(0), offset, count))
}

fn bool2(a: &[Value], f: impl Fn(bool, bool) -> bool) -> Option<Value> {
    Some(Value::Bool(f(a.first()?.bool()?, a.get(1)?.bool()?)))
}

/// The folding rule of an op, if it has one.
pub fn rule(op: Op) -> Option<FoldFn> {
    Some(match op {
        Op::IAdd => |a| int2(a, |x, y, _| Some(x.wrapping_add(y))),
        Op::ISub => |a| int2(a, |x, y, _| Some(x.wrapping_sub(y))),
        Op::IMul => |a| int2(a, |x, y, _| Some(x.wrapping_mul(y))),
        Op::UDiv => |a| {
            int2(a, |x, y, w| {
                (y & mask(w) != 0).then(|| (x & mask(w)) / (y & mask(w)))
            })
        },
        Op::UMod => |a| {
            int2(a, |x, y, w| {
                (y & mask(w) != 0).then(|| (x & mask(w)) % (y & mask(w)))
            })
        },
        Op::SDiv => |a| {
            int2(a, |x, y, w| {
                signed(x, w)
                    .checked_div(signed(y, w))
                    .filter(|v| fits_signed(*v, w))
                    .map(|v| v as u64)
            })
        },
        Op::SRem => |a| {
            int2(a, |x, y, w| {
                signed(x, w)
                    .checked_rem(signed(y, w))
                    .filter(|_| !(signed(x, w) == min_signed(w) && signed(y, w) == -1))
                    .map(|v| v as u64)
            })
        },
        // The remainder with the divisor's sign.
        Op::SMod => |a| {
            int2(a, |x, y, w| {
                let (x, y) = (signed(x, w), signed(y, w));
                x.checked_rem(y)
                    .filter(|_| !(x == min_signed(w) && y == -1))
                    .map(|r| {
                        (if r != 0 && (r < 0) != (y < 0) {
                            r + y
                        } else {
                            r
                        }) as u64
                    })
            })
        },
        // SPV_INTEL_shader_integer_functions2, computed wide so nothing overflows before
        // the saturation or the halving.
        Op::AbsISubINTEL => |a| {
            int2(a, |x, y, w| {
                Some((i128::from(signed(x, w)) - i128::from(signed(y, w))).unsigned_abs() as u64)
            })
        },
        Op::AbsUSubINTEL => |a| int2(a, |x, y, w| Some((x & mask(w)).abs_diff(y & mask(w)))),
        Op::IAddSatINTEL => |a| int2(a, |x, y, w| Some(saturated(wide(x, w) + wide(y, w), w))),
        Op::ISubSatINTEL => |a| int2(a, |x, y, w| Some(saturated(wide(x, w) - wide(y, w), w))),
        Op::UAddSatINTEL => |a| {
            int2(a, |x, y, w| {
                Some((x & mask(w)).saturating_add(y & mask(w)).min(mask(w)))
            })
        },
        Op::USubSatINTEL => |a| int2(a, |x, y, w| Some((x & mask(w)).saturating_sub(y & mask(w)))),
        Op::IAverageINTEL => |a| int2(a, |x, y, w| Some(((wide(x, w) + wide(y, w)) >> 1) as u64)),
        Op::IAverageRoundedINTEL => |a| {
            int2(a, |x, y, w| {
                Some(((wide(x, w) + wide(y, w) + 1) >> 1) as u64)
            })
        },
        Op::UAverageINTEL => |a| {
            int2(a, |x, y, w| {
                Some(((u128::from(x & mask(w)) + u128::from(y & mask(w))) >> 1) as u64)
            })
        },
        Op::UAverageRoundedINTEL => |a| {
            int2(a, |x, y, w| {
                Some(((u128::from(x & mask(w)) + u128::from(y & mask(w)) + 1) >> 1) as u64)
            })
        },
        // The low 16 bits of the second operand, sign- or zero-extended, times the first.
        Op::IMul32x16INTEL => |a| {
            int2(a, |x, y, _| {
                Some(x.wrapping_mul(y as u16 as i16 as i64 as u64))
            })
        },
        Op::UMul32x16INTEL => |a| int2(a, |x, y, _| Some(x.wrapping_mul(y & 0xffff))),
        Op::BitwiseAnd => |a| int2(a, |x, y, _| Some(x & y)),
        Op::BitwiseOr => |a| int2(a, |x, y, _| Some(x | y)),
        Op::BitwiseXor => |a| int2(a, |x, y, _| Some(x ^ y)),
        Op::ShiftLeftLogical => |a| int2(a, |x, y, w| (y < u64::from(w)).then(|| x << y)),
        Op::ShiftRightLogical => {
            |a| int2(a, |x, y, w| (y < u64::from(w)).then(|| (x & mask(w)) >> y))
        }
        Op::ShiftRightArithmetic => |a| {
            int2(a, |x, y, w| {
                (y < u64::from(w)).then(|| (signed(x, w) >> y) as u64)
            })
        },
        Op::SNegate => |a| {
            let (x, w) = a.first()?.int()?;
            Some(Value::Int {
                bits: x.wrapping_neg() & mask(w),
                width: w,
            })
        },
        Op::Not => |a| {
            let (x, w) = a.first()?.int()?;
            Some(Value::Int {
                bits: !x & mask(w),
                width: w,
            })
        },
        Op::IEqual => |a| int_cmp(a, |x, y, _| x == y),
        Op::INotEqual => |a| int_cmp(a, |x, y, _| x != y),
        Op::ULessThan => |a| int_cmp(a, |x, y, _| x < y),
        Op::ULessThanEqual => |a| int_cmp(a, |x, y, _| x <= y),
        Op::UGreaterThan => |a| int_cmp(a, |x, y, _| x > y),
        Op::UGreaterThanEqual => |a| int_cmp(a, |x, y, _| x >= y),
        Op::SLessThan => |a| int_cmp(a, |x, y, w| signed(x, w) < signed(y, w)),
        Op::SLessThanEqual => |a| int_cmp(a, |x, y, w| signed(x, w) <= signed(y, w)),
        Op::SGreaterThan => |a| int_cmp(a, |x, y, w| signed(x, w) > signed(y, w)),
        Op::SGreaterThanEqual => |a| int_cmp(a, |x, y, w| signed(x, w) >= signed(y, w)),
        Op::FAdd => |a| float2(a, |x, y| x + y),
        Op::FSub => |a| float2(a, |x, y| x - y),
        Op::FMul => |a| float2(a, |x, y| x * y),
        Op::FDiv => |a| float2(a, |x, y| x / y),
        Op::FNegate => |a| {
            let (x, w) = a.first()?.float()?;
            Some(Value::Float {
                value: -x,
                width: w,
            })
        },
        Op::FOrdEqual => |a| float_cmp(a, |x, y| x == y),
        Op::FOrdNotEqual => |a| float_cmp(a, |x, y| x != y && !x.is_nan() && !y.is_nan()),
        Op::FOrdLessThan => |a| float_cmp(a, |x, y| x < y),
        Op::FOrdLessThanEqual => |a| float_cmp(a, |x, y| x <= y),
        Op::FOrdGreaterThan => |a| float_cmp(a, |x, y| x > y),
        Op::FOrdGreaterThanEqual => |a| float_cmp(a, |x, y| x >= y),
        // Unordered: true when either is NaN, else the comparison.
        Op::FUnordEqual => |a| unordered_or(a, |x, y| x == y),
        Op::FUnordNotEqual => |a| unordered_or(a, |x, y| x != y),
        Op::FUnordLessThan => |a| unordered_or(a, |x, y| x < y),
        Op::FUnordLessThanEqual => |a| unordered_or(a, |x, y| x <= y),
        Op::FUnordGreaterThan => |a| unordered_or(a, |x, y| x > y),
        Op::FUnordGreaterThanEqual => |a| unordered_or(a, |x, y| x >= y),
        Op::Ordered => |a| float_cmp(a, |x, y| !x.is_nan() && !y.is_nan()),
        Op::Unordered => |a| float_cmp(a, |x, y| x.is_nan() || y.is_nan()),
        Op::IsNan => |a| float_class(a, |x, _| x.is_nan()),
        Op::IsInf => |a| float_class(a, |x, _| x.is_infinite()),
        Op::IsFinite => |a| float_class(a, |x, _| x.is_finite()),
        // Normal at the operand's width: an f32 denormal is a normal f64.
        Op::IsNormal => |a| {
            float_class(a, |x, w| {
                x.is_finite() && min_normal(w).is_some_and(|m| x.abs() >= m)
            })
        },
        Op::SignBitSet => |a| float_class(a, |x, _| x.is_sign_negative()),
        // The remainder with the dividend's sign: exact (fmod), so representable at any
        // width; undefined for a zero divisor.
        Op::FRem => |a| {
            let ((x, w), (y, _)) = (a.first()?.float()?, a.get(1)?.float()?);
            (y != 0.0).then(|| Value::Float {
                value: x % y,
                width: w,
            })
        },
        // The remainder with the divisor's sign, as x - y * floor(x / y) with each step
        // rounded to the width (what GLSL's mod() is defined as); undefined for a zero
        // divisor.
        Op::FMod => |a| {
            let ((x, w), (y, _)) = (a.first()?.float()?, a.get(1)?.float()?);
            if y == 0.0 {
                return None;
            }
            let q = round(x / y, w).floor();
            Some(Value::Float {
                value: round(x - round(y * q, w), w),
                width: w,
            })
        },
        Op::QuantizeToF16 => |a| {
            let (x, w) = a.first()?.float()?;
            let h = f16_to_f64(f64_to_f16(x));
            // Below f16's normals the result is a zero of either sign, the
            // implementation's choice.
            if x != 0.0 && x.abs() < MIN_NORMAL_F16 {
                return None;
            }
            Some(Value::Float { value: h, width: w })
        },
        // Count and Offset are read unsigned; a field past the width is undefined.
        Op::BitFieldInsert => |a| {
            let ((base, w), (insert, _)) = (a.first()?.int()?, a.get(1)?.int()?);
            let (field, offset, _) = field_mask(a.get(2)?, a.get(3)?, w)?;
            let moved = insert.checked_shl(offset).unwrap_or(0);
            Some(Value::Int {
                bits: ((base & !field) | (moved & field)) & mask(w),
                width: w,
            })
        },
        Op::BitFieldUExtract => |a| {
            let (base, w) = a.first()?.int()?;
            let (field, offset, _) = field_mask(a.get(1)?, a.get(2)?, w)?;
            Some(Value::Int {
                bits: (base & field).checked_shr(offset).unwrap_or(0),
                width: w,
            })
        },
        // The field's top bit fills the rest; a field of no bits is 0.
        Op::BitFieldSExtract => |a| {
            let (base, w) = a.first()?.int()?;
            let (field, offset, count) = field_mask(a.get(1)?, a.get(2)?, w)?;
            let bits = if count == 0 {
                0
            } else {
                signed((base & field) >> offset, count) as u64
            };
            Some(Value::Int {
                bits: bits & mask(w),
                width: w,
            })
        },
        Op::BitReverse => |a| {
            let (x, w) = a.first()?.int()?;
            Some(Value::Int {
                bits: (x & mask(w)).reverse_bits() >> (64 - w),
                width: w,
            })
        },
        Op::BitCount => |a| {
            let (x, w) = a.first()?.int()?;
            Some(Value::Int {
                bits: u64::from((x & mask(w)).count_ones()),
                width: w,
            })
        },
        // SPV_INTEL_shader_integer_functions2: the width for 0.
        Op::UCountLeadingZerosINTEL => |a| {
            let (x, w) = a.first()?.int()?;
            Some(Value::Int {
                bits: u64::from((x & mask(w)).leading_zeros() - (64 - w)),
                width: w,
            })
        },
        Op::UCountTrailingZerosINTEL => |a| {
            let (x, w) = a.first()?.int()?;
            Some(Value::Int {
                bits: u64::from((x & mask(w)).trailing_zeros().min(w)),
                width: w,
            })
        },
        Op::LogicalAnd => |a| bool2(a, |x, y| x && y),
        Op::LogicalOr => |a| bool2(a, |x, y| x || y),
        Op::LogicalEqual => |a| bool2(a, |x, y| x == y),
        Op::LogicalNotEqual => |a| bool2(a, |x, y| x != y),
        Op::LogicalNot => |a| Some(Value::Bool(!a.first()?.bool()?)),
        _ => return None,
    })
}

fn float1(a: &[Value], f: impl Fn(f64) -> f64) -> Option<Value> {
    let (x, w) = a.first()?.float()?;
    Some(Value::Float {
        value: round(f(x), w),
        width: w,
    })
}

fn lowest_set(x: u64) -> i128 {
    if x == 0 {
        -1
    } else {
        i128::from(x.trailing_zeros())
    }
}

fn highest_set(x: u64) -> i128 {
    if x == 0 {
        -1
    } else {
        i128::from(63 - x.leading_zeros())
    }
}

/// GLSL.std.450's NMin and NMax of two floats: the other one when one is NaN (NaN when both
/// are), else y when it is the smaller (larger) and x otherwise.
fn nmin(x: f64, y: f64) -> f64 {
    numbers(x, y, |x, y| if y < x { y } else { x })
}

fn nmax(x: f64, y: f64) -> f64 {
    numbers(x, y, |x, y| if x < y { y } else { x })
}

fn numbers(x: f64, y: f64, f: impl Fn(f64, f64) -> f64) -> f64 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        f(x, y)
    }
}

/// Integer operands of one width, read signed or unsigned.
fn ints(a: &[Value], is_signed: bool) -> Option<(Vec<i128>, u32)> {
    let w = a.first()?.int()?.1;
    let vals = a
        .iter()
        .map(|v| {
            let (bits, width) = v.int()?;
            (width == w).then(|| {
                if is_signed {
                    i128::from(signed(bits, w))
                } else {
                    i128::from(bits & mask(w))
                }
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((vals, w))
}

fn int_result(v: i128, width: u32) -> Value {
    Value::Int {
        bits: (v as u64) & mask(width),
        width,
    }
}

/// Floats that are not NaN (GLSL.std.450 leaves min, max and clamp of NaN undefined).
fn floats(a: &[Value]) -> Option<(Vec<f64>, u32)> {
    let w = a.first()?.float()?.1;
    let vals = a
        .iter()
        .map(|v| v.float().map(|(x, _)| x).filter(|x| !x.is_nan()))
        .collect::<Option<Vec<_>>>()?;
    Some((vals, w))
}

/// `2^e` when it is a normal number of `width` (exactly representable, so every
/// implementation's result), `None` otherwise.
fn exact_power_of_two(e: f64, width: u32) -> Option<Value> {
    let (min, max) = match width {
        16 => (-14.0, 15.0),
        32 => (-126.0, 127.0),
        64 => (-1022.0, 1023.0),
        _ => return None,
    };
    (e.fract() == 0.0 && (min..=max).contains(&e)).then(|| Value::Float {
        value: e.exp2(),
        width,
    })
}

/// `k` when `x` is exactly `2^k` (a positive normal power of two).
fn log2_exact(x: f64) -> Option<f64> {
    (x > 0.0 && x.is_normal() && x.to_bits() & ((1u64 << 52) - 1) == 0).then(|| x.log2())
}

/// A function of floats on its domain, rounded to the operands' width; `None` outside the
/// domain (GLSL.std.450 leaves the result undefined there) or for a result that is not finite.
fn approx(
    a: &[Value],
    domain: impl Fn(&[f64]) -> bool,
    f: impl Fn(&[f64]) -> f64,
) -> Option<Value> {
    let (v, w) = floats(a)?;
    if !domain(&v) {
        return None;
    }
    let value = round(f(&v), w);
    value
        .is_finite()
        .then_some(Value::Float { value, width: w })
}

/// The folding rule of a GLSL.std.450 instruction, if it has one: rounding, absolute value,
/// sign, step, min/max/clamp on numbers, square root (correctly rounded from f64 for 16- and
/// 32-bit floats), and the transcendental functions — exactly where the result is an exact
/// power of two (`exp2` of an integer, `log2` of a power of two, `pow` of a power of two to an
/// integer), elsewhere as the correctly rounded value. That is within the precision every
/// implementation must meet but not always the value it computes (as with spirv-opt's folding
/// of the same functions); outside their domains (log of a negative number, asin of 2, …)
/// they do not fold.
pub fn glsl_rule(number: u32) -> Option<FoldFn> {
    Some(match number {
        // Radians, Degrees
        11 => |a| approx(a, |_| true, |v| v[0].to_radians()),
        12 => |a| approx(a, |_| true, |v| v[0].to_degrees()),
        13 => |a| approx(a, |_| true, |v| v[0].sin()),
        14 => |a| approx(a, |_| true, |v| v[0].cos()),
        15 => |a| approx(a, |_| true, |v| v[0].tan()),
        16 => |a| approx(a, |v| v[0].abs() <= 1.0, |v| v[0].asin()),
        17 => |a| approx(a, |v| v[0].abs() <= 1.0, |v| v[0].acos()),
        18 => |a| approx(a, |_| true, |v| v[0].atan()),
        19 => |a| approx(a, |_| true, |v| v[0].sinh()),
        20 => |a| approx(a, |_| true, |v| v[0].cosh()),
        21 => |a| approx(a, |_| true, |v| v[0].tanh()),
        22 => |a| approx(a, |_| true, |v| v[0].asinh()),
        23 => |a| approx(a, |v| v[0] >= 1.0, |v| v[0].acosh()),
        24 => |a| approx(a, |v| v[0].abs() < 1.0, |v| v[0].atanh()),
        // Atan2(y, x): undefined for x = y = 0.
        25 => |a| approx(a, |v| v[0] != 0.0 || v[1] != 0.0, |v| v[0].atan2(v[1])),
        // Pow: (2^k)^n = 2^(k*n) exactly; undefined for x < 0, and for x = 0 with y <= 0.
        26 => |a| {
            let (v, w) = floats(a)?;
            if let (Some(k), true) = (log2_exact(v[0]), v[1].fract() == 0.0) {
                if let Some(exact) = exact_power_of_two(k * v[1], w) {
                    return Some(exact);
                }
            }
            approx(
                a,
                |v| v[0] > 0.0 || (v[0] == 0.0 && v[1] > 0.0),
                |v| v[0].powf(v[1]),
            )
        },
        27 => |a| approx(a, |_| true, |v| v[0].exp()),
        28 => |a| approx(a, |v| v[0] > 0.0, |v| v[0].ln()),
        // Exp2: exact for integers.
        29 => |a| {
            let (v, w) = floats(a)?;
            exact_power_of_two(v[0], w).or_else(|| approx(a, |_| true, |v| v[0].exp2()))
        },
        30 => |a| {
            approx(
                a,
                |v| v[0] > 0.0,
                |v| log2_exact(v[0]).unwrap_or(v[0].log2()),
            )
        },
        // InverseSqrt: undefined for x <= 0.
        32 => |a| approx(a, |v| v[0] > 0.0, |v| 1.0 / v[0].sqrt()),
        // Ldexp(x, e) = x * 2^e, rounded once. Past the width's exponents GLSL leaves the
        // result undefined (too large) or allows a flush to zero (too small): not folded.
        53 => |a| {
            let (x, w) = a.first()?.float()?;
            let (bits, ew) = a.get(1)?.int()?;
            let e = signed(bits, ew);
            let (min, max) = match w {
                16 => (-14, 16),
                32 => (-126, 128),
                _ => (-1022, 1024),
            };
            if !(min..=max).contains(&e) {
                return None;
            }
            let value = round(x * 2f64.powi(e as i32), w);
            let smallest_normal = 2f64.powi(min as i32);
            (value.is_finite() && (value == 0.0 || value.abs() >= smallest_normal))
                .then_some(Value::Float { value, width: w })
        },
        // Step(edge, x): 0 when x < edge, else 1.
        48 => |a| {
            let (v, w) = floats(a)?;
            Some(Value::Float {
                value: if v[1] < v[0] { 0.0 } else { 1.0 },
                width: w,
            })
        },
        // Round: a halfway case goes the way the implementation chooses, so x.5 has no
        // one value and is not folded (the interpreter takes it as undefined).
        1 => |a| {
            let (x, _) = a.first()?.float()?;
            (x.fract().abs() != 0.5).then_some(())?;
            float1(a, f64::round)
        },
        // RoundEven
        2 => |a| float1(a, f64::round_ties_even),
        3 => |a| float1(a, f64::trunc),
        4 => |a| float1(a, f64::abs),
        // SAbs: the most negative value stays itself.
        5 => |a| {
            let (v, w) = ints(a, true)?;
            Some(int_result(v[0].abs(), w))
        },
        // FSign
        6 => |a| {
            float1(a, |x| {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                }
            })
        },
        7 => |a| {
            let (v, w) = ints(a, true)?;
            Some(int_result(v[0].signum(), w))
        },
        8 => |a| float1(a, f64::floor),
        9 => |a| float1(a, f64::ceil),
        10 => |a| float1(a, |x| x - x.floor()),
        31 => |a| float1(a, f64::sqrt),
        // FMin, FMax, FClamp: undefined on NaN and (clamp) when min > max.
        37 => |a| {
            let (v, w) = floats(a)?;
            Some(Value::Float {
                value: v[0].min(v[1]),
                width: w,
            })
        },
        40 => |a| {
            let (v, w) = floats(a)?;
            Some(Value::Float {
                value: v[0].max(v[1]),
                width: w,
            })
        },
        43 => |a| {
            let (v, w) = floats(a)?;
            (v[1] <= v[2]).then(|| Value::Float {
                value: v[0].max(v[1]).min(v[2]),
                width: w,
            })
        },
        79 => |a| float2(a, nmin),
        80 => |a| float2(a, nmax),
        // NClamp: NMin(NMax(x, min), max); undefined when min > max.
        81 => |a| {
            let ((x, w), (lo, _), (hi, _)) =
                (a.first()?.float()?, a.get(1)?.float()?, a.get(2)?.float()?);
            if lo > hi {
                return None;
            }
            Some(Value::Float {
                value: nmin(nmax(x, lo), hi),
                width: w,
            })
        },
        // FindILsb, FindUMsb: -1 when no bit is set.
        73 => |a| {
            let (x, w) = a.first()?.int()?;
            Some(int_result(lowest_set(x & mask(w)), w))
        },
        75 => |a| {
            let (x, w) = a.first()?.int()?;
            Some(int_result(highest_set(x & mask(w)), w))
        },
        // FindSMsb: of a negative value, its highest clear bit; -1 for 0 and -1.
        74 => |a| {
            let (x, w) = a.first()?.int()?;
            let v = if signed(x, w) < 0 { !x } else { x };
            Some(int_result(highest_set(v & mask(w)), w))
        },
        38 => |a| ints(a, false).map(|(v, w)| int_result(v[0].min(v[1]), w)),
        39 => |a| ints(a, true).map(|(v, w)| int_result(v[0].min(v[1]), w)),
        41 => |a| ints(a, false).map(|(v, w)| int_result(v[0].max(v[1]), w)),
        42 => |a| ints(a, true).map(|(v, w)| int_result(v[0].max(v[1]), w)),
        44 => |a| {
            let (v, w) = ints(a, false)?;
            (v[1] <= v[2]).then(|| int_result(v[0].max(v[1]).min(v[2]), w))
        },
        45 => |a| {
            let (v, w) = ints(a, true)?;
            (v[1] <= v[2]).then(|| int_result(v[0].max(v[1]).min(v[2]), w))
        },
        _ => return None,
    })
}

fn int_pair(a: &[Value], f: impl Fn(u64, u64, u32) -> (u64, u64)) -> Option<(Value, Value)> {
    let ((x, w), (y, w2)) = (a.first()?.int()?, a.get(1)?.int()?);
    if w != w2 {
        return None;
    }
    let (lo, hi) = f(x & mask(w), y & mask(w), w);
    let int = |bits: u64| Value::Int {
        bits: bits & mask(w),
        width: w,
    };
    Some((int(lo), int(hi)))
}

/// The rule of a core op whose result is a struct of two members (`Fold::Pair`).
pub fn pair_rule(op: Op) -> Option<PairFn> {
    Some(match op {
        // The sum and its carry out of the width.
        Op::IAddCarry => |a| {
            int_pair(a, |x, y, w| {
                let sum = u128::from(x) + u128::from(y);
                (sum as u64, (sum >> w) as u64)
            })
        },
        // The difference and whether it borrowed (x < y unsigned).
        Op::ISubBorrow => |a| int_pair(a, |x, y, _| (x.wrapping_sub(y), u64::from(x < y))),
        // The low and high halves of the full product.
        Op::UMulExtended => |a| {
            int_pair(a, |x, y, w| {
                let p = u128::from(x) * u128::from(y);
                (p as u64, (p >> w) as u64)
            })
        },
        Op::SMulExtended => |a| {
            int_pair(a, |x, y, w| {
                let p = i128::from(signed(x, w)) * i128::from(signed(y, w));
                (p as u64, (p >> w) as u64)
            })
        },
        _ => return None,
    })
}

/// The rule of a GLSL.std.450 instruction whose result is a struct of two members.
pub fn glsl_pair_rule(number: u32) -> Option<PairFn> {
    Some(match number {
        // ModfStruct: the fraction and the whole part, both with the sign of x (so -0.0 for
        // the fraction of a negative whole number). The set does not say what the parts of
        // an infinity or a NaN are: not folded.
        36 => |a| {
            let (x, w) = a.first()?.float()?;
            x.is_finite().then_some(())?;
            let whole = x.trunc();
            let float = |value| Value::Float { value, width: w };
            Some((float((x - whole).copysign(x)), float(whole)))
        },
        // FrexpStruct: x = m * 2^e with 0.5 <= |m| < 1, and (x, 0) for a zero; undefined for
        // an infinity or a NaN. The exponent member is a 32-bit integer.
        52 => |a| {
            let (x, w) = a.first()?.float()?;
            x.is_finite().then_some(())?;
            let (m, e) = frexp(x);
            Some((
                Value::Float { value: m, width: w },
                Value::Int {
                    bits: i64::from(e) as u64 & mask(32),
                    width: 32,
                },
            ))
        },
        _ => return None,
    })
}

/// `x` as `m * 2^e` with `0.5 <= |m| < 1` (exact: only the exponent changes); `(x, 0)` for a
/// zero.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (x, 0);
    }
    // An f64 subnormal is made normal first.
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * 2f64.powi(64), -64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, e + bias)
}

/// The components of a 4x8 packed integer (`PackedVectorFormat4x8Bit`): the lowest byte is
/// the first; each an 8-bit integer.
fn unpack_4x8(v: &[Value]) -> Option<Vec<Value>> {
    match v {
        [Value::Int { bits, width: 32 }] => Some(
            (0..4)
                .map(|k| Value::Int {
                    bits: (bits >> (8 * k)) & 0xff,
                    width: 8,
                })
                .collect(),
        ),
        _ => Some(v.to_vec()),
    }
}

/// An integer component, sign- or zero-extended.
fn extend(v: &Value, is_signed: bool) -> Option<i128> {
    let (bits, w) = v.int()?;
    Some(if is_signed {
        i128::from(signed(bits, w))
    } else {
        i128::from(bits & mask(w))
    })
}

/// An integer dot product: the components extended (signed or not, per operand) and
/// multiplied, the products summed. Exact, so the result type's width takes the low bits,
/// as SPIR-V defines the result. Two 32-bit scalars are vectors packed 4x8 (the only packed
/// format; a scalar operand is only valid with it).
fn int_dot(a: &[Vec<Value>], signed1: bool, signed2: bool) -> Option<Vec<Value>> {
    let (x, y) = (unpack_4x8(a.first()?)?, unpack_4x8(a.get(1)?)?);
    if x.len() != y.len() || x.is_empty() {
        return None;
    }
    // Wrapping keeps the low bits right even where 64-bit products overflow i128.
    let mut sum = 0i128;
    for (p, q) in x.iter().zip(&y) {
        sum = sum.wrapping_add(extend(p, signed1)?.wrapping_mul(extend(q, signed2)?));
    }
    Some(vec![Value::Int {
        bits: sum as u64,
        width: 64,
    }])
}

/// An integer dot product added to an accumulator (of the result type), saturating to its
/// range (signed or not as `signed_result`). SPIR-V leaves the result undefined when a
/// product or a sum before the accumulation overflows the result type; the sums may be
/// taken in any order, so any that could (positive or negative products alone past the
/// range) is not folded.
fn int_dot_acc_sat(
    a: &[Vec<Value>],
    signed1: bool,
    signed2: bool,
    signed_result: bool,
) -> Option<Vec<Value>> {
    let (x, y) = (unpack_4x8(a.first()?)?, unpack_4x8(a.get(1)?)?);
    let [Value::Int { bits: acc, width }] = a.get(2)?.as_slice() else {
        return None;
    };
    let (acc, width) = (*acc, *width);
    if x.len() != y.len() || x.is_empty() || width > 64 {
        return None;
    }
    let (min, max) = if signed_result {
        (
            i128::from(min_signed(width)),
            -i128::from(min_signed(width)) - 1,
        )
    } else {
        (0, i128::from(mask(width)))
    };
    let (mut positive, mut negative) = (0i128, 0i128);
    for (p, q) in x.iter().zip(&y) {
        let product = extend(p, signed1)?.checked_mul(extend(q, signed2)?)?;
        if !(min..=max).contains(&product) {
            return None;
        }
        if product > 0 {
            positive = positive.checked_add(product)?;
        } else {
            negative = negative.checked_add(product)?;
        }
    }
    if positive > max || negative < min {
        return None;
    }
    let acc = if signed_result {
        i128::from(signed(acc, width))
    } else {
        i128::from(acc & mask(width))
    };
    let sum = (positive + negative + acc).clamp(min, max);
    Some(vec![Value::Int {
        bits: (sum as u64) & mask(width),
        width,
    }])
}

/// The rule of a core op over whole operands (`Fold::Whole`).
pub fn whole_rule(op: Op) -> Option<WholeFn> {
    Some(match op {
        Op::SDot => |a| int_dot(a, true, true),
        Op::UDot => |a| int_dot(a, false, false),
        Op::SUDot => |a| int_dot(a, true, false),
        Op::SDotAccSat => |a| int_dot_acc_sat(a, true, true, true),
        Op::UDotAccSat => |a| int_dot_acc_sat(a, false, false, false),
        Op::SUDotAccSat => |a| int_dot_acc_sat(a, true, false, true),
        _ => return None,
    })
}

/// 32-bit floats, `n` of them.
fn f32s(v: &[Value], n: usize) -> Option<Vec<f64>> {
    (v.len() == n).then_some(())?;
    v.iter()
        .map(|x| x.float().filter(|(_, w)| *w == 32).map(|(x, _)| x))
        .collect()
}

/// One 32-bit integer's `n` fields of `bits` bits, lowest first.
fn fields(v: &[Value], n: u32, bits: u32) -> Option<Vec<u64>> {
    let [Value::Int { bits: x, width: 32 }] = v else {
        return None;
    };
    Some((0..n).map(|k| (x >> (k * bits)) & mask(bits)).collect())
}

/// Packs `n` normalized floats into one 32-bit integer, the first in the lowest bits: each
/// clamped to [lo, 1], scaled by `scale` (rounded to f32, as the shader's multiply is) and
/// rounded to an integer. GLSL leaves which way a halfway case rounds to the
/// implementation, so one is not folded; neither is a NaN, which clamping leaves undefined.
fn pack_norm(v: &[Value], n: usize, lo: f64, scale: f64) -> Option<Vec<Value>> {
    let bits = 32 / n as u32;
    let mut word = 0u64;
    for (k, x) in f32s(v, n)?.into_iter().enumerate() {
        if x.is_nan() {
            return None;
        }
        let scaled = f64::from((x.clamp(lo, 1.0) * scale) as f32);
        if scaled.fract().abs() == 0.5 {
            return None;
        }
        word |= ((scaled.round() as i64 as u64) & mask(bits)) << (k as u32 * bits);
    }
    Some(vec![Value::Int {
        bits: word,
        width: 32,
    }])
}

/// Unpacks `n` normalized fields of a 32-bit integer into 32-bit floats: each divided by
/// `scale` (rounded to f32) and, when signed, clamped to [-1, 1].
fn unpack_norm(v: &[Value], n: u32, is_signed: bool, scale: f64) -> Option<Vec<Value>> {
    let bits = 32 / n;
    Some(
        fields(v, n, bits)?
            .into_iter()
            .map(|f| {
                let x = if is_signed {
                    signed(f, bits) as f64
                } else {
                    f as f64
                };
                Value::Float {
                    value: round(x / scale, 32).max(-1.0),
                    width: 32,
                }
            })
            .collect(),
    )
}

/// The rule of a GLSL.std.450 instruction over whole operands: packing and unpacking.
pub fn glsl_whole_rule(number: u32) -> Option<WholeFn> {
    Some(match number {
        54 => |a| pack_norm(a.first()?, 4, -1.0, 127.0),
        55 => |a| pack_norm(a.first()?, 4, 0.0, 255.0),
        56 => |a| pack_norm(a.first()?, 2, -1.0, 32767.0),
        57 => |a| pack_norm(a.first()?, 2, 0.0, 65535.0),
        // PackHalf2x16: each rounded to the nearest f16, ties to even.
        58 => |a| {
            let v = f32s(a.first()?, 2)?;
            Some(vec![Value::Int {
                bits: u64::from(f64_to_f16(v[0])) | (u64::from(f64_to_f16(v[1])) << 16),
                width: 32,
            }])
        },
        // PackDouble2x32: the first integer is the low half.
        59 => |a| {
            let h = fields_of_pair(a.first()?)?;
            Some(vec![Value::Float {
                value: f64::from_bits(h.0 | (h.1 << 32)),
                width: 64,
            }])
        },
        60 => |a| unpack_norm(a.first()?, 2, true, 32767.0),
        61 => |a| unpack_norm(a.first()?, 2, false, 65535.0),
        62 => |a| {
            Some(
                fields(a.first()?, 2, 16)?
                    .into_iter()
                    .map(|h| Value::Float {
                        value: f16_to_f64(h as u16),
                        width: 32,
                    })
                    .collect(),
            )
        },
        63 => |a| unpack_norm(a.first()?, 4, true, 127.0),
        64 => |a| unpack_norm(a.first()?, 4, false, 255.0),
        65 => |a| {
            let [Value::Float { value, width: 64 }] = a.first()?.as_slice() else {
                return None;
            };
            let bits = value.to_bits();
            let int = |bits: u64| Value::Int { bits, width: 32 };
            Some(vec![int(bits & mask(32)), int(bits >> 32)])
        },
        _ => return None,
    })
}

/// Two 32-bit integers.
fn fields_of_pair(v: &[Value]) -> Option<(u64, u64)> {
    match v {
        [Value::Int { bits: a, width: 32 }, Value::Int { bits: b, width: 32 }] => {
            Some((a & mask(32), b & mask(32)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(bits: u64) -> Value {
        Value::Int { bits, width: 32 }
    }

    #[test]
    fn integer_rules_wrap_and_refuse_undefined_results() {
        let f = |op| rule(op).unwrap();
        assert_eq!(f(Op::IAdd)(&[i(0xffff_ffff), i(2)]), Some(i(1)));
        assert_eq!(
            f(Op::SDiv)(&[i((-7i32) as u32 as u64), i(2)]),
            Some(i((-3i32) as u32 as u64))
        );
        assert_eq!(f(Op::UDiv)(&[i(7), i(0)]), None);
        assert_eq!(
            f(Op::SDiv)(&[i(0x8000_0000), i(0xffff_ffff)]),
            None,
            "INT_MIN / -1 overflows"
        );
        assert_eq!(f(Op::ShiftLeftLogical)(&[i(1), i(32)]), None);
        assert_eq!(
            f(Op::ShiftRightArithmetic)(&[i(0x8000_0000), i(31)]),
            Some(i(0xffff_ffff))
        );
        assert_eq!(
            f(Op::SLessThan)(&[i(0xffff_ffff), i(0)]),
            Some(Value::Bool(true))
        );
        assert_eq!(
            f(Op::ULessThan)(&[i(0xffff_ffff), i(0)]),
            Some(Value::Bool(false))
        );
    }

    #[test]
    fn float_rules_round_to_their_width() {
        let third = rule(Op::FDiv).unwrap()(&[
            Value::Float {
                value: 1.0,
                width: 32,
            },
            Value::Float {
                value: 3.0,
                width: 32,
            },
        ]);
        assert_eq!(
            third,
            Some(Value::Float {
                value: f64::from(1.0f32 / 3.0),
                width: 32
            })
        );
        let nan = Value::Float {
            value: f64::NAN,
            width: 32,
        };
        assert_eq!(
            rule(Op::FOrdNotEqual).unwrap()(&[nan, nan]),
            Some(Value::Bool(false))
        );
    }

    #[test]
    fn glsl_rules_fold_exact_functions_and_refuse_undefined_ones() {
        let f = |x: f64| Value::Float {
            value: x,
            width: 32,
        };
        let g = |n| glsl_rule(n).unwrap();
        assert_eq!(g(2)(&[f(2.5)]), Some(f(2.0)), "RoundEven");
        assert_eq!(g(2)(&[f(3.5)]), Some(f(4.0)), "RoundEven");
        assert_eq!(g(2)(&[f(-2.5)]), Some(f(-2.0)), "RoundEven");
        assert_eq!(g(10)(&[f(-1.25)]), Some(f(0.75)), "Fract");
        assert_eq!(g(31)(&[f(2.0)]), Some(f(f64::from(2.0f32.sqrt()))), "Sqrt");
        assert_eq!(g(37)(&[f(f64::NAN), f(1.0)]), None, "FMin of NaN");
        assert_eq!(
            g(26)(&[f(2.0), f(-12.0)]),
            Some(f(1.0 / 4096.0)),
            "Pow 2^-12"
        );
        assert_eq!(g(26)(&[f(8.0), f(2.0)]), Some(f(64.0)), "Pow 8^2");
        assert_eq!(g(26)(&[f(3.0), f(2.0)]), Some(f(9.0)), "Pow 3^2");
        assert_eq!(
            g(26)(&[f(2.0), f(0.5)]),
            Some(f(f64::from(2.0f32.sqrt()))),
            "Pow 2^0.5, rounded to f32"
        );
        assert_eq!(g(26)(&[f(2.0), f(200.0)]), None, "Pow 2^200 overflows f32");
        assert_eq!(g(26)(&[f(-2.0), f(2.0)]), None, "Pow of a negative base");
        assert_eq!(g(26)(&[f(0.0), f(0.0)]), None, "Pow 0^0");
        assert_eq!(g(29)(&[f(-3.0)]), Some(f(0.125)), "Exp2");
        assert_eq!(g(30)(&[f(0.25)]), Some(f(-2.0)), "Log2");
        assert_eq!(g(28)(&[f(-1.0)]), None, "Log of a negative number");
        assert_eq!(g(16)(&[f(2.0)]), None, "Asin of 2");
        assert_eq!(g(28)(&[f(1.0)]), Some(f(0.0)), "Log 1");
        assert_eq!(g(48)(&[f(1.0), f(0.5)]), Some(f(0.0)), "Step");
        assert_eq!(
            g(43)(&[f(0.5), f(1.0), f(0.0)]),
            None,
            "FClamp with min > max"
        );
        assert_eq!(g(43)(&[f(2.0), f(0.0), f(1.0)]), Some(f(1.0)), "FClamp");
        assert_eq!(
            g(39)(&[i(0xffff_fffe), i(3)]),
            Some(i(0xffff_fffe)),
            "SMin reads -2"
        );
        assert_eq!(g(38)(&[i(0xffff_fffe), i(3)]), Some(i(3)), "UMin");
        assert_eq!(
            g(5)(&[i(0x8000_0000)]),
            Some(i(0x8000_0000)),
            "SAbs(INT_MIN)"
        );
        assert!(glsl_rule(33).is_none(), "Determinant is not folded");
    }

    fn fw(value: f64, width: u32) -> Value {
        Value::Float { value, width }
    }

    fn iw(bits: u64, width: u32) -> Value {
        Value::Int { bits, width }
    }

    /// The bits of a float result, so -0.0 is not 0.0 and NaN is itself.
    fn bits(v: Option<Value>) -> Option<(u64, u32)> {
        match v? {
            Value::Float { value, width } => Some((value.to_bits(), width)),
            Value::Int { bits, width } => Some((bits, width)),
            Value::Bool(b) => Some((u64::from(b), 1)),
        }
    }

    fn core(op: Op) -> FoldFn {
        rule(op).unwrap_or_else(|| panic!("{op:?} has a rule"))
    }

    #[test]
    fn f16_arithmetic_rounds_to_f16() {
        // 1 + 2^-11 is halfway between 1 and the next f16: ties to even, 1.
        let h = |x| fw(x, 16);
        assert_eq!(core(Op::FAdd)(&[h(1.0), h(2f64.powi(-11))]), Some(h(1.0)));
        assert_eq!(
            core(Op::FAdd)(&[h(1.0), h(3.0 * 2f64.powi(-11))]),
            Some(h(1.0 + 2f64.powi(-9)))
        );
        assert_eq!(
            core(Op::FMul)(&[h(65504.0), h(2.0)]),
            Some(h(f64::INFINITY))
        );
    }

    #[test]
    fn float_remainders_take_the_sign_of_their_operand() {
        let f = |x| fw(x, 32);
        let (rem, fmod) = (core(Op::FRem), core(Op::FMod));
        assert_eq!(rem(&[f(5.5), f(2.0)]), Some(f(1.5)));
        assert_eq!(rem(&[f(-5.5), f(2.0)]), Some(f(-1.5)), "sign of x");
        assert_eq!(rem(&[f(5.5), f(-2.0)]), Some(f(1.5)));
        assert_eq!(bits(rem(&[f(-4.0), f(2.0)])), bits(Some(f(-0.0))));
        assert_eq!(fmod(&[f(-5.5), f(2.0)]), Some(f(0.5)), "sign of y");
        assert_eq!(fmod(&[f(5.5), f(-2.0)]), Some(f(-0.5)));
        assert_eq!(fmod(&[f(5.5), f(2.0)]), Some(f(1.5)));
        assert_eq!(rem(&[f(1.0), f(0.0)]), None, "FRem by zero");
        assert_eq!(fmod(&[f(1.0), f(-0.0)]), None, "FMod by zero");
        assert!(rem(&[f(f64::INFINITY), f(2.0)]).is_some_and(|v| v.float().unwrap().0.is_nan()));
        assert!(fmod(&[f(f64::NAN), f(2.0)]).is_some_and(|v| v.float().unwrap().0.is_nan()));
        // Each step rounds to f32: 1e10 / 3 is 3333333248 in f32, and 3 times that,
        // 9999999744, is 1e10 in f32: the formula gives 0 where the exact remainder is 1.
        assert_eq!(rem(&[f(1e10), f(3.0)]), Some(f(1.0)), "FRem is exact");
        assert_eq!(fmod(&[f(1e10), f(3.0)]), Some(f(0.0)));
        // In f16 too: 2048 / 1.7001953125 is 1205 in f16 (1204.59 exactly), and 1.70019 *
        // 1205 is 2048 in f16; in f64 all through the remainder would be 0.96484375.
        let y = 1.7001953125;
        assert_eq!(
            core(Op::FMod)(&[fw(2048.0, 16), fw(y, 16)]),
            Some(fw(0.0, 16))
        );
        assert_eq!(
            core(Op::FMod)(&[fw(2048.0, 64), fw(y, 64)]),
            Some(fw(2048.0 - 1204.0 * y, 64))
        );
    }

    #[test]
    fn float_comparisons_follow_nan_rules() {
        let f = |x| fw(x, 32);
        let nan = f(f64::NAN);
        let t = Some(Value::Bool(true));
        let no = Some(Value::Bool(false));
        for (op, on_nan, less) in [
            (Op::FOrdEqual, no, no),
            (Op::FUnordEqual, t, no),
            (Op::FOrdNotEqual, no, t),
            (Op::FUnordNotEqual, t, t),
            (Op::FOrdLessThan, no, t),
            (Op::FUnordLessThan, t, t),
            (Op::FOrdLessThanEqual, no, t),
            (Op::FUnordLessThanEqual, t, t),
            (Op::FOrdGreaterThan, no, no),
            (Op::FUnordGreaterThan, t, no),
            (Op::FOrdGreaterThanEqual, no, no),
            (Op::FUnordGreaterThanEqual, t, no),
            (Op::Ordered, no, t),
            (Op::Unordered, t, no),
        ] {
            assert_eq!(core(op)(&[nan, f(1.0)]), on_nan, "{op:?} with NaN");
            assert_eq!(core(op)(&[f(1.0), nan]), on_nan, "{op:?} with NaN");
            assert_eq!(core(op)(&[f(1.0), f(2.0)]), less, "{op:?} 1 vs 2");
        }
        assert_eq!(core(Op::FUnordEqual)(&[f(0.0), f(-0.0)]), t, "0 = -0");
        assert_eq!(core(Op::FUnordLessThanEqual)(&[f(2.0), f(2.0)]), t);
        assert_eq!(core(Op::FUnordGreaterThan)(&[f(2.0), f(2.0)]), no);
        // Classification at the operand's width: 2^-130 is an f32 denormal.
        assert_eq!(core(Op::IsNormal)(&[f(2f64.powi(-130))]), no);
        assert_eq!(core(Op::IsNormal)(&[fw(2f64.powi(-130), 64)]), t);
        assert_eq!(core(Op::IsNormal)(&[fw(2f64.powi(-15), 16)]), no);
        assert_eq!(core(Op::IsNormal)(&[f(0.0)]), no);
        assert_eq!(core(Op::IsFinite)(&[f(f64::INFINITY)]), no);
        assert_eq!(core(Op::IsInf)(&[f(f64::NEG_INFINITY)]), t);
        assert_eq!(core(Op::IsNan)(&[nan]), t);
        assert_eq!(core(Op::SignBitSet)(&[f(-0.0)]), t);
        assert_eq!(core(Op::SignBitSet)(&[f(0.0)]), no);
    }

    #[test]
    fn bit_field_ops_at_every_width() {
        let (ins, sx, ux) = (
            core(Op::BitFieldInsert),
            core(Op::BitFieldSExtract),
            core(Op::BitFieldUExtract),
        );
        let u = |x| iw(x, 32);
        assert_eq!(ux(&[u(0xabcd_1234), u(8), u(12)]), Some(u(0xd12)));
        assert_eq!(
            sx(&[u(0xabcd_1234), u(8), u(12)]),
            Some(u(0xffff_fd12)),
            "bit 19 set"
        );
        assert_eq!(sx(&[u(0xabcd_1234), u(4), u(4)]), Some(u(3)), "bit 7 clear");
        assert_eq!(
            ux(&[u(0xffff_ffff), u(32), u(0)]),
            Some(u(0)),
            "an empty field at the end"
        );
        assert_eq!(
            sx(&[u(0xffff_ffff), u(5), u(0)]),
            Some(u(0)),
            "an empty field is 0"
        );
        assert_eq!(ux(&[u(1), u(31), u(2)]), None, "past the width");
        assert_eq!(
            ux(&[u(1), u(0xffff_ffff), u(2)]),
            None,
            "offset read unsigned"
        );
        assert_eq!(
            ins(&[u(0xffff_0000), u(0x1ab), u(4), u(8)]),
            Some(u(0xffff_0ab0))
        );
        assert_eq!(
            ins(&[u(7), u(0xff), u(3), u(0)]),
            Some(u(7)),
            "no bits: the base"
        );
        assert_eq!(ins(&[u(7), u(0xff), u(30), u(3)]), None);
        // 8, 16 and 64 bits, with offset and count of another width.
        assert_eq!(sx(&[iw(0x80, 8), u(4), u(4)]), Some(iw(0xf8, 8)));
        assert_eq!(
            ux(&[iw(0xbeef, 16), iw(8, 8), iw(8, 8)]),
            Some(iw(0xbe, 16))
        );
        assert_eq!(
            sx(&[iw(0x8000_0000_0000_0000, 64), u(32), u(32)]),
            Some(iw(0xffff_ffff_8000_0000, 64))
        );
        assert_eq!(
            ins(&[iw(0, 64), iw(u64::MAX, 64), u(0), u(64)]),
            Some(iw(u64::MAX, 64))
        );
        assert_eq!(core(Op::BitReverse)(&[u(1)]), Some(u(0x8000_0000)));
        assert_eq!(core(Op::BitReverse)(&[iw(0x01, 8)]), Some(iw(0x80, 8)));
        assert_eq!(
            core(Op::BitReverse)(&[iw(0x00f0, 16)]),
            Some(iw(0x0f00, 16))
        );
        assert_eq!(
            core(Op::BitReverse)(&[iw(3, 64)]),
            Some(iw(0xc000_0000_0000_0000, 64))
        );
        assert_eq!(core(Op::BitCount)(&[u(0xf0f0_0001)]), Some(u(9)));
        assert_eq!(core(Op::BitCount)(&[iw(u64::MAX, 64)]), Some(iw(64, 64)));
        assert_eq!(core(Op::BitCount)(&[iw(0xff, 8)]), Some(iw(8, 8)));
        let clz = core(Op::UCountLeadingZerosINTEL);
        let ctz = core(Op::UCountTrailingZerosINTEL);
        assert_eq!(clz(&[u(1)]), Some(u(31)));
        assert_eq!(clz(&[u(0)]), Some(u(32)));
        assert_eq!(clz(&[iw(0x10, 8)]), Some(iw(3, 8)));
        assert_eq!(ctz(&[u(0)]), Some(u(32)));
        assert_eq!(ctz(&[iw(0x100, 16)]), Some(iw(8, 16)));
    }

    #[test]
    fn intel_integer_functions_saturate_and_average_without_overflow() {
        let u = |x| iw(x, 32);
        let b = |x: i64| iw(x as u8 as u64, 8);
        assert_eq!(core(Op::AbsISubINTEL)(&[b(-128), b(127)]), Some(iw(255, 8)));
        assert_eq!(core(Op::AbsUSubINTEL)(&[u(3), u(10)]), Some(u(7)));
        assert_eq!(core(Op::IAddSatINTEL)(&[b(100), b(100)]), Some(b(127)));
        assert_eq!(core(Op::ISubSatINTEL)(&[b(-100), b(100)]), Some(b(-128)));
        assert_eq!(
            core(Op::UAddSatINTEL)(&[iw(200, 8), iw(100, 8)]),
            Some(iw(255, 8))
        );
        assert_eq!(core(Op::USubSatINTEL)(&[u(3), u(10)]), Some(u(0)));
        assert_eq!(
            core(Op::IAverageINTEL)(&[b(-3), b(0)]),
            Some(b(-2)),
            "rounded down"
        );
        assert_eq!(core(Op::IAverageRoundedINTEL)(&[b(-3), b(0)]), Some(b(-1)));
        assert_eq!(
            core(Op::UAverageINTEL)(&[u(0xffff_ffff), u(0xffff_fffd)]),
            Some(u(0xffff_fffe))
        );
        assert_eq!(core(Op::UAverageRoundedINTEL)(&[u(2), u(5)]), Some(u(4)));
        assert_eq!(
            core(Op::IMul32x16INTEL)(&[u(3), u(0x1_ffff)]),
            Some(u(-3i32 as u32 as u64))
        );
        assert_eq!(
            core(Op::UMul32x16INTEL)(&[u(3), u(0x1_ffff)]),
            Some(u(0x2_fffd))
        );
    }

    #[test]
    fn ldexp_scales_by_powers_of_two_within_the_exponents() {
        let f = |x| fw(x, 32);
        let i = |x: i64| iw(x as u32 as u64, 32);
        let ldexp = glsl_rule(53).unwrap();
        assert_eq!(ldexp(&[f(0.75), i(4)]), Some(f(12.0)));
        assert_eq!(ldexp(&[f(-3.0), i(-2)]), Some(f(-0.75)));
        assert_eq!(ldexp(&[f(1.0), i(129)]), None, "past the largest exponent");
        assert_eq!(ldexp(&[f(1.0), i(-127)]), None, "may be flushed");
        assert_eq!(ldexp(&[f(0.0), i(-100)]), Some(f(0.0)));
        assert_eq!(ldexp(&[fw(1.5, 64), iw(3, 32)]), Some(fw(12.0, 64)));
    }

    #[test]
    fn glsl_rounding_min_max_and_bit_finding() {
        let f = |x| fw(x, 32);
        let g = |n| glsl_rule(n).unwrap();
        assert_eq!(g(1)(&[f(2.4)]), Some(f(2.0)), "Round");
        assert_eq!(g(1)(&[f(-2.6)]), Some(f(-3.0)), "Round");
        assert_eq!(
            g(1)(&[f(2.5)]),
            None,
            "Round of x.5 is the implementation's"
        );
        assert_eq!(
            g(1)(&[f(-0.5)]),
            None,
            "Round of x.5 is the implementation's"
        );
        assert_eq!(
            bits(g(1)(&[f(-0.25)])),
            bits(Some(f(-0.0))),
            "Round keeps the sign"
        );
        assert_eq!(g(1)(&[f(f64::INFINITY)]), Some(f(f64::INFINITY)));
        assert_eq!(g(3)(&[f(-2.7)]), Some(f(-2.0)), "Trunc");
        assert_eq!(g(10)(&[fw(-0.25, 16)]), Some(fw(0.75, 16)), "Fract in f16");
        let nan = f(f64::NAN);
        assert_eq!(g(79)(&[nan, f(1.0)]), Some(f(1.0)), "NMin of NaN");
        assert_eq!(g(79)(&[f(1.0), nan]), Some(f(1.0)), "NMin of NaN");
        assert_eq!(g(80)(&[nan, f(-1.0)]), Some(f(-1.0)), "NMax of NaN");
        assert!(g(80)(&[nan, nan]).is_some_and(|v| v.float().unwrap().0.is_nan()));
        assert_eq!(g(79)(&[f(3.0), f(2.0)]), Some(f(2.0)), "NMin");
        assert_eq!(g(80)(&[f(3.0), f(2.0)]), Some(f(3.0)), "NMax");
        assert_eq!(g(81)(&[nan, f(0.0), f(1.0)]), Some(f(0.0)), "NClamp of NaN");
        assert_eq!(
            g(81)(&[f(5.0), nan, f(1.0)]),
            Some(f(1.0)),
            "NClamp, NaN low"
        );
        assert_eq!(
            g(81)(&[f(0.5), f(1.0), f(0.0)]),
            None,
            "NClamp with min > max"
        );
        assert_eq!(g(73)(&[i(0b1000)]), Some(i(3)), "FindILsb");
        assert_eq!(g(73)(&[i(0)]), Some(i(0xffff_ffff)), "FindILsb(0)");
        assert_eq!(g(75)(&[i(0x8000_0000)]), Some(i(31)), "FindUMsb");
        assert_eq!(g(75)(&[i(0)]), Some(i(0xffff_ffff)), "FindUMsb(0)");
        assert_eq!(g(74)(&[i(0x10)]), Some(i(4)), "FindSMsb");
        assert_eq!(
            g(74)(&[i(0xffff_ffef)]),
            Some(i(4)),
            "FindSMsb(-17): bit 4 clear"
        );
        assert_eq!(g(74)(&[i(0x8000_0000)]), Some(i(30)), "FindSMsb(INT_MIN)");
        assert_eq!(g(74)(&[i(0)]), Some(i(0xffff_ffff)), "FindSMsb(0)");
        assert_eq!(
            g(74)(&[i(0xffff_ffff)]),
            Some(i(0xffff_ffff)),
            "FindSMsb(-1)"
        );
    }

    #[test]
    fn quantize_to_f16_rounds_to_nearest_even_and_declines_signless_zeros() {
        let q = core(Op::QuantizeToF16);
        let f = |x| fw(x, 32);
        assert_eq!(q(&[f(1.0 + 2f64.powi(-11))]), Some(f(1.0)), "a tie to even");
        assert_eq!(
            q(&[f(1.0 + 2f64.powi(-11) + 2f64.powi(-20))]),
            Some(f(1.0 + 2f64.powi(-10)))
        );
        assert_eq!(q(&[f(70000.0)]), Some(f(f64::INFINITY)));
        assert_eq!(q(&[f(-70000.0)]), Some(f(f64::NEG_INFINITY)));
        assert_eq!(q(&[f(65504.0)]), Some(f(65504.0)));
        assert_eq!(bits(q(&[f(-0.0)])), bits(Some(f(-0.0))));
        assert_eq!(
            q(&[f(2f64.powi(-14))]),
            Some(f(2f64.powi(-14))),
            "the smallest normal"
        );
        assert_eq!(q(&[f(1e-6)]), None, "a zero of either sign");
        assert!(q(&[f(f64::NAN)]).is_some_and(|v| v.float().unwrap().0.is_nan()));
    }

    #[test]
    fn extended_arithmetic_gives_both_halves() {
        let p = |op| pair_rule(op).unwrap();
        let u = |x| iw(x, 32);
        assert_eq!(
            p(Op::IAddCarry)(&[u(0xffff_ffff), u(2)]),
            Some((u(1), u(1)))
        );
        assert_eq!(p(Op::IAddCarry)(&[u(1), u(2)]), Some((u(3), u(0))));
        assert_eq!(
            p(Op::IAddCarry)(&[iw(0xff, 8), iw(0xff, 8)]),
            Some((iw(0xfe, 8), iw(1, 8)))
        );
        assert_eq!(
            p(Op::IAddCarry)(&[iw(u64::MAX, 64), iw(1, 64)]),
            Some((iw(0, 64), iw(1, 64)))
        );
        assert_eq!(
            p(Op::ISubBorrow)(&[u(1), u(2)]),
            Some((u(0xffff_ffff), u(1)))
        );
        assert_eq!(p(Op::ISubBorrow)(&[u(2), u(2)]), Some((u(0), u(0))));
        assert_eq!(
            p(Op::UMulExtended)(&[u(0xffff_ffff), u(0xffff_ffff)]),
            Some((u(1), u(0xffff_fffe)))
        );
        assert_eq!(
            p(Op::SMulExtended)(&[u(0xffff_ffff), u(0xffff_ffff)]),
            Some((u(1), u(0))),
            "-1 * -1"
        );
        assert_eq!(
            p(Op::SMulExtended)(&[u(0x8000_0000), u(2)]),
            Some((u(0), u(0xffff_ffff))),
            "INT_MIN * 2 = -2^32"
        );
        assert_eq!(
            p(Op::UMulExtended)(&[iw(u64::MAX, 64), iw(u64::MAX, 64)]),
            Some((iw(1, 64), iw(u64::MAX - 1, 64)))
        );
        assert_eq!(
            p(Op::SMulExtended)(&[iw(0xf0, 8), iw(0x10, 8)]),
            Some((iw(0, 8), iw(0xff, 8))),
            "-16 * 16 = -256"
        );
    }

    #[test]
    fn modf_and_frexp_split_floats() {
        let g = |n| glsl_pair_rule(n).unwrap();
        let f = |x| fw(x, 32);
        let split = |r: Option<(Value, Value)>| r.map(|(a, b)| (bits(Some(a)), bits(Some(b))));
        assert_eq!(split(g(36)(&[f(-2.75)])), split(Some((f(-0.75), f(-2.0)))));
        assert_eq!(
            split(g(36)(&[f(-3.0)])),
            split(Some((f(-0.0), f(-3.0)))),
            "the fraction keeps the sign"
        );
        assert_eq!(g(36)(&[f(f64::INFINITY)]), None);
        assert_eq!(g(52)(&[f(8.0)]), Some((f(0.5), i(4))));
        assert_eq!(g(52)(&[f(-0.75)]), Some((f(-0.75), i(0))));
        assert_eq!(g(52)(&[f(0.1)]), Some((f(0.8), i((-3i32) as u32 as u64))));
        assert_eq!(split(g(52)(&[f(-0.0)])), split(Some((f(-0.0), i(0)))));
        assert_eq!(
            g(52)(&[f(2f64.powi(-140))]),
            Some((f(0.5), i((-139i32) as u32 as u64))),
            "an f32 denormal"
        );
        assert_eq!(
            g(52)(&[fw(f64::from_bits(1), 64)]),
            Some((fw(0.5, 64), i((-1073i32) as u32 as u64))),
            "the smallest f64"
        );
        assert_eq!(g(52)(&[f(f64::NAN)]), None);
    }

    #[test]
    fn integer_dot_products_extend_each_operand_as_the_op_says() {
        let w = |op| whole_rule(op).unwrap();
        let v8 = |xs: &[u64]| xs.iter().map(|&x| iw(x, 8)).collect::<Vec<_>>();
        let (a, b) = (v8(&[0xff, 2, 3, 0x80]), v8(&[0xff, 1, 1, 2]));
        // Signed: -1*-1 + 2 + 3 - 256; unsigned: 255*255 + 2 + 3 + 256; mixed: -1*255 + 5 - 256.
        let low = |v: i64| Some(vec![iw(v as u64, 64)]);
        assert_eq!(w(Op::SDot)(&[a.clone(), b.clone()]), low(-250));
        assert_eq!(w(Op::UDot)(&[a.clone(), b.clone()]), low(65286));
        assert_eq!(w(Op::SUDot)(&[a, b]), low(-506));
        // The same packed in 32-bit integers, the first component lowest.
        let (pa, pb) = (vec![i(0x8003_02ff)], vec![i(0x0201_01ff)]);
        assert_eq!(w(Op::SDot)(&[pa.clone(), pb.clone()]), low(-250));
        assert_eq!(w(Op::UDot)(&[pa, pb]), low(65286));
        let big = vec![iw(u64::MAX, 64); 2];
        assert_eq!(
            w(Op::UDot)(&[big.clone(), big]),
            low(2),
            "the low bits of 2 (2^64 - 1)^2"
        );
        // Accumulating, saturating to the accumulator's (the result's) type.
        let acc = |x: u64, width| vec![iw(x, width)];
        let (a, b) = (v8(&[0xff, 2, 3, 0x80]), v8(&[0xff, 1, 1, 2]));
        assert_eq!(
            w(Op::SDotAccSat)(&[a.clone(), b.clone(), acc(100, 32)]),
            Some(vec![iw((-150i32) as u32 as u64, 32)])
        );
        assert_eq!(
            w(Op::SDotAccSat)(&[a.clone(), b.clone(), acc(0x8000_0000, 32)]),
            Some(vec![iw(0x8000_0000, 32)]),
            "INT_MIN - 250 saturates"
        );
        assert_eq!(
            w(Op::UDotAccSat)(&[a.clone(), b.clone(), acc(0xffff_ff00, 32)]),
            Some(vec![iw(0xffff_ffff, 32)]),
            "saturates at the top"
        );
        assert_eq!(
            w(Op::SUDotAccSat)(&[a.clone(), b.clone(), acc(6, 16)]),
            Some(vec![iw(u64::from((-500i16) as u16), 16)])
        );
        // 255 * 255 is past an 8-bit result: undefined; so are sums that may overflow in
        // some order.
        assert_eq!(w(Op::UDotAccSat)(&[a, b, acc(0, 8)]), None);
        let (p, q) = (v8(&[100, 100, 0x9c, 0]), v8(&[1, 1, 1, 0]));
        assert_eq!(
            w(Op::SDotAccSat)(&[p, q, acc(0, 8)]),
            None,
            "100 + 100 - 100: 200 overflows first"
        );
        assert_eq!(
            w(Op::SDotAccSat)(&[v8(&[100, 0x9c]), v8(&[1, 1]), acc(127, 8)]),
            Some(vec![iw(127, 8)]),
            "100 - 100 + 127"
        );
    }

    #[test]
    fn packing_and_unpacking() {
        let g = |n| glsl_whole_rule(n).unwrap();
        let f = |x| fw(x, 32);
        let word = |x| Some(vec![i(x)]);
        assert_eq!(
            g(58)(&[vec![f(1.0), f(-2.0)]]),
            word(0xc000_3c00),
            "PackHalf2x16"
        );
        assert_eq!(
            g(58)(&[vec![f(1.0 + 2f64.powi(-11)), f(1e6)]]),
            word(0x7c00_3c00),
            "ties to even; too large is infinity"
        );
        assert_eq!(g(62)(&[vec![i(0xc000_3c00)]]), Some(vec![f(1.0), f(-2.0)]));
        assert_eq!(
            g(54)(&[vec![f(1.0), f(-1.0), f(0.25), f(-2.0)]]),
            word(0x8120_817f),
            "PackSnorm4x8: 127, -127, 32 (31.75), -127 (clamped)"
        );
        assert_eq!(
            g(54)(&[vec![f(0.5), f(0.0), f(0.0), f(0.0)]]),
            None,
            "0.5 * 127 is a tie"
        );
        assert_eq!(
            g(55)(&[vec![f(1.0), f(0.0), f(0.2), f(7.0)]]),
            word(0xff33_00ff)
        );
        assert_eq!(g(57)(&[vec![f(1.0), f(0.5)]]), None, "0.5 * 65535 is a tie");
        assert_eq!(g(57)(&[vec![f(1.0), f(0.25)]]), word(0x4000_ffff));
        assert_eq!(g(56)(&[vec![f(-1.0), f(f64::NAN)]]), None);
        assert_eq!(g(56)(&[vec![f(-1.0), f(0.0)]]), word(0x0000_8001));
        assert_eq!(
            g(63)(&[vec![i(0x8081_7f00)]]),
            Some(vec![f(0.0), f(1.0), f(-1.0), f(-1.0)]),
            "UnpackSnorm4x8: -128 clamps to -1"
        );
        assert_eq!(
            g(64)(&[vec![i(0x0000_ff33)]]),
            Some(vec![f(f64::from(0.2f32)), f(1.0), f(0.0), f(0.0)])
        );
        assert_eq!(g(61)(&[vec![i(0xffff_0000)]]), Some(vec![f(0.0), f(1.0)]));
        assert_eq!(
            g(60)(&[vec![i(0x8000_4000)]]),
            Some(vec![f(f64::from(16384.0f32 / 32767.0)), f(-1.0)])
        );
        let d = fw(-2.5, 64);
        let halves = g(65)(&[vec![d]]).unwrap();
        assert_eq!(
            halves,
            vec![i(0), i(0xc004_0000)],
            "UnpackDouble2x32: low half first"
        );
        assert_eq!(g(59)(&[halves]), Some(vec![d]), "PackDouble2x32");
    }
}
