//! SPIR-V binary → IR.
//!
//! We split the word stream into instructions ourselves (opcode + word count is all it takes),
//! so truncation, zero word counts and unknown opcodes are reported with their position, and
//! operands are decoded by rspirv's parser. rspirv 0.13 rejects `OpSpecConstantOp` wrapping an
//! op with literal operands (`VectorShuffle`, `CompositeExtract`); those instructions are hidden
//! from it as `OpNop` and decoded here from the wrapped op's grammar.

use std::fmt;

use rspirv::binary::{Consumer, DecodeError, ParseAction, ParseState};
use rspirv::dr::{self, Operand};
use rspirv::grammar::OperandKind;

use super::grammar;
use crate::ir::debug::DebugSets;
use crate::ir::loc::Tracker;
use spirv::Op;

use super::MAGIC;
use crate::ir::func::{Function, Merge};
use crate::ir::inst::{self, Id, Inst};
use crate::ir::module::{Header, Module};
use crate::ir::strings;

#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    Empty,
    NotWordAligned {
        bytes: usize,
    },
    HeaderTooShort {
        words: usize,
    },
    BadMagic {
        found: u32,
    },
    BadVersion {
        word: u32,
    },
    Truncated {
        index: usize,
        offset: usize,
        op: String,
        need: usize,
        have: usize,
    },
    ZeroWordCount {
        index: usize,
        offset: usize,
        op: String,
    },
    UnknownOpcode {
        index: usize,
        offset: usize,
        opcode: u16,
    },
    Operands {
        index: usize,
        offset: usize,
        op: String,
        detail: String,
    },
    IdOutOfBound {
        id: Id,
        bound: u32,
        index: usize,
        offset: usize,
        op: String,
    },
    /// The instructions are not where SPIR-V's logical layout puts them. `index` 0 is the end
    /// of the module (then `offset` is its length in words).
    Layout {
        index: usize,
        offset: usize,
        op: String,
        detail: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Empty => write!(f, "empty file: a SPIR-V module has at least a 5-word header"),
            ReadError::NotWordAligned { bytes } => write!(
                f,
                "truncated binary: {bytes} bytes is not a whole number of 32-bit words"
            ),
            ReadError::HeaderTooShort { words } => write!(
                f,
                "truncated binary: {words} words, but the SPIR-V header alone is 5 words"
            ),
            ReadError::BadMagic { found } => write!(
                f,
                "bad magic number 0x{found:08x} (expected 0x{MAGIC:08x}): not a SPIR-V binary"
            ),
            ReadError::BadVersion { word } => {
                write!(f, "unsupported SPIR-V version word 0x{word:08x}")
            }
            ReadError::Truncated { index, offset, op, need, have } => write!(
                f,
                "truncated binary: instruction #{index} ({op}) at word {offset} needs {need} words but only {have} remain"
            ),
            ReadError::ZeroWordCount { index, offset, op } => write!(
                f,
                "corrupt binary: instruction #{index} ({op}) at word {offset} has a word count of 0"
            ),
            ReadError::UnknownOpcode { index, offset, opcode } => write!(
                f,
                "unknown opcode {opcode} in instruction #{index} at word {offset}"
            ),
            ReadError::Operands { index, offset, op, detail } => write!(
                f,
                "bad operands in instruction #{index} ({op}) at word {offset}: {detail}"
            ),
            ReadError::IdOutOfBound { id, bound, index, offset, op } => write!(
                f,
                "invalid id %{id} in instruction #{index} ({op}) at word {offset}: the module's id bound is {bound}"
            ),
            ReadError::Layout { index: 0, op, detail, .. } => {
                write!(f, "bad module layout at the {op}: {detail}")
            }
            ReadError::Layout { index, offset, op, detail } => write!(
                f,
                "bad module layout at instruction #{index} ({op}) at word {offset}: {detail}"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// The 1-based index of the instruction the error is about, if it is about one.
    pub fn index(&self) -> Option<usize> {
        match self {
            ReadError::Truncated { index, .. }
            | ReadError::ZeroWordCount { index, .. }
            | ReadError::UnknownOpcode { index, .. }
            | ReadError::Operands { index, .. }
            | ReadError::IdOutOfBound { index, .. }
            | ReadError::Layout { index, .. } => Some(*index).filter(|&i| i > 0),
            _ => None,
        }
    }
}

/// Converts bytes to words, accepting either byte order (detected from the magic number).
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::Empty);
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(ReadError::NotWordAligned { bytes: bytes.len() });
    }
    let le = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let be = |c: &[u8]| u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    let big = be(&bytes[..4]) == MAGIC && le(&bytes[..4]) != MAGIC;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| if big { be(c) } else { le(c) })
        .collect())
}

