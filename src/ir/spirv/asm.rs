//! SPIR-V assembly text → binary words, accepting what `spirv-as` accepts in practice: ids by
//! name (`%main`) or number (`%12`), enum operands by name (`Bias|Offset`), literal strings and
//! numbers (decimal, hex, hex floats), and `!<integer>` for a raw word. Operands are driven by
//! rspirv's grammar tables. The `; Version:`, `; Generator:` and `; Bound:` comments that
//! `spirv-dis` writes are read back, so disassembly round-trips unchanged.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use rspirv::grammar::{LogicalOperand, OperandKind, OperandQuantifier};
use spirv::Op;

use super::disasm::GENERATORS;
use super::{grammar, MAGIC};
use crate::ir::number::{f64_to_f16, ScalarKind};

#[derive(Debug, Clone, PartialEq)]
pub struct AsmError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.col, self.message
        )
    }
}

impl std::error::Error for AsmError {}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Id(String),
    Eq,
    Word(String),
    Str(String),
    Num(String),
    Raw(u32),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
    first_on_line: bool,
}

#[derive(Default)]
struct HeaderInfo {
    version: Option<(u8, u8)>,
    generator: Option<u32>,
    bound: Option<u32>,
}

fn err(line: usize, col: usize, message: impl Into<String>) -> AsmError {
    AsmError {
        line,
        col,
        message: message.into(),
    }
}

fn tokenize(text: &str) -> Result<(Vec<Token>, HeaderInfo), AsmError> {
    let mut tokens = Vec::new();
    let mut header = HeaderInfo::default();
    let bytes = text.as_bytes();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut first = true;
    while i < bytes.len() {
        let c = bytes[i];
        let col = text[line_start..i].chars().count() + 1;
        match c {
            b'\n' => {
                i += 1;
                line += 1;
                line_start = i;
                first = true;
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b';' => {
                let end = text[i..].find('\n').map_or(text.len(), |e| i + e);
                read_header_comment(&text[i..end], &mut header);
                i = end;
                continue;
            }
            _ => {}
        }
        let (tok_line, tok_col) = (line, col);
        let tok = if c == b'"' {
            // Strings may span lines (OpSource carries whole files).
            let mut s = String::new();
            let mut chars = text[i + 1..].char_indices();
            let mut closed = None;
            while let Some((k, ch)) = chars.next() {
                match ch {
                    '"' => {
                        closed = Some(i + 1 + k + 1);
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, e)) => {
                            if e == '\n' {
                                line += 1;
                            }
                            s.push(e)
                        }
                        None => break,
                    },
                    '\n' => {
                        line += 1;
                        s.push(ch);
                    }
                    _ => s.push(ch),
                }
            }
            let Some(end) = closed else {
                return Err(err(tok_line, tok_col, "unterminated string"));
            };
            if line != tok_line {
                line_start = text[..end].rfind('\n').map_or(0, |p| p + 1);
            }
            i = end;
            Tok::Str(s)
        } else {
            let start = i;
            while i < bytes.len()
                && !bytes[i].is_ascii_whitespace()
                && bytes[i] != b';'
                && bytes[i] != b'"'
            {
                i += 1;
            }
            let word = &text[start..i];
            if word == "=" {
                Tok::Eq
            } else if let Some(id) = word.strip_prefix('%') {
                if id.is_empty() {
                    return Err(err(tok_line, tok_col, "empty id name after '%'"));
                }
                Tok::Id(id.to_string())
            } else if let Some(raw) = word.strip_prefix('!') {
                Tok::Raw(parse_u32(raw).ok_or_else(|| {
                    err(
                        tok_line,
                        tok_col,
                        format!("bad raw word '!{raw}': expected an integer"),
                    )
                })?)
            } else if word
                .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
            {
                Tok::Num(word.to_string())
            } else {
                Tok::Word(word.to_string())
            }
        };
        tokens.push(Token {
            tok,
            line: tok_line,
            col: tok_col,
            first_on_line: first,
        });
        first = false;
    }
    Ok((tokens, header))
}

fn read_header_comment(comment: &str, h: &mut HeaderInfo) {
    let body = comment.trim_start_matches(';').trim();
    if let Some(v) = body.strip_prefix("Version:") {
        let mut parts = v.trim().split('.');
        if let (Some(a), Some(b)) = (parts.next(), parts.next()) {
            if let (Ok(a), Ok(b)) = (a.trim().parse(), b.trim().parse()) {
                h.version = Some((a, b));
            }
        }
    } else if let Some(g) = body.strip_prefix("Generator:") {
        let g = g.trim();
        if let Some((name, ver)) = g.rsplit_once(';') {
            let ver: u32 = ver.trim().parse().unwrap_or(0);
            let name = name.trim();
            let tool = GENERATORS
                .iter()
                .find(|(_, n)| *n == name)
                .map(|(id, _)| *id)
                .or_else(|| {
                    name.strip_prefix("Unknown(")?
                        .strip_suffix(')')?
                        .parse()
                        .ok()
                });
            if let Some(tool) = tool {
                h.generator = Some((tool << 16) | (ver & 0xffff));
            }
        }
    } else if let Some(b) = body.strip_prefix("Bound:") {
        h.bound = b.trim().parse().ok();
    }
}

