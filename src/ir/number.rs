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
            let shift = 64 - width.min(64);
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

/// Rounds to the nearest half-precision value.
pub fn f64_to_f16(v: f64) -> u16 {
    let bits = (v as f32).to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1 << (shift - 1);
        let mut r = m >> shift;
        if (m & ((1 << shift) - 1)) > half || ((m & ((1 << shift) - 1)) == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}