pub fn read_bytes(bytes: &[u8]) -> Result<Module, ReadError> {
    read_words(&words_from_bytes(bytes)?)
}

fn op_name(op: Op) -> String {
    format!("Op{op:?}")
}

/// `OpName` of an opcode number, or `opcode N` for one the grammar does not know.
fn opcode_name(opcode: u32) -> String {
    grammar::core(opcode)
        .map(|g| format!("Op{}", g.opname))
        .unwrap_or_else(|| format!("opcode {opcode}"))
}

pub fn read_words(words: &[u32]) -> Result<Module, ReadError> {
    if words.is_empty() {
        return Err(ReadError::Empty);
    }
    if words[0] != MAGIC {
        return Err(ReadError::BadMagic { found: words[0] });
    }
    if words.len() < 5 {
        return Err(ReadError::HeaderTooShort { words: words.len() });
    }
    let version = words[1];
    if version & 0xff00_00ff != 0 || (version >> 16) & 0xff != 1 {
        return Err(ReadError::BadVersion { word: version });
    }
    let header = Header {
        version: (
            ((version >> 16) & 0xff) as u8,
            ((version >> 8) & 0xff) as u8,
        ),
        generator: words[2],
    };
    let bound = words[3];

    // Split and check the stream; hide OpSpecConstantOp from rspirv (see module doc), and the
    // constants of the dialect's bit-vector types wider than 32 bits (rspirv sizes a literal by
    // its type, and knows no dialect type).
    // Strings that are not UTF-8 are hidden from rspirv too (see `ir::strings`): their bytes
    // above 0x7f become `?` in what it parses, and are read here from the original words.
    let mut patched: Option<Vec<u32>> = None;
    let mut spec_ops: Vec<(usize, usize)> = Vec::new(); // (inst index, word offset)
    let mut bad_strings: Vec<usize> = Vec::new(); // inst indices
    let mut dialect_set: Option<u32> = None;
    let mut wide_bits: Vec<u32> = Vec::new();
    // Per instruction: its word offset, and how many instructions rspirv has parsed once it is
    // done (a hidden instruction is `count` OpNops to it).
    let mut offsets: Vec<usize> = Vec::new();
    let mut parsed_through: Vec<usize> = Vec::new();
    let mut offset = 5;
    let mut index = 0;
    while offset < words.len() {
        index += 1;
        let count = (words[offset] >> 16) as usize;
        let opcode = (words[offset] & 0xffff) as u16;
        if count == 0 {
            return Err(ReadError::ZeroWordCount {
                index,
                offset,
                op: opcode_name(u32::from(opcode)),
            });
        }
        let grammar = grammar::core(opcode as u32).ok_or(ReadError::UnknownOpcode {
            index,
            offset,
            opcode,
        })?;
        if offset + count > words.len() {
            return Err(ReadError::Truncated {
                index,
                offset,
                op: format!("Op{}", grammar.opname),
                need: count,
                have: words.len() - offset,
            });
        }
        let inst = &words[offset..offset + count];
        match grammar.opcode {
            Op::ExtInstImport if count > 2 => {
                let name = dr_string(&inst[2..]);
                if name == crate::ir::ops::DIALECT_SET {
                    dialect_set = Some(inst[1]);
                }
            }
            Op::ExtInst if count >= 5 && Some(inst[3]) == dialect_set => {
                let width = crate::ir::ops::dialect(inst[4])
                    .and_then(|o| crate::ir::number::ScalarKind::bits_width(&o.name));
                if width.is_some_and(|w| w > 32) {
                    wide_bits.push(inst[2]);
                }
            }
            _ => {}
        }
        let wide_constant = matches!(grammar.opcode, Op::Constant | Op::SpecConstant)
            && count == 5
            && wide_bits.contains(&inst[1]);
        let hidden = grammar.opcode == Op::SpecConstantOp || wide_constant;
        if hidden {
            let p = patched.get_or_insert_with(|| words.to_vec());
            // OpNop followed by OpNops keeps every other instruction at its offset.
            for w in &mut p[offset..offset + count] {
                *w = (1 << 16) | Op::Nop as u32;
            }
            spec_ops.push((index, offset));
        }
        if let Some(at) = string_operand_at(grammar.opcode).filter(|&at| at < count) {
            if !string_is_utf8(&inst[at..]) {
                let p = patched.get_or_insert_with(|| words.to_vec());
                hide_string(&mut p[offset + at..offset + count]);
                bad_strings.push(index);
            }
        }
        offsets.push(offset);
        parsed_through.push(parsed_through.last().unwrap_or(&0) + if hidden { count } else { 1 });
        offset += count;
    }

    let mut stream = patched.map_or(std::borrow::Cow::Borrowed(words), std::borrow::Cow::Owned);
    let mut insts = loop {
        let mut collector = Collector {
            insts: Vec::with_capacity(index),
        };
        let Err(state) = rspirv::binary::parse_words(&stream, &mut collector) else {
            break collector.insts;
        };
        // rspirv stopped in the instruction after the last one it gave us.
        let failed = parsed_through.partition_point(|&n| n <= collector.insts.len());
        let index = (failed + 1).min(offsets.len()).max(1);
        let at = offsets.get(index - 1).copied().unwrap_or(5);
        // A string that is not UTF-8 where `string_operand_at` does not look (a decoration's
        // parameter): hide it and parse again.
        if let ParseState::OperandError(DecodeError::DecodeStringFailed(byte, _)) = &state {
            let end = at + (words[at] >> 16) as usize;
            let start = byte / 4;
            if (at..end).contains(&start) && hide_string(&mut stream.to_mut()[start..end]) {
                bad_strings.push(index);
                continue;
            }
        }
        return Err(parse_state_error(state, index, at, words));
    };
    // Re-expand: each hidden instruction became `count` OpNops; replace the run with the real one.
    if !spec_ops.is_empty() {
        let mut out = Vec::with_capacity(insts.len());
        let mut it = insts.into_iter();
        let mut inst_index = 0usize; // 1-based index of the next original instruction
        let mut pending = spec_ops.iter().peekable();
        let mut offset = 5;
        while offset < words.len() {
            inst_index += 1;
            let count = (words[offset] >> 16) as usize;
            if pending.peek().map(|p| p.0) == Some(inst_index) {
                pending.next();
                for _ in 0..count {
                    it.next();
                }
                let w = &words[offset..offset + count];
                out.push(if (w[0] & 0xffff) as u16 == Op::SpecConstantOp as u16 {
                    decode_spec_constant_op(w, inst_index, offset)?
                } else {
                    // A 64-bit constant of a dialect bit-vector type.
                    let op = if (w[0] & 0xffff) as u16 == Op::Constant as u16 {
                        Op::Constant
                    } else {
                        Op::SpecConstant
                    };
                    Inst::new(
                        op,
                        Some(w[1]),
                        Some(w[2]),
                        vec![Operand::LiteralBit64(
                            u64::from(w[3]) | (u64::from(w[4]) << 32),
                        )],
                    )
                });
            } else {
                out.push(it.next().expect("one parsed instruction per original"));
            }
            offset += count;
        }
        insts = out;
    }

    for &index in &bad_strings {
        let at = offsets[index - 1];
        let end = at + (words[at] >> 16) as usize;
        restore_strings(&mut insts[index - 1], &words[at..end]);
    }

    literal_ext_operands(&mut insts);
    build_module(header, bound, insts, &offsets, words.len())
}

