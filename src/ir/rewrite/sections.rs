//! Changes of the module's sections outside globals and functions.

use rspirv::dr::Operand;
use spirv::Op;

use super::super::inst::{Id, Inst};
use super::super::module::Module;

// ---- Debug ----

/// `OpSource`s lose the source text they embed (language, version and file stay); returns
/// whether any had some.
pub fn drop_source_text(m: &mut Module) -> bool {
    let mut changed = false;
    for i in &mut m.debug {
        // OpSource Language Version [File] [Source]
        if i.op == Op::Source && i.operand_count() == 4 {
            i.truncate_operands(3);
            changed = true;
        }
    }
    changed
}

/// Member `k` of struct `s` goes from its member decorations and names: its own go, those of
/// the members after it move down by one (for a member taken out of the struct).
pub fn drop_member_info(m: &mut Module, s: Id, k: u32) {
    let renumber = |i: &mut Inst| {
        if !matches!(
            i.op,
            Op::MemberDecorate | Op::MemberName | Op::MemberDecorateString
        ) || i.args.first() != Some(&s)
        {
            return true;
        }
        match i.lit_u32(0) {
            Some(j) if j == k => false,
            Some(j) if j > k => {
                if let Some(l) = i.lits_mut().first_mut() {
                    *l = Operand::LiteralBit32(j - 1);
                }
                true
            }
            _ => true,
        }
    };
    m.annotations_mut().retain_mut(renumber);
    m.debug.retain_mut(renumber);
}
