//! Reads the IR text form (see `print`) back into a module. The text form is SPIR-V assembly
//! laid out by structure, so the assembler does the reading and `spirv::read` builds the IR.

use std::fmt;

use std::collections::HashMap;

use super::loc::{DebugLine, Location, Scope, SourceLine};
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
    read_locations(text, &a, &mut m)?;
    Ok(m)
}

/// `; @loc …` lines (see `print::LocationText`): the location of the instructions after them,
/// through the end of their block or the next `; @loc`.
fn read_locations(text: &str, a: &asm::Assembled, m: &mut Module) -> Result<(), ParseError> {
    let by_name: HashMap<&str, u32> = a.id_names.iter().map(|(id, n)| (n.as_str(), *id)).collect();
    let id = |name: &str| -> Option<u32> {
        let name = name.strip_prefix('%')?;
        by_name.get(name).copied().or_else(|| name.parse().ok())
    };
    let defaults = LocationDefaults::of(m);
    // Statement index (in `a.lines`) → the location from it on.
    let mut at: HashMap<usize, Location> = HashMap::new();
    for (k, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("; @loc") else {
            continue;
        };
        let line_no = k + 1;
        let err = |message: String| ParseError {
            line: line_no,
            col: 1,
            message,
        };
        let loc = parse_location(rest, &id, &defaults).map_err(err)?;
        at.insert(a.lines.partition_point(|l| *l < line_no), loc);
    }
    if at.is_empty() {
        return Ok(());
    }
    if m.functions().iter().any(|f| !f.locs.is_empty()) {
        return Err(ParseError {
            line: 0,
            col: 0,
            message: "`; @loc` lines and location markers (OpLine, DebugLine, DebugScope) in one text: say locations one way".into(),
        });
    }
    // Statements in binary order: the sections, then each function as `print` lays it out.
    let mut k = m.preamble.len()
        + m.entry_points.len()
        + m.execution_modes.len()
        + m.debug.len()
        + m.annotations().len()
        + m.globals().len();
    for fi in 0..m.functions().len() {
        let f = m.function_at_mut(fi);
        k += f.leading_debug.len() + 1 + f.params.len() + f.prologue_debug.len();
        for b in 0..f.blocks().len() {
            k += f.block(b).lines.len() + 1;
            let mut current = Location::default();
            let insts = f.block(b).insts.clone();
            for i in insts {
                if let Some(l) = at.get(&k) {
                    current = *l;
                }
                f.set_location(i, current);
                k += 1;
            }
            // A location said before the merge instruction is the terminator's.
            let terminator = f.block(b).terminator;
            let merge = usize::from(f.block(b).merge.is_some());
            for s in k..=k + merge {
                if let Some(l) = at.get(&s) {
                    current = *l;
                }
            }
            f.set_location(terminator, current);
            k += merge + 1;
        }
        k += f.epilogue_debug.len() + 1;
    }
    let _ = m.settle_markers();
    Ok(())
}

/// What a `; @loc` part that does not say its set and type has: the module's first debug-set
/// import and its `OpTypeVoid`; and the constants its numbers name.
struct LocationDefaults {
    set: Option<u32>,
    void: Option<u32>,
    constants: HashMap<u32, u32>,
}

impl LocationDefaults {
    fn of(m: &Module) -> Self {
        let printed = super::print::LocationText::of(m);
        LocationDefaults {
            set: printed.set,
            void: printed.void,
            constants: super::print::int_constants(m),
        }
    }
}

fn parse_location(
    text: &str,
    id: &dyn Fn(&str) -> Option<u32>,
    d: &LocationDefaults,
) -> Result<Location, String> {
    let mut loc = Location::default();
    let mut words = text.split_whitespace().peekable();
    let need_id = |w: Option<&str>, what: &str| -> Result<u32, String> {
        let w = w.ok_or_else(|| format!("@loc: {what} missing"))?;
        id(w).ok_or_else(|| format!("@loc: {what} `{w}` is no id of the text"))
    };
    let number = |w: Option<&str>, what: &str| -> Result<u32, String> {
        let w = w.ok_or_else(|| format!("@loc: {what} missing"))?;
        w.parse()
            .map_err(|_| format!("@loc: {what} `{w}` is not a number"))
    };
    let constant = |w: Option<&str>, what: &str| -> Result<u32, String> {
        let w = w.ok_or_else(|| format!("@loc: {what} missing"))?;
        match w.parse::<u32>() {
            Ok(v) => d
                .constants
                .get(&v)
                .copied()
                .ok_or_else(|| format!("@loc: the module has no 32-bit integer constant {v}")),
            Err(_) => id(w).ok_or_else(|| format!("@loc: {what} `{w}` is no id of the text")),
        }
    };
    let defaults = || -> Result<(u32, u32), String> {
        match (d.set, d.void) {
            (Some(s), Some(v)) => Ok((s, v)),
            _ => Err("@loc: the module imports no debug-info set or has no OpTypeVoid".into()),
        }
    };
    while let Some(w) = words.next() {
        match w {
            "none" => {}
            "line" => {
                loc.line = Some(SourceLine {
                    file: need_id(words.next(), "file")?,
                    line: number(words.next(), "line")?,
                    column: number(words.next(), "column")?,
                })
            }
            "scope" => {
                let scope = need_id(words.next(), "scope")?;
                let inlined_at = match words.peek() {
                    Some(&"at") => {
                        words.next();
                        Some(need_id(words.next(), "inlined-at")?)
                    }
                    _ => None,
                };
                let (set, ty) = origin(&mut words, &need_id, defaults)?;
                loc.scope = Some(Scope {
                    set,
                    ty,
                    scope,
                    inlined_at,
                });
            }
            "debug" => {
                let source = need_id(words.next(), "source")?;
                let lines = [
                    constant(words.next(), "first line")?,
                    constant(words.next(), "last line")?,
                ];
                let columns = [
                    constant(words.next(), "first column")?,
                    constant(words.next(), "last column")?,
                ];
                let (set, ty) = origin(&mut words, &need_id, defaults)?;
                loc.debug_line = Some(DebugLine {
                    set,
                    ty,
                    source,
                    lines,
                    columns,
                });
            }
            other => {
                return Err(format!(
                    "@loc: unknown part `{other}` (scope, debug, line or none)"
                ))
            }
        }
    }
    Ok(loc)
}

/// Reads an id token (`what` names it in the error).
type IdReader<'a> = dyn Fn(Option<&str>, &str) -> Result<u32, String> + 'a;

/// The `set %set type %ty` after a scope or debug line, or the defaults.
fn origin<'a>(
    words: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
    need_id: &IdReader,
    defaults: impl Fn() -> Result<(u32, u32), String>,
) -> Result<(u32, u32), String> {
    if words.peek() != Some(&"set") {
        return defaults();
    }
    words.next();
    let set = need_id(words.next(), "set")?;
    if words.next() != Some("type") {
        return Err("@loc: `set %set` goes with `type %ty`".into());
    }
    Ok((set, need_id(words.next(), "type")?))
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