/// Where an op's string operand starts, for the ops whose string comes after operands of one
/// word each.
fn string_operand_at(op: Op) -> Option<usize> {
    Some(match op {
        Op::SourceContinued | Op::SourceExtension | Op::Extension | Op::ModuleProcessed => 1,
        Op::String | Op::Name | Op::ExtInstImport => 2,
        Op::MemberName | Op::EntryPoint => 3,
        Op::Source => 4,
        _ => return None,
    })
}

/// The bytes of the nul-terminated string at the start of `words`.
fn string_bytes(words: &[u32]) -> impl Iterator<Item = u8> + '_ {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
}

fn string_is_utf8(words: &[u32]) -> bool {
    let bytes: Vec<u8> = string_bytes(words).collect();
    std::str::from_utf8(&bytes).is_ok()
}

/// Makes the string at the start of `words` ASCII, keeping its length: every byte above 0x7f
/// becomes `?`. Whether anything changed.
fn hide_string(words: &mut [u32]) -> bool {
    let mut changed = false;
    for w in words {
        let mut bytes = w.to_le_bytes();
        for b in &mut bytes {
            if *b > 0x7f {
                *b = b'?';
                changed = true;
            }
        }
        *w = u32::from_le_bytes(bytes);
        if bytes.contains(&0) {
            break;
        }
    }
    changed
}

