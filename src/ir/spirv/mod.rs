//! SPIR-V binary and assembly: reading into the IR, writing out of it, and the two text forms
//! SPIR-V tools speak (`spirv-dis` style disassembly and `spirv-as` style assembly).

pub mod asm;
mod decode;
pub mod disasm;
pub mod grammar;
pub(crate) mod operand_tables;
pub mod read;
pub mod write;

pub const MAGIC: u32 = 0x0723_0203;