fn parse_u32(s: &str) -> Option<u32> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    // One sign: Rust's parsers would take a second one (`--5` is not 5).
    if body.starts_with(['+', '-']) {
        return None;
    }
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(hex, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parses a float literal (decimal or C99 hex float) to the bits of a float of `width` bits.
fn parse_float_bits(s: &str, width: u32) -> Option<u64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.starts_with(['+', '-']) {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        if hex.contains('p') || hex.contains('.') {
            return parse_hex_float(neg, hex, width);
        }
        // A plain hex integer is the float's bit pattern.
        let bits = u64::from_str_radix(hex, 16).ok()?;
        return Some(bits);
    }
    let v: f64 = body.parse().ok()?;
    let v = if neg { -v } else { v };
    Some(match width {
        16 => u64::from(f64_to_f16(v)),
        32 => u64::from((v as f32).to_bits()),
        64 => v.to_bits(),
        _ => return None,
    })
}

fn parse_hex_float(neg: bool, hex: &str, width: u32) -> Option<u64> {
    let (mant, exp) = match hex.split_once('p') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (hex, 0),
    };
    let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
    let (mbits, ebits): (u32, u32) = match width {
        16 => (10, 5),
        32 => (23, 8),
        64 => (52, 11),
        _ => return None,
    };
    let sign = u64::from(neg) << (mbits + ebits);
    let max_exp = 1i32 << (ebits - 1);
    if exp == max_exp && int_part == "1" {
        // Infinity or NaN: the fraction digits are the mantissa, left-aligned.
        let digits = frac_part.len() as u32;
        let frac = if digits == 0 {
            0
        } else {
            u64::from_str_radix(frac_part, 16).ok()?
        };
        let total = digits * 4;
        let frac = if total >= mbits {
            frac >> (total - mbits)
        } else {
            frac << (mbits - total)
        };
        return Some(sign | (((1u64 << ebits) - 1) << mbits) | frac);
    }
    let int_v = if int_part.is_empty() {
        0
    } else {
        u64::from_str_radix(int_part, 16).ok()?
    };
    let frac_v = if frac_part.is_empty() {
        0
    } else {
        u64::from_str_radix(frac_part, 16).ok()?
    };
    let v = (int_v as f64 + frac_v as f64 / 16f64.powi(frac_part.len() as i32)) * 2f64.powi(exp);
    let v = if neg { -v } else { v };
    Some(match width {
        16 => u64::from(f64_to_f16(v)),
        32 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    })
}

fn encode_string(s: &str, out: &mut Vec<u32>) {
    let bytes = s.as_bytes();
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        out.push(u32::from_le_bytes(w));
    }
    if bytes.len().is_multiple_of(4) {
        out.push(0);
    }
}

macro_rules! value_enums {
    ($kind:expr, $name:expr, [$($k:ident),* $(,)?]) => {
        match $kind {
            $(OperandKind::$k => spirv::$k::from_str($name).ok().map(|v| v as u32),)*
            _ => None,
        }
    };
}

/// Every bit-mask operand kind, with its flag names and values.
macro_rules! mask_kinds {
    ($kind:expr, [$($k:ident),* $(,)?]) => {
        match $kind {
            $(OperandKind::$k => Some(
                spirv::$k::all().iter_names().map(|(n, f)| (n, f.bits())).collect::<Vec<_>>()
            ),)*
            _ => None,
        }
    };
}

fn mask_flags(kind: OperandKind) -> Option<Vec<(&'static str, u32)>> {
    mask_kinds!(
        kind,
        [
            ImageOperands,
            FPFastMathMode,
            SelectionControl,
            LoopControl,
            FunctionControl,
            MemorySemantics,
            MemoryAccess,
            KernelProfilingInfo,
            RayFlags,
            FragmentShadingRate,
            RawAccessChainOperands,
            CooperativeMatrixOperands,
            CooperativeMatrixReduce,
            TensorAddressingOperands,
            MatrixMultiplyAccumulateOperands,
            TensorOperands,
        ]
    )
}

fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_uppercase)
        .collect()
}

