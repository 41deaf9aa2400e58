//! A printed module that remembers what each line holds: the function and block it sits in,
//! the value it defines, the values it uses and the source line in effect. The printers
//! (`print`, `spirv::disasm`) produce one, so whoever shows the text can go from a line to the
//! IR and back without reading the text again.

use std::ops::Range;

use super::debug::{self, DebugSets, Flavor};
use super::inst::Id;
use super::module::Module;

/// What one line holds. Ids are 0 where absent (SPIR-V ids start at 1), to keep rows small.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    func: Id,
    block: Id,
    def: Id,
    /// The line's other ids, in the order their tokens appear, start at `ids[start]`: first
    /// the `uses` operands, then ids a comment mentions (a label's predecessors).
    start: u32,
    uses: u16,
    mentions: u16,
    /// The `OpLine` or `DebugLine` in effect: file (`OpString` id) and line.
    file: Id,
    line: u32,
    /// The `DebugScope` in effect: its scope and where it was inlined (0: none).
    scope: Id,
    inlined_at: Id,
    /// The instruction of the line's function it prints (its arena index + 1; 0: none).
    inst: u32,
}

/// What the printer knows about a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowInfo<'a> {
    pub func: Option<Id>,
    pub block: Option<Id>,
    /// The value (or type, constant, label, function) the line defines.
    pub def: Option<Id>,
    /// The ids the line's instruction uses, in operand order (the result type first).
    pub uses: &'a [Id],
    /// `uses` and then the ids only a comment on the line mentions.
    pub mentions: &'a [Id],
    /// The source line the instruction came from (`OpLine`, or `DebugLine` of
    /// `NonSemantic.Shader.DebugInfo.100`): the file's `OpString` id and the line.
    pub source: Option<(Id, u32)>,
    /// The debug scope the instruction is in (`DebugScope`): the lexical scope, and the
    /// `DebugInlinedAt` of inlined code.
    pub scope: Option<(Id, Option<Id>)>,
    /// The instruction of the function the line prints (its body's, not a marker or a label).
    pub inst: Option<crate::ir::func::InstId>,
}

impl RowInfo<'_> {
    /// The ids in the order their `%tokens` appear on the line.
    pub fn text_ids(&self) -> impl Iterator<Item = Id> + '_ {
        self.def.into_iter().chain(self.mentions.iter().copied())
    }
}

/// One function's lines and printed name.
#[derive(Clone, Debug)]
pub struct FunctionLines {
    pub id: Id,
    /// The name as printed, without `%`.
    pub name: String,
    /// From its `; function` comment through `OpFunctionEnd`.
    pub rows: Range<usize>,
}

#[derive(Clone, Debug, Default)]
pub struct Listing {
    pub lines: Vec<String>,
    rows: Vec<Row>,
    ids: Vec<Id>,
    pub functions: Vec<FunctionLines>,
    /// Whether a printer recorded what the lines hold (not so for a shader's source).
    recorded: bool,
}

fn opt(id: Id) -> Option<Id> {
    (id != 0).then_some(id)
}

/// The columns a tab reaches to in text shown as it is (most shader code is written with 4).
pub const TAB_WIDTH: usize = 4;

/// `line` with each tab as the spaces up to the next tab stop: a terminal cell per character,
/// as highlighting and scrolling count, and tab-indented code keeps its indentation.
pub fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 3 * TAB_WIDTH);
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let to = (column / TAB_WIDTH + 1) * TAB_WIDTH;
            out.extend(std::iter::repeat_n(' ', to - column));
            column = to;
        } else {
            out.push(c);
            column += 1;
        }
    }
    out
}

impl Listing {
    /// A text nothing is known about (a shader's source), its tabs expanded.
    pub fn plain(text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(expand_tabs).collect();
        Listing {
            rows: vec![Row::default(); lines.len()],
            lines,
            ids: Vec::new(),
            functions: Vec::new(),
            recorded: false,
        }
    }

