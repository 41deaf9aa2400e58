//! Reads the IR text form (see `print`) back into a module. The text form is SPIR-V assembly
//! laid out by structure, so the assembler does the reading and `spirv::read` builds the IR.

use std::fmt;

use super::module::Module;
use super::spirv::asm::{self, AsmError};
use super::spirv::read::{self, ReadError};

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
    read::read_words(&a.words).map_err(|e| {
        let index = match &e {
            ReadError::Truncated { index, .. }
            | ReadError::ZeroWordCount { index, .. }
            | ReadError::UnknownOpcode { index, .. }
            | ReadError::Operands { index, .. }
            | ReadError::IdOutOfBound { index, .. }
            | ReadError::Layout { index, .. } => *index,
            _ => 0,
        };
        let line = if index > 0 {
            a.lines.get(index - 1).copied().unwrap_or(0)
        } else {
            0
        };
        ParseError {
            line,
            col: 1,
            message: e.to_string(),
        }
    })
}
