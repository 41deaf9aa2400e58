//! Number codecs: how constants' bits read as integers, floats (half, single, double) and
//! bit-vectors, and back — shared by the disassembler, the assembler, names and folding.

use rspirv::dr::Operand;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    /// A dialect bit-vector (`bits.b32`): neither integer nor float, written in hex.
    Bits {
        width: u32,
    },
}

impl ScalarKind {
    /// The width of a dialect bit-vector type op (`bits.b32` → 32).
    pub fn bits_width(op_name: &str) -> Option<u32> {
        op_name.strip_prefix("bits.b")?.parse().ok()
    }
}

/// Formats the literal value of `OpConstant`/`OpSpecConstant` (its first operand).
pub fn format_literal_number(kind: ScalarKind, ops: &[Operand]) -> String {
    let bits: u64 = match ops.first() {
        Some(Operand::LiteralBit32(v)) => u64::from(*v),
        Some(Operand::LiteralBit64(v)) => *v,
        _ => return String::new(),
    };
    format_number(kind, bits)
}

pub fn format_number(kind: ScalarKind, bits: u64) -> String {
    match kind {
        ScalarKind::Int {
            width,
            signed: true,
        } => {
            // (A width of 0 is a broken module's: its bits read as they are.)
            let shift = 64 - width.clamp(1, 64);
            (((bits << shift) as i64) >> shift).to_string()
        }
        ScalarKind::Int { .. } => bits.to_string(),
        ScalarKind::Float { width: 16 } => format_f64(f16_to_f64(bits as u16), 16, bits),
        ScalarKind::Float { width: 32 } => {
            let v = f32::from_bits(bits as u32);
            if v.is_finite() {
                format!("{v:?}").trim_end_matches(".0").to_string()
            } else {
                hex_float(bits, 23, 8)
            }
        }
        ScalarKind::Float { width: 64 } => format_f64(f64::from_bits(bits), 64, bits),
        ScalarKind::Float { .. } => format!("0x{bits:x}"),
        ScalarKind::Bits { width } => format!("0x{:0w$x}", bits, w = (width as usize).div_ceil(4)),
    }
}

fn format_f64(v: f64, width: u32, bits: u64) -> String {
    if v.is_finite() {
        format!("{v:?}").trim_end_matches(".0").to_string()
    } else if width == 16 {
        hex_float(bits, 10, 5)
    } else {
        hex_float(bits, 52, 11)
    }
}

/// Non-finite floats as spirv-dis prints them: `0x1p+128`, `-0x1.8p+128`.
fn hex_float(bits: u64, mantissa_bits: u32, exp_bits: u32) -> String {
    let sign = (bits >> (mantissa_bits + exp_bits)) & 1 == 1;
    let mantissa = bits & ((1 << mantissa_bits) - 1);
    let exp = 1i64 << (exp_bits - 1);
    let digits = mantissa_bits.div_ceil(4);
    let shifted = mantissa << (digits * 4 - mantissa_bits);
    let mut frac = format!("{shifted:0width$x}", width = digits as usize);
    while frac.ends_with('0') {
        frac.pop();
    }
    let sign = if sign { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}0x1p+{exp}")
    } else {
        format!("{sign}0x1.{frac}p+{exp}")
    }
}

pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// Rounds to the nearest half-precision value, ties to even, from the f64 itself (rounding to
/// f32 first would round twice: 1 + 2^-11 + 2^-40 would tie at f32 and go to 1).
pub fn f64_to_f16(v: f64) -> u16 {
    let sign: u16 = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    // The binade, no lower than the smallest normal one: below it the step stays 2^-24.
    let e = (((a.to_bits() >> 52) as i32) - 1023).max(-14);
    if e > 15 {
        return sign | 0x7c00;
    }
    // Scaling by a power of two is exact, so this is the one rounding: n steps of 2^(e-10),
    // at most 2048 (a carry into the next binade, which the sum below absorbs).
    let n = (a * 2f64.powi(10 - e)).round_ties_even() as u32;
    // In the lowest binade this is n itself: subnormals and the first normals alike.
    let bits = (((e + 15) as u32) << 10) + n - 1024;
    sign | bits.min(0x7c00) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_integer_of_no_width_prints_without_overflowing() {
        let zero_width = ScalarKind::Int {
            width: 0,
            signed: true,
        };
        assert_eq!(format_number(zero_width, 0), "0");
        let byte = ScalarKind::Int {
            width: 8,
            signed: true,
        };
        assert_eq!(format_number(byte, 0xff), "-1");
    }

    #[test]
    fn half_precision_rounds_once_to_nearest_even() {
        assert_eq!(f64_to_f16(1.0), 0x3c00);
        assert_eq!(f64_to_f16(-2.0), 0xc000);
        assert_eq!(f64_to_f16(-0.0), 0x8000);
        assert_eq!(f64_to_f16(65504.0), 0x7bff, "the largest finite");
        assert_eq!(f64_to_f16(65519.99), 0x7bff);
        assert_eq!(
            f64_to_f16(65520.0),
            0x7c00,
            "a tie past the largest rounds to infinity"
        );
        assert_eq!(f64_to_f16(f64::NEG_INFINITY), 0xfc00);
        assert_eq!(f64_to_f16(f64::NAN) & 0x7e00, 0x7e00);
        // Ties go to the even neighbour; just above a tie goes up, even when f32 would have
        // made it a tie first.
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(f64_to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(f64_to_f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01);
        // Subnormals: steps of 2^-24; half of the smallest ties to zero, above it rounds up.
        assert_eq!(f64_to_f16(2f64.powi(-24)), 0x0001);
        assert_eq!(f64_to_f16(2f64.powi(-25)), 0x0000);
        assert_eq!(f64_to_f16(2f64.powi(-25) + 2f64.powi(-60)), 0x0001);
        assert_eq!(f64_to_f16(-3.0 * 2f64.powi(-25)), 0x8002);
        assert_eq!(
            f64_to_f16(2f64.powi(-14) - 2f64.powi(-26)),
            0x0400,
            "up into the normals"
        );
        assert_eq!(f64_to_f16(1e-300), 0x0000);
        for h in [0x0001u16, 0x03ff, 0x0400, 0x3555, 0x7bff, 0x8001, 0xfbff] {
            assert_eq!(f64_to_f16(f16_to_f64(h)), h, "{h:#06x} round-trips");
        }
    }
}