    /// A text made from a module (a step decompiled) whose lines say only the source line
    /// each came from (`sources[row]`: the file's `OpString` id and the line).
    pub fn with_sources(text: &str, sources: &[Option<(Id, u32)>]) -> Self {
        let mut l = Listing::plain(text);
        for (row, source) in l.rows.iter_mut().zip(sources) {
            if let Some((file, line)) = *source {
                row.file = file;
                row.line = line;
            }
        }
        l
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether a printer recorded what each line holds; a plain text knows nothing.
    pub fn is_recorded(&self) -> bool {
        self.recorded
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The whole text, a newline after every line.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.lines.iter().map(|l| l.len() + 1).sum());
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }

    pub fn info(&self, row: usize) -> RowInfo<'_> {
        let Some(r) = self.rows.get(row) else {
            return RowInfo::default();
        };
        let start = r.start as usize;
        let mentions = &self.ids[start..start + r.mentions as usize];
        RowInfo {
            func: opt(r.func),
            block: opt(r.block),
            def: opt(r.def),
            uses: &mentions[..r.uses as usize],
            mentions,
            source: opt(r.file).map(|f| (f, r.line)),
            scope: opt(r.scope).map(|sc| (sc, opt(r.inlined_at))),
            inst: r.inst.checked_sub(1).map(crate::ir::func::InstId),
        }
    }

    /// The line defining `id`.
    pub fn def_row(&self, id: Id) -> Option<usize> {
        self.rows.iter().position(|r| r.def == id)
    }

    /// The lines whose instruction uses `id`, in order.
    pub fn use_rows(&self, id: Id) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|&r| self.info(r).uses.contains(&id))
            .collect()
    }

    pub fn function(&self, id: Id) -> Option<&FunctionLines> {
        self.functions.iter().find(|f| f.id == id)
    }

    pub fn function_named(&self, name: &str) -> Option<&FunctionLines> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The id a `%token` of line `row` names: by its position among the line's tokens where
    /// the printer recorded every id of the line, else the value whose definition prints as it.
    pub fn id_of_token(
        &self,
        row: usize,
        token: &str,
        position: usize,
        tokens: usize,
    ) -> Option<Id> {
        let info = self.info(row);
        if info.def.is_some() as usize + info.mentions.len() == tokens {
            return info.text_ids().nth(position);
        }
        (0..self.rows.len()).find_map(|r| {
            let def = opt(self.rows[r].def)?;
            let line = self.lines[r].trim_start();
            let rest = line.strip_prefix(token)?;
            rest.trim_start().starts_with('=').then_some(def)
        })
    }
}

/// Builds a listing line by line, with the function, block and line info in effect.
#[derive(Default)]
pub(crate) struct ListingBuilder {
    listing: Listing,
    func: Id,
    block: Id,
    source: (Id, u32),
    /// The scope in effect (lexical scope, inlined-at; 0 for none).
    scope: (Id, Id),
    function_start: usize,
    /// The instruction the next line prints (see `set_inst`).
    inst: u32,
    /// The module's debug-info imports, which say which `OpExtInst`s are `DebugLine`s.
    debug: DebugSets,
}

impl ListingBuilder {
    /// A builder for a listing of `m`, of about `n` lines.
    pub fn for_module(m: &Module, n: usize) -> Self {
        let mut b = ListingBuilder {
            debug: DebugSets::of(m),
            ..ListingBuilder::default()
        };
        b.listing.lines.reserve(n);
        b.listing.rows.reserve(n);
        b.listing.ids.reserve(n * 3);
        b
    }

    /// A line outside any instruction (a comment, a blank, a header).
    pub fn note(&mut self, text: String) {
        self.push(text, None, &[], &[]);
    }

