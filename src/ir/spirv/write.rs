//! IR → SPIR-V binary.

use rspirv::binary::Assemble;
use rspirv::dr::Operand;

use super::MAGIC;
use crate::ir::inst::{Inst, Opd};
use crate::ir::module::Module;
use crate::ir::strings;

/// Encodes one literal or enumerant operand. Strings are written as the bytes they were read
/// from (see `ir::strings`), which rspirv's encoder, taking them for UTF-8, would not do.
pub fn encode_literal(op: &Operand, out: &mut Vec<u32>) {
    match op {
        Operand::LiteralString(s) => strings::encode_words(s, out),
        other => other.assemble_into(out),
    }
}

pub fn encode_operands(operands: &[Operand], out: &mut Vec<u32>) {
    for op in operands {
        encode_literal(op, out);
    }
}

/// Encodes the operands of `inst` in SPIR-V order.
pub fn encode_inst_operands(inst: &Inst, out: &mut Vec<u32>) {
    for op in inst.operands() {
        match op {
            Opd::Id(id) => out.push(id),
            Opd::Lit(l) => encode_literal(l, out),
        }
    }
}

pub fn encode_inst(inst: &Inst, out: &mut Vec<u32>) {
    let start = out.len();
    out.push(0);
    out.extend(inst.ty);
    out.extend(inst.result);
    encode_inst_operands(inst, out);
    let count = (out.len() - start) as u32;
    out[start] = (count << 16) | inst.op as u32;
}

pub fn write_words(m: &Module) -> Vec<u32> {
    let (major, minor) = m.header.version;
    let mut out = Vec::with_capacity(m.inst_count() * 4 + 5);
    out.extend([
        MAGIC,
        (u32::from(major) << 16) | (u32::from(minor) << 8),
        m.header.generator,
        m.bound,
        0,
    ]);
    let bound = m.for_each_written(|inst| encode_inst(inst, &mut out));
    out[3] = bound;
    out
}

pub fn write_bytes(m: &Module) -> Vec<u8> {
    write_words(m)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}