/// Puts back the strings `hide_string` hid, from the instruction's original words.
fn restore_strings(inst: &mut Inst, words: &[u32]) {
    let mut at = 1 + usize::from(inst.ty.is_some()) + usize::from(inst.result.is_some());
    let mut ops = inst.to_operands();
    for o in &mut ops {
        // The hidden string has the length of the original: it spans the same words.
        let n = inst::lit_words(o);
        if let Operand::LiteralString(s) = o {
            let bytes: Vec<u8> = string_bytes(words.get(at..).unwrap_or(&[])).collect();
            *s = strings::from_bytes(&bytes);
        }
        at += n;
    }
    inst.set_operands(ops);
}

/// rspirv reads every operand of an extended instruction as an id. Sets whose grammar says
/// otherwise (the literal lines, columns and flags of `DebugInfo` and `OpenCL.DebugInfo.100`)
/// get their literals back, so they are not taken for ids.
fn literal_ext_operands(insts: &mut [Inst]) {
    use rspirv::grammar::OperandKind as K;
    let sets: Vec<(
        Id,
        &'static rspirv::grammar::InstructionTable<rspirv::grammar::ExtInstOp>,
    )> = insts
        .iter()
        .filter(|i| i.op == Op::ExtInstImport)
        .filter_map(|i| match i.lits().first() {
            Some(Operand::LiteralString(name)) if !name.starts_with("NonSemantic.") => {
                Some((i.result?, grammar::ext_set(name)?))
            }
            _ => None,
        })
        .collect();
    if sets.is_empty() {
        return;
    }
    for inst in insts.iter_mut().filter(|i| i.op == Op::ExtInst) {
        let Some((set, number)) = inst.ext_inst() else {
            continue;
        };
        let Some(table) = sets.iter().find(|(s, _)| *s == set).map(|(_, t)| t) else {
            continue;
        };
        let Some(g) = table.lookup_opcode(number) else {
            continue;
        };
        let kinds: Vec<K> = g.operands.iter().map(|o| o.kind).collect();
        if kinds.iter().all(|k| matches!(k, K::IdRef)) {
            continue;
        }
        let mut ops = inst.to_operands();
        for (k, o) in ops.iter_mut().skip(2).enumerate() {
            let kind = kinds.get(k).or(kinds.last()).copied();
            if let (Some(kind), Operand::IdRef(v)) = (kind, &*o) {
                if !matches!(kind, K::IdRef | K::IdScope | K::IdMemorySemantics) {
                    *o = Operand::LiteralBit32(*v);
                }
            }
        }
        inst.set_operands(ops);
    }
}

struct Collector {
    insts: Vec<Inst>,
}

impl Consumer for Collector {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, _: dr::ModuleHeader) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, mut inst: dr::Instruction) -> ParseAction {
        for o in &mut inst.operands {
            if let Operand::LiteralString(s) = o {
                // Code points our escapes use are escaped themselves (see `ir::strings`).
                if strings::has_escapes(s) {
                    *s = strings::escape_utf8(std::mem::take(s));
                }
            }
        }
        self.insts.push(Inst::new(
            inst.class.opcode,
            inst.result_type,
            inst.result_id,
            inst.operands,
        ));
        ParseAction::Continue
    }
}