    /// A line: what it defines, the ids its instruction uses and the ids a comment mentions.
    pub fn push(&mut self, text: String, def: Option<Id>, uses: &[Id], comment: &[Id]) {
        let start = self.listing.ids.len() as u32;
        // Lines are short; a line with more ids than fit keeps none rather than wrong ones.
        let (uses, comment) = if uses.len() + comment.len() > u16::MAX as usize {
            (&[][..], &[][..])
        } else {
            (uses, comment)
        };
        self.listing.ids.extend_from_slice(uses);
        self.listing.ids.extend_from_slice(comment);
        self.listing.rows.push(Row {
            func: self.func,
            block: self.block,
            def: def.unwrap_or(0),
            start,
            uses: uses.len() as u16,
            mentions: (uses.len() + comment.len()) as u16,
            file: self.source.0,
            line: self.source.1,
            scope: self.scope.0,
            inlined_at: self.scope.1,
            inst: std::mem::take(&mut self.inst),
        });
        self.listing.lines.push(text);
    }

    /// The next line prints instruction `i` of the function being printed.
    pub fn set_inst(&mut self, i: crate::ir::func::InstId) {
        self.inst = i.0 + 1;
    }

    /// Lines from here on belong to function `func`; the line before the next one starts it.
    pub fn enter_function(&mut self, func: Id) {
        self.func = func;
        self.block = 0;
        self.source = (0, 0);
        self.scope = (0, 0);
        self.function_start = self.listing.lines.len();
    }

    /// Closes the function entered last; `name` is its printed name without `%`.
    pub fn leave_function(&mut self, name: String) {
        self.listing.functions.push(FunctionLines {
            id: self.func,
            name,
            rows: self.function_start..self.listing.lines.len(),
        });
        self.func = 0;
        self.block = 0;
        self.source = (0, 0);
        self.scope = (0, 0);
    }

    /// A block starts with no line and no scope: markers end with the block that says them.
    pub fn enter_block(&mut self, label: Id) {
        self.block = label;
        self.source = (0, 0);
        self.scope = (0, 0);
    }

    /// The source line of the lines that follow (until the next block or `set_source`).
    pub fn set_source(&mut self, source: Option<(Id, u32)>) {
        self.source = source.unwrap_or((0, 0));
    }

    /// The debug scope of the lines that follow (until the next block or `set_scope`).
    pub fn set_scope(&mut self, scope: Option<(Id, Option<Id>)>) {
        self.scope = scope.map_or((0, 0), |(sc, at)| (sc, at.unwrap_or(0)));
    }

    /// Follows line info: an `OpLine` or a `DebugLine` (of `m`) sets the source line of what
    /// follows, `OpNoLine` or `DebugNoLine` ends it, as does the end of the block.
    pub fn line_info(&mut self, m: &Module, inst: &super::Inst) {
        match inst.op {
            spirv::Op::Line => {
                self.source = (inst.arg(0).unwrap_or(0), inst.lit_u32(0).unwrap_or(0));
            }
            spirv::Op::NoLine => self.source = (0, 0),
            spirv::Op::ExtInst if !self.debug.is_empty() => {
                match self.debug.record(inst) {
                    Some((Flavor::Shader, debug::LINE)) => {
                        // A line whose operands say nothing readable says no line, as does
                        // line 0 (glslang's at the head of a function).
                        self.source = debug::debug_line(m, &self.debug, inst)
                            .filter(|&(_, line)| line != 0)
                            .unwrap_or((0, 0));
                    }
                    Some((Flavor::Shader, debug::NO_LINE)) => self.source = (0, 0),
                    // A scope holds to the next scope or the block's end.
                    Some((_, debug::SCOPE)) => {
                        self.scope = (inst.arg(1).unwrap_or(0), inst.arg(2).unwrap_or(0));
                    }
                    Some((_, debug::NO_SCOPE)) => self.scope = (0, 0),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    pub fn finish(mut self) -> Listing {
        self.listing.recorded = true;
        self.listing
    }
}