/// Looks up the numeric value of an enumerant or a `|`-joined mask by its grammar name.
pub fn enum_value(kind: OperandKind, name: &str) -> Option<u32> {
    if let Some(v) = parse_u32(name) {
        return Some(v);
    }
    if let Some(flags) = mask_flags(kind) {
        let mut bits = 0;
        for part in name.split('|') {
            if part == "None" {
                continue;
            }
            bits |= match parse_u32(part) {
                Some(v) => v,
                None => {
                    let key = normalize(part);
                    flags.iter().find(|(n, _)| normalize(n) == key)?.1
                }
            };
        }
        return Some(bits);
    }
    if kind == OperandKind::Dim {
        return spirv::Dim::from_str(&format!("Dim{name}"))
            .or_else(|_| spirv::Dim::from_str(name))
            .ok()
            .map(|v| v as u32);
    }
    value_enums!(
        kind,
        name,
        [
            SourceLanguage,
            ExecutionModel,
            AddressingModel,
            MemoryModel,
            ExecutionMode,
            StorageClass,
            SamplerAddressingMode,
            SamplerFilterMode,
            ImageFormat,
            ImageChannelOrder,
            ImageChannelDataType,
            FPRoundingMode,
            FPDenormMode,
            QuantizationModes,
            FPOperationMode,
            OverflowModes,
            LinkageType,
            AccessQualifier,
            HostAccessQualifier,
            FunctionParameterAttribute,
            Decoration,
            BuiltIn,
            Scope,
            GroupOperation,
            KernelEnqueueFlags,
            Capability,
            RayQueryIntersection,
            RayQueryCommittedIntersectionType,
            RayQueryCandidateIntersectionType,
            PackedVectorFormat,
            CooperativeMatrixLayout,
            CooperativeMatrixUse,
            TensorClampMode,
            InitializationModeQualifier,
            LoadCacheControl,
            StoreCacheControl,
            NamedMaximumNumberOfRegisters,
            FPEncoding,
            CooperativeVectorMatrixLayout,
            ComponentType,
        ]
    )
}

/// Enum kinds a bare-word parameter of an enumerant may belong to (decorations take these).
static PARAM_ENUM_KINDS: &[OperandKind] = &[
    OperandKind::BuiltIn,
    OperandKind::FunctionParameterAttribute,
    OperandKind::FPRoundingMode,
    OperandKind::LinkageType,
    OperandKind::FPFastMathMode,
    OperandKind::AccessQualifier,
    OperandKind::Scope,
    OperandKind::StorageClass,
];

struct Statement {
    result: Option<(String, usize, usize)>,
    op: Token,
    operands: Vec<Token>,
}

/// Assembled binary plus, for each instruction, the source line it came from.
pub struct Assembled {
    pub words: Vec<u32>,
    pub lines: Vec<usize>,
    /// The result id of each statement (same order as `lines`).
    pub results: Vec<Option<u32>>,
    /// Names the text used for ids, by id (named ids only).
    pub id_names: HashMap<u32, String>,
}

pub fn assemble(text: &str) -> Result<Vec<u32>, AsmError> {
    assemble_with_lines(text).map(|a| a.words)
}

pub fn assemble_with_lines(text: &str) -> Result<Assembled, AsmError> {
    assemble_named(text, None)
}

/// Ids for names, shared by the texts of one run: a name gets the same id in each text. The
/// steps of an external tool print one module's values under the same names, so that the
/// value is the same id at every step (numbering names in order of appearance in each text
/// alone would give a name another id as soon as an earlier name is gone).
#[derive(Clone, Debug, Default)]
pub struct SharedNames {
    ids: HashMap<String, u32>,
    next: u32,
}

impl SharedNames {
    /// Names for `texts`, numbered above every numeric id any of them uses.
    pub fn above_ids_of<'t>(texts: impl IntoIterator<Item = &'t str>) -> Self {
        let mut max = 0u32;
        for text in texts {
            // Every `%` and digits: a numeric id, or a string or comment that looks like one,
            // which only numbers the names higher.
            let bytes = text.as_bytes();
            let mut i = 0;
            while let Some(at) = bytes[i..].iter().position(|&b| b == b'%') {
                let start = i + at + 1;
                let end = start
                    + bytes[start..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                if let Ok(v) = text[start..end].parse::<u32>() {
                    max = max.max(v);
                }
                i = end;
            }
        }
        SharedNames {
            ids: HashMap::new(),
            next: max.saturating_add(1),
        }
    }
}

/// Assembles `text`, its named ids numbered as `names` has them (new names get new ids there).
pub fn assemble_sharing(text: &str, names: &mut SharedNames) -> Result<Assembled, AsmError> {
    assemble_named(text, Some(names))
}