/// Maps rspirv's parser state to our errors. rspirv counts instructions and bytes in the
/// stream it was given (where hidden instructions are runs of OpNops): the error is placed
/// at instruction `index` (1-based, ours) at word `offset` instead.
fn parse_state_error(state: ParseState, index: usize, offset: usize, words: &[u32]) -> ReadError {
    let op = words
        .get(offset)
        .map_or_else(|| "?".into(), |w| opcode_name(w & 0xffff));
    let operands = |detail: String| ReadError::Operands {
        index,
        offset,
        op: op.clone(),
        detail,
    };
    match state {
        ParseState::OperandExpected(..) => {
            operands("expected more operands than the word count allows".into())
        }
        ParseState::OperandExceeded(..) => operands("more words than its operands take".into()),
        ParseState::TypeUnsupported(..) => {
            operands("literal of a type that is not a declared integer or float type".into())
        }
        ParseState::OpcodeUnknown(_, _, opcode) => ReadError::UnknownOpcode {
            index,
            offset,
            opcode,
        },
        ParseState::WordCountZero(..) => ReadError::ZeroWordCount {
            index,
            offset,
            op: op.clone(),
        },
        ParseState::OperandError(e) => operands(byte_to_word_index(&e.to_string())),
        other => operands(byte_to_word_index(&other.to_string())),
    }
}

/// rspirv's messages say `at index N` for byte N of the stream: say which word that is.
fn byte_to_word_index(message: &str) -> String {
    let Some((before, after)) = message.split_once("at index ") else {
        return message.to_string();
    };
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    match after[..digits].parse::<usize>() {
        Ok(byte) => format!("{before}at word {}{}", byte / 4, &after[digits..]),
        Err(_) => message.to_string(),
    }
}

/// Decodes `OpSpecConstantOp` from its words using the wrapped op's grammar.
fn decode_spec_constant_op(w: &[u32], index: usize, offset: usize) -> Result<Inst, ReadError> {
    let err = |detail: &str| ReadError::Operands {
        index,
        offset,
        op: "OpSpecConstantOp".into(),
        detail: detail.into(),
    };
    if w.len() < 4 {
        return Err(err("needs a result type, a result id and an opcode"));
    }
    let inner =
        grammar::core(w[3]).ok_or_else(|| err(&format!("unknown wrapped opcode {}", w[3])))?;
    let mut operands = vec![Operand::LiteralSpecConstantOpInteger(inner.opcode)];
    let kinds: Vec<OperandKind> = inner
        .operands
        .iter()
        .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
        .map(|o| o.kind)
        .collect();
    for (i, &word) in w[4..].iter().enumerate() {
        // Trailing repeated operands take the kind of the last logical operand.
        let kind = kinds.get(i).or(kinds.last()).copied();
        operands.push(match kind {
            Some(OperandKind::IdRef) => Operand::IdRef(word),
            _ => Operand::LiteralBit32(word),
        });
    }
    Ok(Inst::new(
        Op::SpecConstantOp,
        Some(w[1]),
        Some(w[2]),
        operands,
    ))
}

fn is_annotation(op: Op) -> bool {
    matches!(
        op,
        Op::Decorate
            | Op::MemberDecorate
            | Op::DecorationGroup
            | Op::GroupDecorate
            | Op::GroupMemberDecorate
            | Op::DecorateId
            | Op::DecorateString
            | Op::MemberDecorateString
    )
}

/// Debug instructions that may stand outside a block: `OpLine`/`OpNoLine`, and the
/// non-semantic `OpExtInst`s `spirv-opt --print-all` prints between functions, between a
/// terminator and the next label, and between `OpFunction` and the first label (those of a
/// `NonSemantic.*` set, and `DebugScope`/`DebugNoScope` of `OpenCL.DebugInfo.100`). They are
/// kept where they are, as line info is.
struct FloatingDebug {
    /// Imports of `NonSemantic.*` sets.
    non_semantic: Vec<Id>,
    /// Imports of `OpenCL.DebugInfo.100`, and its `DebugScope` and `DebugNoScope` numbers.
    opencl_debug: Vec<Id>,
    opencl_scopes: [Option<u32>; 2],
}

