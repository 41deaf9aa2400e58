//! IR → SPIR-V binary.

use rspirv::binary::Assemble;
use rspirv::dr::Operand;

use super::MAGIC;
use crate::ir::inst::Inst;
use crate::ir::module::Module;

pub fn encode_operands(operands: &[Operand], out: &mut Vec<u32>) {
    for op in operands {
        op.assemble_into(out);
    }
}

pub fn encode_inst(inst: &Inst, out: &mut Vec<u32>) {
    let start = out.len();
    out.push(0);
    out.extend(inst.ty);
    out.extend(inst.result);
    encode_operands(&inst.operands, out);
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
    m.for_each_inst(|inst| encode_inst(inst, &mut out));
    out
}

pub fn write_bytes(m: &Module) -> Vec<u8> {
    write_words(m)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}
