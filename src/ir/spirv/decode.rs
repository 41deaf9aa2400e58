//! Words of one instruction → an IR instruction, by the grammar.
//!
//! The reader splits the stream into instructions; this decodes each one's operands straight
//! into `Inst` (ids into its arguments, everything else into its literals), with what earlier
//! instructions said: the width of each scalar type (a constant's literal takes one word or
//! two), the extended instruction sets imported (which of an extended instruction's operands
//! are literals). The enumerant tables come from the SPIR-V grammar (`operand_tables`).

use rspirv::dr::Operand;
use rspirv::grammar::{
    ExtInstOp, Instruction, InstructionTable, OperandKind as K, OperandQuantifier,
};
use spirv::Op;

use super::grammar;
use super::operand_tables;
use crate::ir::fxhash::FxHashMap;
use crate::ir::inst::{Args, Id, Inst};
use crate::ir::strings;

/// What decoding an instruction learns that later ones need.
#[derive(Default)]
pub(super) struct Context {
    /// Bit width of each scalar type: integers, floats and the dialect's bit vectors.
    widths: FxHashMap<Id, u32>,
    /// The extended instruction sets whose grammar we know, by their import.
    sets: FxHashMap<Id, &'static InstructionTable<ExtInstOp>>,
    dialect_set: Option<Id>,
}

/// What is wrong with an instruction's operands.
pub(super) type Fault = String;

/// The operand words of one instruction.
struct Words<'w> {
    words: &'w [u32],
    at: usize,
    /// The instruction's first word in the module.
    offset: usize,
}

impl Words<'_> {
    fn done(&self) -> bool {
        self.at >= self.words.len()
    }

    /// What is wrong, and at which word of the module.
    fn fault(&self, detail: &str) -> Fault {
        format!("{detail} (at word {})", self.offset + self.at)
    }

    fn word(&mut self) -> Result<u32, Fault> {
        let w = *self
            .words
            .get(self.at)
            .ok_or_else(|| self.fault("expected more operands than the word count allows"))?;
        self.at += 1;
        Ok(w)
    }

    /// A nul-terminated string; its bytes as `ir::strings` keeps them.
    fn string(&mut self) -> Result<String, Fault> {
        let rest = &self.words[self.at..];
        let mut bytes = Vec::with_capacity(rest.len() * 4);
        for (k, w) in rest.iter().enumerate() {
            let b = w.to_le_bytes();
            match b.iter().position(|&c| c == 0) {
                Some(end) => {
                    bytes.extend_from_slice(&b[..end]);
                    self.at += k + 1;
                    return Ok(match String::from_utf8(bytes) {
                        Ok(s) => strings::escape_utf8(s),
                        Err(e) => strings::from_bytes(e.as_bytes()),
                    });
                }
                None => bytes.extend_from_slice(&b),
            }
        }
        Err(format!(
            "a string with no nul before the end of the instruction (reached word limit at word {})",
            self.offset + self.words.len()
        ))
    }
}

impl Context {
    /// Decodes the instruction of grammar `g` whose words (opcode word included) start at word
    /// `offset` of the module. `before` are the instructions decoded so far.
    pub fn decode(
        &mut self,
        g: &'static Instruction<'static>,
        words: &[u32],
        offset: usize,
        before: &[Inst],
    ) -> Result<Inst, Fault> {
        let mut w = Words {
            words,
            at: 1,
            offset,
        };
        if g.opcode == Op::SpecConstantOp {
            return spec_constant_op(&mut w);
        }
        let mut inst = Inst::with_args(g.opcode, None, None, Args::new());
        let mut k = 0;
        while let Some(lo) = g.operands.get(k) {
            if w.done() {
                if lo.quantifier == OperandQuantifier::One {
                    return Err(w.fault("expected more operands than the word count allows"));
                }
                break;
            }
            match lo.kind {
                K::IdResultType => inst.ty = Some(w.word()?),
                K::IdResult => inst.result = Some(w.word()?),
                K::LiteralContextDependentNumber => {
                    let width = inst.ty.and_then(|t| self.widths.get(&t).copied());
                    inst.push_operand(number(&mut w, width)?);
                }
                K::PairLiteralIntegerIdRef => {
                    // OpSwitch: the literal has the selector's type.
                    let width = inst.arg(0).and_then(|s| self.value_width(s, before));
                    inst.push_operand(number(&mut w, width)?);
                    inst.push_operand(Operand::IdRef(w.word()?));
                }
                K::LiteralExtInstInteger => {
                    let number = w.word()?;
                    inst.push_operand(Operand::LiteralExtInstInteger(number));
                    self.ext_operands(&mut inst, number, &mut w)?;
                    break;
                }
                kind => operand(kind, &mut w, &mut inst)?,
            }
            if lo.quantifier != OperandQuantifier::ZeroOrMore {
                k += 1;
            }
        }
        if !w.done() {
            return Err(w.fault("more words than its operands take"));
        }
        self.learn(&inst);
        Ok(inst)
    }

    /// The width of the scalar type of value `id`, from its definition before.
    fn value_width(&self, id: Id, before: &[Inst]) -> Option<u32> {
        let def = before.iter().rev().find(|i| i.result == Some(id))?;
        self.widths.get(&def.ty?).copied()
    }

