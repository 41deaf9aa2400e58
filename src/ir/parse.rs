//! Reads the IR text form (see `print`) back into a module. The text form is SPIR-V assembly
//! laid out by structure, so the assembler does the reading and `spirv::read` builds the IR.

use std::fmt;

use std::collections::HashMap;

use super::module::{Attribute, Module};
use super::spirv::asm::{self, AsmError};
use super::spirv::read;
use super::usage::Usage;

#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// 1-based line, 0 when the error concerns the module as a whole.
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(
                f,
                "line {}, column {}: {}",
                self.line, self.col, self.message
            )
        }
    }
}

impl std::error::Error for ParseError {}

impl From<AsmError> for ParseError {
    fn from(e: AsmError) -> Self {
        ParseError {
            line: e.line,
            col: e.col,
            message: e.message,
        }
    }
}

pub fn parse(text: &str) -> Result<Module, ParseError> {
    let a = asm::assemble_with_lines(text)?;
    let mut m = read::read_words(&a.words).map_err(|e| {
        let line = e
            .index()
            .and_then(|index| a.lines.get(index - 1).copied())
            .unwrap_or(0);
        ParseError {
            line,
            col: 1,
            message: e.to_string(),
        }
    })?;
    read_attributes(text, &a, &mut m)?;
    Ok(m)
}

/// `; @usage {…}` and `; @typed-pointers "…"` lines: attributes of the id the instruction just
/// above them defines.
fn read_attributes(text: &str, a: &asm::Assembled, m: &mut Module) -> Result<(), ParseError> {
    let by_name: HashMap<&str, u32> = a.id_names.iter().map(|(id, n)| (n.as_str(), *id)).collect();
    let id =
        |name: &str| -> Option<u32> { by_name.get(name).copied().or_else(|| name.parse().ok()) };
    for (k, line) in text.lines().enumerate() {
        let line_no = k + 1;
        let t = line.trim_start();
        let (kind, rest) = if let Some(r) = t.strip_prefix("; @usage ") {
            ("usage", r)
        } else if let Some(r) = t.strip_prefix("; @typed-pointers ") {
            ("typed-pointers", r)
        } else {
            continue;
        };
        let err = |message: String| ParseError {
            line: line_no,
            col: 1,
            message,
        };
        // The statement on the nearest line above (statements are in line order).
        let above = a.lines.partition_point(|l| *l < line_no);
        let owner = above
            .checked_sub(1)
            .and_then(|k| a.results[k])
            .ok_or_else(|| err(format!("@{kind} follows no instruction with a result")))?;
        let attribute = if kind == "usage" {
            Attribute::QptrUsage(Usage::parse(rest.trim(), &id).map_err(err)?)
        } else {
            let s = rest.trim();
            let inner = s
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .ok_or_else(|| err("@typed-pointers takes a quoted reason".into()))?;
            Attribute::TypedPointers(inner.replace("\\\"", "\"").replace("\\\\", "\\"))
        };
        m.attributes.insert(owner, attribute);
    }
    Ok(())
}