fn assemble_named(text: &str, shared: Option<&mut SharedNames>) -> Result<Assembled, AsmError> {
    let (tokens, header) = tokenize(text)?;

    // Numeric ids keep their number; names get fresh ids above the largest number.
    let mut max_numeric = 0u32;
    for t in &tokens {
        if let Tok::Id(name) = &t.tok {
            if name.bytes().all(|b| b.is_ascii_digit()) {
                let v: u32 = name
                    .parse()
                    .map_err(|_| err(t.line, t.col, format!("id %{name} is too large")))?;
                if v == 0 {
                    return Err(err(t.line, t.col, "id %0 is not a valid id"));
                }
                max_numeric = max_numeric.max(v);
            }
        }
    }
    // Named ids are numbered above the largest number, and the bound is one more: all of it
    // must fit in 32 bits.
    let named: std::collections::HashSet<&str> = tokens
        .iter()
        .filter_map(|t| match &t.tok {
            Tok::Id(n) if !n.bytes().all(|b| b.is_ascii_digit()) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    // Shared names start where the texts of the run leave room.
    let first_free = shared
        .as_ref()
        .map_or(max_numeric, |n| n.next.saturating_sub(1));
    if u64::from(first_free.max(max_numeric)) + named.len() as u64 >= u64::from(u32::MAX) {
        return Err(err(
            1,
            1,
            format!(
                "ids up to %{} and {} names leave no room for the id bound",
                first_free.max(max_numeric),
                named.len()
            ),
        ));
    }
    let mut ids = Ids {
        map: HashMap::new(),
        next: max_numeric + 1,
        names: HashMap::new(),
        first_named: max_numeric + 1,
    };
    if let Some(shared) = &shared {
        if shared.next <= max_numeric {
            return Err(err(
                1,
                1,
                format!("id %{max_numeric} is above the ids the shared names start at"),
            ));
        }
        ids.map.clone_from(&shared.ids);
        ids.next = shared.next;
    }

    // Split into statements.
    let mut stmts: Vec<Statement> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let starts_with_result = matches!(t.tok, Tok::Id(_))
            && matches!(tokens.get(i + 1).map(|t| &t.tok), Some(Tok::Eq));
        let starts_with_op = matches!(&t.tok, Tok::Word(w) if t.first_on_line && is_op_word(w));
        if starts_with_result {
            let Tok::Id(name) = &t.tok else {
                unreachable!()
            };
            let op = tokens
                .get(i + 2)
                .filter(|o| matches!(&o.tok, Tok::Word(w) if is_op_word(w)))
                .ok_or_else(|| {
                    err(
                        t.line,
                        t.col,
                        format!("expected an opcode after '%{name} ='"),
                    )
                })?;
            stmts.push(Statement {
                result: Some((name.clone(), t.line, t.col)),
                op: op.clone(),
                operands: Vec::new(),
            });
            i += 3;
        } else if starts_with_op {
            stmts.push(Statement {
                result: None,
                op: t.clone(),
                operands: Vec::new(),
            });
            i += 1;
        } else {
            match stmts.last_mut() {
                Some(s) if t.tok != Tok::Eq => s.operands.push(t.clone()),
                _ => {
                    return Err(err(
                        t.line,
                        t.col,
                        format!("expected an instruction, found {}", describe(&t.tok)),
                    ))
                }
            }
            i += 1;
        }
    }

    let mut cx = AsmCx {
        ids: &mut ids,
        scalars: HashMap::new(),
        value_types: HashMap::new(),
        ext_sets: HashMap::new(),
        void_type: None,
    };
    let mut words = vec![MAGIC, 0, 0, 0, 0];
    let mut lines = Vec::with_capacity(stmts.len());
    let mut results = Vec::with_capacity(stmts.len());
    for st in &stmts {
        lines.push(st.op.line);
        cx.statement(st, &mut words)?;
        results.push(
            st.result
                .as_ref()
                .and_then(|(name, _, _)| cx.ids.map.get(name).copied()),
        );
    }
    let (major, minor) = header.version.unwrap_or((1, 3));
    words[1] = (u32::from(major) << 16) | (u32::from(minor) << 8);
    words[2] = header.generator.unwrap_or(0);
    words[3] = ids.next.max(header.bound.unwrap_or(0));
    if let Some(shared) = shared {
        shared.next = ids.next;
        shared.ids = std::mem::take(&mut ids.map)
            .into_iter()
            .filter(|(name, _)| !name.bytes().all(|b| b.is_ascii_digit()))
            .collect();
    }
    let id_names = ids.names;
    Ok(Assembled {
        words,
        lines,
        results,
        id_names,
    })
}

/// A word that starts an instruction: a SPIR-V opcode name or a dialect op name.
fn is_op_word(w: &str) -> bool {
    w.starts_with("Op") || crate::ir::ops::dialect_by_name(w).is_some()
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Id(n) => format!("'%{n}'"),
        Tok::Eq => "'='".into(),
        Tok::Word(w) => format!("'{w}'"),
        Tok::Str(s) => format!("string \"{s}\""),
        Tok::Num(n) => format!("number {n}"),
        Tok::Raw(r) => format!("'!{r}'"),
    }
}

struct Ids {
    map: HashMap<String, u32>,
    next: u32,
    names: HashMap<u32, String>,
    /// Ids from here up are names' ids.
    first_named: u32,
}

impl Ids {
    fn get(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.map.get(name) {
            // A name another text of a run numbered.
            if id >= self.first_named && !self.names.contains_key(&id) {
                self.names.insert(id, name.to_string());
            }
            return id;
        }
        let id = if name.bytes().all(|b| b.is_ascii_digit()) {
            name.parse().unwrap_or(0)
        } else {
            let id = self.next;
            self.next += 1;
            self.names.insert(id, name.to_string());
            id
        };
        self.map.insert(name.to_string(), id);
        id
    }
}