    fn learn(&mut self, inst: &Inst) {
        let Some(result) = inst.result else {
            return;
        };
        match inst.op {
            Op::TypeInt | Op::TypeFloat => {
                if let Some(width) = inst.lit_u32(0) {
                    self.widths.insert(result, width);
                }
            }
            Op::ExtInstImport => {
                if let Some(Operand::LiteralString(name)) = inst.lits().first() {
                    if name == crate::ir::ops::DIALECT_SET {
                        self.dialect_set = Some(result);
                    } else if !name.starts_with("NonSemantic.") {
                        if let Some(table) = grammar::ext_set(name) {
                            self.sets.insert(result, table);
                        }
                    }
                }
            }
            Op::ExtInst if self.dialect_set.is_some() && inst.arg(0) == self.dialect_set => {
                let width = inst
                    .lit_u32(0)
                    .and_then(crate::ir::ops::dialect)
                    .and_then(|o| crate::ir::number::ScalarKind::bits_width(&o.name));
                if let Some(width) = width {
                    self.widths.insert(result, width);
                }
            }
            _ => {}
        }
    }

    /// The operands of an extended instruction after its number: ids, except where the set's
    /// grammar says literal (the lines, columns and flags of the debug-info sets). Sets we do
    /// not know, non-semantic ones and our dialect take ids throughout.
    fn ext_operands(&self, inst: &mut Inst, number: u32, w: &mut Words) -> Result<(), Fault> {
        let g = inst
            .arg(0)
            .and_then(|set| self.sets.get(&set))
            .and_then(|t| t.lookup_opcode(number));
        let kinds = g.map_or(&[][..], |g| g.operands);
        let mut k = 0;
        while !w.done() {
            let kind = kinds.get(k).or(kinds.last()).map(|o| o.kind);
            let word = w.word()?;
            inst.push_operand(match kind {
                None | Some(K::IdRef | K::IdScope | K::IdMemorySemantics) => Operand::IdRef(word),
                Some(_) => Operand::LiteralBit32(word),
            });
            k += 1;
        }
        Ok(())
    }
}

/// A literal number of a type `width` bits wide (unknown: one word).
fn number(w: &mut Words, width: Option<u32>) -> Result<Operand, Fault> {
    match width.unwrap_or(32) {
        0..=32 => Ok(Operand::LiteralBit32(w.word()?)),
        33..=64 => {
            let low = u64::from(w.word()?);
            let high = u64::from(w.word()?);
            Ok(Operand::LiteralBit64(high << 32 | low))
        }
        n => Err(w.fault(&format!("a literal of a {n}-bit type is not supported"))),
    }
}

/// One operand of a kind that needs no context, with the parameters its enumerant takes.
fn operand(kind: K, w: &mut Words, inst: &mut Inst) -> Result<(), Fault> {
    match kind {
        // Ids go straight to the instruction's ids (as `push_operand` puts them): most
        // operands are ids, and an `Operand` made and matched for each was a third of decoding.
        K::IdRef | K::IdScope | K::IdMemorySemantics => inst.args.push(w.word()?),
        K::LiteralInteger | K::LiteralFloat => inst.push_operand(Operand::LiteralBit32(w.word()?)),
        K::LiteralString => inst.push_operand(Operand::LiteralString(w.string()?)),
        K::PairIdRefLiteralInteger => {
            inst.push_operand(Operand::IdRef(w.word()?));
            inst.push_operand(Operand::LiteralBit32(w.word()?));
        }
        K::PairIdRefIdRef => {
            inst.args.push(w.word()?);
            inst.args.push(w.word()?);
        }
        kind => {
            let at = w.at;
            let word = w.word()?;
            match operand_tables::enumerant(kind, word) {
                Some(Some(o)) => inst.push_operand(o),
                Some(None) => {
                    return Err(format!(
                        "unknown value {word} for operand kind {kind:?} at word {}",
                        w.offset + at
                    ))
                }
                // A kind of an extended set's grammar: a plain word.
                None => inst.push_operand(Operand::LiteralBit32(word)),
            }
            let params = operand_tables::params(kind);
            if params.is_empty() {
                return Ok(());
            }
            if operand_tables::is_mask(kind) {
                for (bit, kinds) in params {
                    if word & bit != 0 {
                        for &k in *kinds {
                            operand(k, w, inst)?;
                        }
                    }
                }
            } else if let Some((_, kinds)) = params.iter().find(|(v, _)| *v == word) {
                for &k in *kinds {
                    operand(k, w, inst)?;
                }
            }
        }
    }
    Ok(())
}

/// `OpSpecConstantOp`: the wrapped op's operands by its grammar, ids as ids and everything
/// else (the literal indices of `VectorShuffle` and `CompositeExtract`) as plain words.
fn spec_constant_op(w: &mut Words) -> Result<Inst, Fault> {
    if w.words.len() < 4 {
        return Err(w.fault("needs a result type, a result id and an opcode"));
    }
    let ty = w.word()?;
    let result = w.word()?;
    let opcode = w.word()?;
    let inner = grammar::core(opcode)
        .ok_or_else(|| w.fault(&format!("unknown wrapped opcode {opcode}")))?;
    let mut inst = Inst::with_args(Op::SpecConstantOp, Some(ty), Some(result), Vec::new());
    inst.push_operand(Operand::LiteralSpecConstantOpInteger(inner.opcode));
    let kinds: Vec<K> = inner
        .operands
        .iter()
        .filter(|o| !matches!(o.kind, K::IdResultType | K::IdResult))
        .map(|o| o.kind)
        .collect();
    let mut k = 0;
    while !w.done() {
        // Trailing repeated operands take the kind of the last logical operand.
        let kind = kinds.get(k).or(kinds.last()).copied();
        let word = w.word()?;
        inst.push_operand(match kind {
            Some(K::IdRef) => Operand::IdRef(word),
            _ => Operand::LiteralBit32(word),
        });
        k += 1;
    }
    Ok(inst)
}