impl FloatingDebug {
    fn of(insts: &[Inst]) -> Self {
        let mut non_semantic = Vec::new();
        let mut opencl_debug = Vec::new();
        for i in insts.iter().filter(|i| i.op == Op::ExtInstImport) {
            match (i.result, i.lits().first()) {
                (Some(id), Some(Operand::LiteralString(name)))
                    if name.starts_with("NonSemantic.") =>
                {
                    non_semantic.push(id)
                }
                (Some(id), Some(Operand::LiteralString(name))) if name == OPENCL_DEBUG => {
                    opencl_debug.push(id)
                }
                _ => {}
            }
        }
        FloatingDebug {
            non_semantic,
            opencl_debug,
            opencl_scopes: ["DebugScope", "DebugNoScope"]
                .map(|name| grammar::ext_inst_number(OPENCL_DEBUG, name)),
        }
    }

    fn holds(&self, inst: &Inst) -> bool {
        match inst.op {
            Op::Line | Op::NoLine => true,
            Op::ExtInst => match inst.ext_inst() {
                Some((set, _)) if self.non_semantic.contains(&set) => true,
                Some((set, number)) => {
                    self.opencl_debug.contains(&set) && self.opencl_scopes.contains(&Some(number))
                }
                None => false,
            },
            _ => false,
        }
    }
}

const OPENCL_DEBUG: &str = "OpenCL.DebugInfo.100";