struct AsmCx<'a> {
    ids: &'a mut Ids,
    scalars: HashMap<u32, ScalarKind>,
    value_types: HashMap<u32, u32>,
    ext_sets: HashMap<u32, String>,
    /// The first `OpTypeVoid`: the result type of dialect ops that yield no value.
    void_type: Option<u32>,
}

struct Cursor<'t> {
    toks: &'t [Token],
    pos: usize,
    /// Where to report "missing operand".
    line: usize,
    col: usize,
    /// Index of this instruction's first word in the output.
    start: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Option<&'t Token> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }
    fn done(&self) -> bool {
        self.pos >= self.toks.len()
    }
}

impl AsmCx<'_> {
    fn statement(&mut self, st: &Statement, out: &mut Vec<u32>) -> Result<(), AsmError> {
        let Tok::Word(opword) = &st.op.tok else {
            unreachable!()
        };
        if let Some(info) = crate::ir::ops::dialect_by_name(opword) {
            return self.dialect_statement(st, info, out);
        }
        let g = grammar::core_by_name(opword.strip_prefix("Op").unwrap_or(opword))
            .ok_or_else(|| err(st.op.line, st.op.col, format!("unknown opcode '{opword}'")))?;
        let start = out.len();
        out.push(0);
        let mut cur = Cursor {
            toks: &st.operands,
            pos: 0,
            line: st.op.line,
            col: st.op.col,
            start,
        };
        let mut result_id = None;
        let mut result_type = None;
        let has_result = g.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        match (&st.result, has_result) {
            (Some((name, line, col)), false) => {
                return Err(err(
                    *line,
                    *col,
                    format!("{opword} has no result, but '%{name} =' gives it one"),
                ))
            }
            (None, true) => {
                return Err(err(
                    st.op.line,
                    st.op.col,
                    format!("{opword} needs a result id ('%name = {opword} …')"),
                ))
            }
            _ => {}
        }
        let n = g.operands.len();
        for (idx, lo) in g.operands.iter().enumerate() {
            match lo.kind {
                OperandKind::IdResultType => {
                    let id = self.expect_id(&mut cur, opword)?;
                    result_type = Some(id);
                    out.push(id);
                }
                OperandKind::IdResult => {
                    let (name, _, _) = st.result.as_ref().expect("checked above");
                    let id = self.ids.get(name);
                    result_id = Some(id);
                    out.push(id);
                }
                _ => {
                    self.logical_operand(g.opcode, lo, idx + 1 == n, &mut cur, result_type, out)?
                }
            }
        }
        if let Some(t) = cur.peek() {
            return Err(err(
                t.line,
                t.col,
                format!(
                    "too many operands for {opword}: unexpected {}",
                    describe(&t.tok)
                ),
            ));
        }
        let count = out.len() - start;
        if count > 0xffff {
            return Err(err(
                st.op.line,
                st.op.col,
                "instruction longer than 65535 words",
            ));
        }
        out[start] = ((count as u32) << 16) | g.opcode as u32;

        // Track what later literals depend on.
        if let Some(r) = result_id {
            if let Some(t) = result_type {
                self.value_types.insert(r, t);
            }
            let lits: Vec<u32> = out[start + 2..].to_vec();
            match g.opcode {
                Op::TypeInt if lits.len() == 2 => {
                    self.scalars.insert(
                        r,
                        ScalarKind::Int {
                            width: lits[0],
                            signed: lits[1] == 1,
                        },
                    );
                }
                Op::TypeFloat if !lits.is_empty() => {
                    self.scalars.insert(r, ScalarKind::Float { width: lits[0] });
                }
                Op::ExtInstImport => {
                    if let Some(Tok::Str(s)) = st.operands.first().map(|t| &t.tok) {
                        self.ext_sets.insert(r, s.clone());
                    }
                }
                Op::TypeVoid => {
                    self.void_type.get_or_insert(r);
                }
                Op::ExtInst => {
                    let set = self.ext_sets.get(&out[start + 3]);
                    if set.map(String::as_str) == Some(crate::ir::ops::DIALECT_SET) {
                        if let Some(width) = crate::ir::ops::dialect(out[start + 4])
                            .and_then(|o| ScalarKind::bits_width(&o.name))
                        {
                            self.scalars.insert(r, ScalarKind::Bits { width });
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A dialect op in its short form, `%r = qptr.offset %T %a %b`, assembled as the
    /// `OpExtInst` of the dialect's import it stands for.
    fn dialect_statement(
        &mut self,
        st: &Statement,
        info: &crate::ir::ops::OpInfo,
        out: &mut Vec<u32>,
    ) -> Result<(), AsmError> {
        let (line, col) = (st.op.line, st.op.col);
        let Some((name, _, _)) = &st.result else {
            return Err(err(
                line,
                col,
                format!(
                    "{} needs a result id ('%name = {} …')",
                    info.name, info.name
                ),
            ));
        };
        let set = self
            .ext_sets
            .iter()
            .filter(|(_, s)| s.as_str() == crate::ir::ops::DIALECT_SET)
            .map(|(id, _)| *id)
            .min()
            .ok_or_else(|| {
                err(
                    line,
                    col,
                    format!(
                        "{} needs `OpExtInstImport \"{}\"` before it",
                        info.name,
                        crate::ir::ops::DIALECT_SET
                    ),
                )
            })?;
        let mut cur = Cursor {
            toks: &st.operands,
            pos: 0,
            line,
            col,
            start: out.len(),
        };
        let ty = if info.typed {
            self.expect_id(&mut cur, &info.name)?
        } else {
            self.void_type.ok_or_else(|| {
                err(
                    line,
                    col,
                    format!("{} needs an OpTypeVoid declared before it", info.name),
                )
            })?
        };
        let result = self.ids.get(name);
        let mut words = vec![0, ty, result, set, info.number];
        for operand in info.operand_names {
            match cur.next() {
                Some(Token {
                    tok: Tok::Id(id), ..
                }) => words.push(self.ids.get(id)),
                Some(t) => {
                    return Err(err(
                        t.line,
                        t.col,
                        format!(
                            "{}: expected an id for operand '{operand}', found {}",
                            info.name,
                            describe(&t.tok)
                        ),
                    ))
                }
                None => {
                    return Err(err(
                        line,
                        col,
                        format!("{}: missing operand '{operand}'", info.name),
                    ))
                }
            }
        }
        if let Some(t) = cur.peek() {
            return Err(err(
                t.line,
                t.col,
                format!(
                    "too many operands for {} (it takes {}): unexpected {}",
                    info.name,
                    info.operand_names.len(),
                    describe(&t.tok)
                ),
            ));
        }
        words[0] = ((words.len() as u32) << 16) | Op::ExtInst as u32;
        if info.typed {
            self.value_types.insert(result, ty);
        }
        if let Some(width) = ScalarKind::bits_width(&info.name) {
            self.scalars.insert(result, ScalarKind::Bits { width });
        }
        out.extend(words);
        Ok(())
    }

    fn expect_id(&mut self, cur: &mut Cursor, what: &str) -> Result<u32, AsmError> {
        match cur.next() {
            Some(Token {
                tok: Tok::Id(name), ..
            }) => Ok(self.ids.get(name)),
            Some(t) => Err(err(
                t.line,
                t.col,
                format!("expected an id for {what}, found {}", describe(&t.tok)),
            )),
            None => Err(err(
                cur.line,
                cur.col,
                format!("{what}: missing id operand"),
            )),
        }
    }

    fn logical_operand(
        &mut self,
        op: Op,
        lo: &LogicalOperand,
        last: bool,
        cur: &mut Cursor,
        result_type: Option<u32>,
        out: &mut Vec<u32>,
    ) -> Result<(), AsmError> {
        match lo.quantifier {
            OperandQuantifier::One => {
                if cur.done() {
                    return Err(err(
                        cur.line,
                        cur.col,
                        format!("Op{}: missing operand ({:?})", op_text(op), lo.kind),
                    ));
                }
                self.operand(op, lo.kind, last, cur, result_type, out)
            }
            OperandQuantifier::ZeroOrOne => {
                if !cur.done() {
                    self.operand(op, lo.kind, last, cur, result_type, out)?;
                }
                Ok(())
            }
            OperandQuantifier::ZeroOrMore => {
                while !cur.done() {
                    self.operand(op, lo.kind, last, cur, result_type, out)?;
                }
                Ok(())
            }
        }
    }

    fn operand(
        &mut self,
        op: Op,
        kind: OperandKind,
        last: bool,
        cur: &mut Cursor,
        result_type: Option<u32>,
        out: &mut Vec<u32>,
    ) -> Result<(), AsmError> {
        let t = cur.next().expect("caller checked");
        if let Tok::Raw(v) = t.tok {
            out.push(v);
            if last && has_params(kind) {
                while !cur.done() {
                    self.param(cur, out)?;
                }
            }
            return Ok(());
        }
        let bad = |what: &str| {
            err(
                t.line,
                t.col,
                format!("expected {what}, found {}", describe(&t.tok)),
            )
        };
        match kind {
            OperandKind::IdRef | OperandKind::IdMemorySemantics | OperandKind::IdScope => {
                match &t.tok {
                    Tok::Id(name) => out.push(self.ids.get(name)),
                    _ => return Err(bad("an id")),
                }
            }
            OperandKind::LiteralInteger | OperandKind::LiteralExtInstInteger
                if matches!(t.tok, Tok::Num(_)) =>
            {
                let Tok::Num(n) = &t.tok else { unreachable!() };
                let v = parse_int(n)
                    .filter(|v| *v >= i128::from(i32::MIN) && *v <= i128::from(u32::MAX));
                out.push(v.ok_or_else(|| bad("a 32-bit integer"))? as u32);
                if kind == OperandKind::LiteralExtInstInteger {
                    while !cur.done() {
                        self.param(cur, out)?;
                    }
                }
            }
            OperandKind::LiteralExtInstInteger => {
                let Tok::Word(w) = &t.tok else {
                    return Err(bad("an extended instruction name"));
                };
                // The set is the id operand just before this one.
                let set_id = out.last().copied().unwrap_or(0);
                let set = self.ext_sets.get(&set_id).cloned().unwrap_or_default();
                if set != crate::ir::ops::DIALECT_SET && grammar::ext_set(&set).is_none() {
                    return Err(err(
                        t.line,
                        t.col,
                        format!("unknown extended instruction set '{set}'"),
                    ));
                }
                let number = crate::ir::ops::ext_inst_number(&set, w).ok_or_else(|| {
                    err(
                        t.line,
                        t.col,
                        format!("'{w}' is not an instruction of {set}"),
                    )
                })?;
                out.push(number);
                // Extended instruction operands are ids or literals; take the rest as they come.
                while !cur.done() {
                    self.param(cur, out)?;
                }
            }
            OperandKind::LiteralInteger => return Err(bad("an integer")),
            OperandKind::LiteralString => match &t.tok {
                Tok::Str(s) => encode_string(s, out),
                _ => return Err(bad("a string")),
            },
            OperandKind::LiteralFloat => match &t.tok {
                Tok::Num(n) => {
                    out.push(parse_float_bits(n, 32).ok_or_else(|| bad("a float"))? as u32)
                }
                _ => return Err(bad("a float")),
            },
            OperandKind::LiteralContextDependentNumber => {
                let kind = result_type.and_then(|t| self.scalars.get(&t)).copied();
                self.typed_number(t, kind, out)?;
            }
            OperandKind::PairLiteralIntegerIdRef => {
                // OpSwitch: the literal has the selector's type.
                let selector = out.get(cur.start + 1).copied().unwrap_or(0);
                let kind = self
                    .value_types
                    .get(&selector)
                    .and_then(|ty| self.scalars.get(ty))
                    .copied();
                self.typed_number(t, kind, out)?;
                let id = self.expect_id(cur, "switch target")?;
                out.push(id);
            }
            OperandKind::PairIdRefLiteralInteger => {
                let Tok::Id(name) = &t.tok else {
                    return Err(bad("an id"));
                };
                out.push(self.ids.get(name));
                match cur.next() {
                    Some(Token {
                        tok: Tok::Num(n),
                        line,
                        col,
                        ..
                    }) => match parse_int(n).and_then(|v| u32::try_from(v).ok()) {
                        Some(v) => out.push(v),
                        None => {
                            return Err(err(
                                *line,
                                *col,
                                format!("'{n}' is not a 32-bit unsigned integer"),
                            ))
                        }
                    },
                    _ => return Err(err(t.line, t.col, "expected an id followed by an integer")),
                }
            }
            OperandKind::PairIdRefIdRef => {
                let Tok::Id(name) = &t.tok else {
                    return Err(bad("an id"));
                };
                out.push(self.ids.get(name));
                let id = self.expect_id(cur, "pair")?;
                out.push(id);
            }
            OperandKind::LiteralSpecConstantOpInteger => {
                let Tok::Word(w) = &t.tok else {
                    return Err(bad("an opcode name"));
                };
                let inner =
                    grammar::core_by_name(w.strip_prefix("Op").unwrap_or(w)).ok_or_else(|| {
                        err(
                            t.line,
                            t.col,
                            format!("unknown opcode '{w}' in OpSpecConstantOp"),
                        )
                    })?;
                out.push(inner.opcode as u32);
                let rest: Vec<&LogicalOperand> = inner
                    .operands
                    .iter()
                    .filter(|o| {
                        !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult)
                    })
                    .collect();
                let n = rest.len();
                for (i, lo) in rest.into_iter().enumerate() {
                    self.logical_operand(inner.opcode, lo, i + 1 == n, cur, result_type, out)?;
                }
            }
            _ => {
                let name = match &t.tok {
                    Tok::Word(w) | Tok::Num(w) => w,
                    _ => return Err(bad(&format!("a {kind:?} operand"))),
                };
                let v = enum_value(kind, name).ok_or_else(|| {
                    err(
                        t.line,
                        t.col,
                        format!("'{name}' is not a valid {kind:?} operand"),
                    )
                })?;
                out.push(v);
                if last && has_params(kind) {
                    // Parameters of the enumerant: everything left on the instruction.
                    while !cur.done() {
                        self.param(cur, out)?;
                    }
                } else if kind == OperandKind::MemoryAccess {
                    // Aligned takes a literal; the Make*/alias bits take an id each.
                    let params = (v & 0x2 != 0) as usize
                        + (v & 0x8 != 0) as usize
                        + (v & 0x10 != 0) as usize
                        + (v & 0x10000 != 0) as usize
                        + (v & 0x20000 != 0) as usize;
                    for _ in 0..params {
                        if cur.done() {
                            return Err(err(t.line, t.col, format!("'{name}' needs a parameter")));
                        }
                        self.param(cur, out)?;
                    }
                }
            }
        }
        let _ = op;
        Ok(())
    }

    /// An enumerant parameter or extended-instruction operand: it says what it is by its form.
    fn param(&mut self, cur: &mut Cursor, out: &mut Vec<u32>) -> Result<(), AsmError> {
        let t = cur.next().expect("caller checked");
        match &t.tok {
            Tok::Id(name) => out.push(self.ids.get(name)),
            Tok::Str(s) => encode_string(s, out),
            Tok::Raw(v) => out.push(*v),
            Tok::Num(n) => {
                if let Some(v) = parse_int(n)
                    .filter(|v| *v >= i128::from(i32::MIN) && *v <= i128::from(u32::MAX))
                {
                    out.push(v as u32);
                } else {
                    out.push(
                        parse_float_bits(n, 32)
                            .ok_or_else(|| err(t.line, t.col, format!("bad number {n}")))?
                            as u32,
                    );
                }
            }
            Tok::Word(w) => {
                let v = PARAM_ENUM_KINDS
                    .iter()
                    .find_map(|k| enum_value(*k, w))
                    .ok_or_else(|| err(t.line, t.col, format!("unknown enumerant '{w}'")))?;
                out.push(v);
            }
            Tok::Eq => return Err(err(t.line, t.col, "unexpected '='")),
        }
        Ok(())
    }

    fn typed_number(
        &self,
        t: &Token,
        kind: Option<ScalarKind>,
        out: &mut Vec<u32>,
    ) -> Result<(), AsmError> {
        let Tok::Num(n) = &t.tok else {
            return Err(err(
                t.line,
                t.col,
                format!("expected a number, found {}", describe(&t.tok)),
            ));
        };
        let bad = |what: String| err(t.line, t.col, what);
        let width = match kind {
            Some(
                ScalarKind::Int { width, .. }
                | ScalarKind::Float { width }
                | ScalarKind::Bits { width },
            ) => width,
            None => 32,
        };
        if !(1..=64).contains(&width) {
            return Err(bad(format!(
                "a literal of a {width}-bit type is not supported"
            )));
        }
        match kind {
            Some(ScalarKind::Int { width, signed }) => {
                let v = parse_int(n).ok_or_else(|| bad(format!("'{n}' is not an integer")))?;
                let (min, max) = if signed {
                    (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
                } else {
                    (-(1i128 << (width - 1)), (1i128 << width) - 1)
                };
                if v < min || v > max {
                    return Err(bad(format!("{n} does not fit in a {width}-bit integer")));
                }
                let bits = v as u64;
                if width > 32 {
                    out.push(bits as u32);
                    out.push((bits >> 32) as u32);
                } else if signed && width < 32 {
                    // Narrow signed literals are sign-extended to the word.
                    out.push(v as i32 as u32);
                } else {
                    out.push((bits & ((1u64 << width) - 1)) as u32);
                }
            }
            Some(ScalarKind::Bits { width }) => {
                let v = parse_int(n)
                    .filter(|v| *v >= 0 && (width >= 64 || *v < (1i128 << width)))
                    .ok_or_else(|| bad(format!("'{n}' is not a {width}-bit pattern")))?;
                out.push(v as u32);
                if width > 32 {
                    out.push((v as u64 >> 32) as u32);
                }
            }
            Some(ScalarKind::Float { width }) => {
                let bits = parse_float_bits(n, width)
                    .ok_or_else(|| bad(format!("'{n}' is not a {width}-bit float")))?;
                out.push(bits as u32);
                if width > 32 {
                    out.push((bits >> 32) as u32);
                }
            }
            None => {
                // Unknown type: a 32-bit integer or float.
                match parse_int(n) {
                    Some(v) => out.push(v as u32),
                    None => out.push(
                        parse_float_bits(n, 32).ok_or_else(|| bad(format!("bad number {n}")))?
                            as u32,
                    ),
                }
            }
        }
        Ok(())
    }
}

fn op_text(op: Op) -> String {
    super::disasm::op_name(op)
}

/// Operand kinds whose enumerants take parameters (which follow them in the text).
fn has_params(kind: OperandKind) -> bool {
    matches!(
        kind,
        OperandKind::Decoration
            | OperandKind::ExecutionMode
            | OperandKind::ImageOperands
            | OperandKind::LoopControl
            | OperandKind::MemoryAccess
            | OperandKind::TensorAddressingOperands
            | OperandKind::TensorOperands
    )
}
