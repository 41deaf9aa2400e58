//! SPIR-V binary → IR.
//!
//! One pass over the words: the stream is split into instructions (opcode + word count is all
//! it takes), so truncation, zero word counts and unknown opcodes are reported with their
//! position; each instruction's operands are decoded straight into the IR by the grammar
//! (`decode`); then the instructions are laid out into sections, functions and blocks.

use std::fmt;

use rspirv::dr::Operand;

use super::{decode, grammar};
use crate::ir::debug::DebugSets;
use crate::ir::markers::Tracker;
use spirv::Op;

use super::MAGIC;
use crate::ir::func::{Function, Merge};
use crate::ir::inst::{self, Id, Inst};
use crate::ir::module::{Header, Module};

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

/// The words of each instruction of a module's words, after the header, in order. A count
/// that does not fit (zero, or past the end) ends the walk with the rest of the words as one
/// last slice, so that nothing is dropped: the reader says what is wrong with them.
pub fn instruction_words(words: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut at = 5.min(words.len());
    std::iter::from_fn(move || {
        let rest = &words[at..];
        let count = (*rest.first()? >> 16) as usize;
        let len = if count == 0 || count > rest.len() {
            rest.len()
        } else {
            count
        };
        at += len;
        Some(&rest[..len])
    })
}

/// Whether an instruction `instruction_words` gave is one whose word count fits (not the rest
/// of a stream that does not split).
pub fn is_whole(inst: &[u32]) -> bool {
    (inst[0] >> 16) as usize == inst.len()
}

/// The words without the source text that `OpSource` may carry (and the `OpSourceContinued`
/// that goes on with it): the language, version and file name stay, which `OpLine` refers to.
/// Done on the word stream, so that a front end's output is decoded once, not decoded, edited
/// and written again. Words that do not split into instructions are returned as they are:
/// the reader says what is wrong with them.
pub fn without_source_text(words: Vec<u32>) -> Vec<u32> {
    // `OpSource Language Version [File] [Source]`: the text can only follow the file.
    let has_text = |i: &[u32]| i[0] & 0xffff == Op::Source as u32 && i.len() > 4;
    let insts = || instruction_words(&words);
    if !insts().all(is_whole) || !insts().any(has_text) {
        return words;
    }
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5]);
    let mut after_text = false;
    for i in insts() {
        if has_text(i) {
            out.push(4 << 16 | Op::Source as u32);
            out.extend_from_slice(&i[1..4]);
            after_text = true;
        } else if i[0] & 0xffff == Op::SourceContinued as u32 && after_text {
            // The rest of the text dropped.
        } else {
            after_text = false;
            out.extend_from_slice(i);
        }
    }
    out
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
    let (insts, offsets) = decode_all(words)?;
    build_module(header, bound, insts, &offsets, words.len())
}

/// The instructions of a module (after its 5-word header) as the reader decodes them, before
/// they are laid out into functions and blocks.
pub fn instructions(words: &[u32]) -> Result<Vec<Inst>, ReadError> {
    decode_all(words).map(|(insts, _)| insts)
}

/// Splits the stream (opcode and word count are all it takes) and decodes each instruction;
/// with each one's word offset.
fn decode_all(words: &[u32]) -> Result<(Vec<Inst>, Vec<usize>), ReadError> {
    let mut cx = decode::Context::default();
    let mut insts: Vec<Inst> = Vec::with_capacity(words.len() / 4);
    let mut offsets: Vec<usize> = Vec::with_capacity(words.len() / 4);
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
        let inst = cx
            .decode(grammar, &words[offset..offset + count], offset, &insts)
            .map_err(|fault| ReadError::Operands {
                index,
                offset,
                op: format!("Op{}", grammar.opname),
                detail: fault,
            })?;
        insts.push(inst);
        offsets.push(offset);
        offset += count;
    }
    Ok((insts, offsets))
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
                .map(|name| crate::ir::ops::ext_inst_number(OPENCL_DEBUG, name)),
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