fn build_module(
    header: Header,
    bound: u32,
    insts: Vec<Inst>,
    offsets: &[usize],
    end: usize,
) -> Result<Module, ReadError> {
    let mut m = Module::default();
    m.header = header;
    m.bound = bound;
    let mut func: Option<Function> = None;
    let mut block: Option<(Id, Vec<Inst>, Option<Merge>)> = None;
    // Line info between a terminator and the next label.
    let mut block_lines: Vec<Inst> = Vec::new();
    // Line info between functions belongs to the function that follows.
    let mut section = 0;
    let mut pending_lines: Vec<Inst> = Vec::new();
    let mut pending_block_lines: Vec<Inst> = Vec::new();
    let floating_debug = FloatingDebug::of(&insts);
    // Location markers become each instruction's `loc` (see `ir::loc`).
    let mut sets: Option<DebugSets> = None;
    let mut tracker = Tracker::default();

    for (i, mut inst) in insts.into_iter().enumerate() {
        let index = i + 1;
        let offset = offsets[i];
        let layout = |detail: &str| ReadError::Layout {
            index,
            offset,
            op: op_name(inst.op),
            detail: detail.into(),
        };
        for id in inst.uses().chain(inst.result) {
            if id == 0 || id >= bound {
                return Err(ReadError::IdOutOfBound {
                    id,
                    bound,
                    index,
                    offset,
                    op: op_name(inst.op),
                });
            }
        }
        if let Some(f) = func.as_mut() {
            let sets = sets.get_or_insert_with(|| DebugSets::of(&m));
            // A marker between a merge instruction and its terminator says where the
            // terminator is, as one before the merge does.
            let in_block = block.is_some();
            if (in_block || floating_debug.holds(&inst)) && tracker.take(&inst, sets) {
                if inst.op == Op::ExtInst {
                    f.marker_ids.extend(inst.result);
                }
                continue;
            }
            inst.loc = f.locs.intern(tracker.state);
            match inst.op {
                Op::Function => {
                    return Err(layout(
                        "OpFunction inside a function (missing OpFunctionEnd)",
                    ))
                }
                Op::FunctionEnd => {
                    if block.is_some() {
                        return Err(layout("the last block has no terminator"));
                    }
                    // Debug instructions after the last terminator stay there.
                    let mut f = func.take().expect("in a function");
                    f.epilogue_debug = std::mem::take(&mut block_lines);
                    tracker = Tracker::default();
                    m.push_function(f);
                }
                Op::FunctionParameter => {
                    if !f.blocks().is_empty() || block.is_some() {
                        return Err(layout("parameter after the first block"));
                    }
                    f.params.push(inst);
                }
                Op::Label => {
                    if block.is_some() {
                        return Err(layout(
                            "block started before the previous one was terminated",
                        ));
                    }
                    block = Some((inst.result.expect("label has a result"), Vec::new(), None));
                    if !block_lines.is_empty() {
                        pending_block_lines = std::mem::take(&mut block_lines);
                    }
                }
                Op::SelectionMerge | Op::LoopMerge => {
                    let Some((_, _, merge)) = block.as_mut() else {
                        return Err(layout("merge instruction outside a block"));
                    };
                    let ids = &inst.args;
                    *merge = Some(if inst.op == Op::SelectionMerge {
                        Merge::Selection {
                            merge: ids[0],
                            control: inst.lits().first().cloned().unwrap_or(
                                Operand::SelectionControl(spirv::SelectionControl::NONE),
                            ),
                        }
                    } else {
                        Merge::Loop {
                            merge: ids[0],
                            continue_target: ids[1],
                            control: inst.lits().to_vec(),
                        }
                    });
                }
                _ if inst.is_terminator() => {
                    let Some((label, insts, merge)) = block.take() else {
                        return Err(layout("terminator outside a block"));
                    };
                    let b = f.push_block(label, insts, merge, inst);
                    f.block_mut(b).lines = std::mem::take(&mut pending_block_lines);
                    tracker.start_block();
                }
                _ => match block.as_mut() {
                    Some((_, insts, merge)) => {
                        if merge.is_some() {
                            return Err(layout(
                                "instruction between a merge instruction and the terminator",
                            ));
                        }
                        insts.push(inst)
                    }
                    None if floating_debug.holds(&inst) && f.blocks().is_empty() => {
                        f.prologue_debug.push(inst)
                    }
                    None if floating_debug.holds(&inst) => block_lines.push(inst),
                    None => return Err(layout("instruction outside a block")),
                },
            }
            continue;
        }
        // SPIR-V's logical layout: sections come in this order, never back.
        let rank = match inst.op {
            Op::Capability | Op::Extension | Op::ExtInstImport | Op::MemoryModel => 0,
            Op::EntryPoint => 1,
            Op::ExecutionMode | Op::ExecutionModeId => 2,
            Op::String
            | Op::Source
            | Op::SourceContinued
            | Op::SourceExtension
            | Op::Name
            | Op::MemberName
            | Op::ModuleProcessed => 3,
            op if is_annotation(op) => 4,
            Op::Function => 6,
            _ => 5,
        };
        // Line info and non-semantic instructions may sit between later sections.
        let floating = matches!(inst.op, Op::Line | Op::NoLine | Op::Nop | Op::ExtInst);
        if rank < section && !floating {
            const NAMES: [&str; 7] = [
                "capabilities, extensions, imports and the memory model",
                "entry points",
                "execution modes",
                "debug instructions",
                "annotations",
                "types, constants and global variables",
                "functions",
            ];
            return Err(layout(&format!(
                "{} must come before {}",
                NAMES[rank], NAMES[section]
            )));
        }
        if !floating {
            section = rank;
        }
        match (rank, inst.op) {
            (0, _) => m.preamble.push(inst),
            (1, _) => m.entry_points.push(inst),
            (2, _) => m.execution_modes.push(inst),
            (3, _) => m.debug.push(inst),
            (4, _) => m.annotations_mut().push(inst),
            (_, Op::Function) => {
                let mut f = Function::new(inst, Vec::new());
                f.leading_debug = std::mem::take(&mut pending_lines);
                func = Some(f);
            }
            // Between and after functions: line info and non-semantic instructions stay where
            // they are (a non-semantic instruction may name a function defined before it).
            (_, Op::Line | Op::NoLine | Op::ExtInst) if !m.functions().is_empty() => {
                pending_lines.push(inst)
            }
            (_, Op::FunctionEnd | Op::FunctionParameter | Op::Label) => {
                return Err(layout("outside a function"))
            }
            (_, Op::Nop) => {}
            (_, op) if inst::is_block_level_only(op) => {
                return Err(layout("only allowed inside a function"))
            }
            _ => m.push_global(inst),
        }
    }
    if func.is_some() {
        return Err(ReadError::Layout {
            index: 0,
            offset: end,
            op: "end of the module".into(),
            detail: "truncated module: the last function has no OpFunctionEnd".into(),
        });
    }
    m.trailing_debug = pending_lines;
    m.reindex();
    // Markers the writer says where the input had none (a scope said again) take fresh ids.
    let _ = m.settle_markers();
    Ok(m)
}

/// A literal string operand (nul-terminated, little-endian words).
fn dr_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
