//! Application state: plain data, no behaviour beyond small queries. Views draw from `&State`;
//! only `update` changes it.

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use super::action::ViewMode;
use crate::ir::listing::Listing;
use crate::ir::Id;
use crate::pipeline::diff::DiffLine;
use crate::pipeline::input::InputKind;
use crate::pipeline::{Diagnostic, Run, Severity};

/// One shader: opened by name, or found in a watched directory. Docs are never removed or
/// reordered (indices key caches and background jobs); a file that vanishes is marked absent
/// and keeps its runs, so nothing is lost if it comes back.
pub struct Doc {
    /// The path as given, or as found under a watched directory.
    pub path: PathBuf,
    /// The absolute path, which the watcher reports.
    pub abs: PathBuf,
    /// Index of the watched directory it was found under.
    pub root: Option<usize>,
    /// The last run that succeeded; kept on screen when a reload fails. While `streaming`,
    /// the steps of the run under way, as they arrive.
    pub run: Option<Arc<Run>>,
    /// The good run before `run`: what `:diff-prev` compares with.
    pub prev_run: Option<Arc<Run>>,
    /// The generation `prev_run` had when it was `run`.
    pub prev_generation: u64,
    /// `run` holds the first steps of the run this request (token) is under way for: an input
    /// with no complete run yet shows its steps as they arrive.
    pub streaming: Option<u64>,
    /// Why the last load or run failed, if it did.
    pub error: Option<String>,
    /// The source text that did not compile and the line (1-based) the error is at.
    pub error_at: Option<(Arc<str>, usize)>,
    /// Bumped on every successful reload; part of every cache key.
    pub generation: u64,
    pub reloads: u64,
    /// The file as shaderstep itself wrote it (a reduction's output): the watcher's report of
    /// that write is not a change to load again.
    pub own_write: Option<super::action::FileStamp>,
    /// Token of the newest load asked for, and of the newest whose result arrived.
    pub requested: u64,
    pub answered: u64,
    /// Whether the file is on disk (as far as the watcher has told).
    pub present: bool,
    pub kind: Option<InputKind>,
    /// The source text of inputs compiled from source.
    pub source: Option<Arc<str>>,
    /// The compared pipeline's run on this input (`:compare`), and its requests.
    pub compare_run: Option<Arc<Run>>,
    pub compare_generation: u64,
    pub compare_requested: u64,
    pub compare_answered: u64,
    /// The input this one is the reduction of (`:reduce`): what `:diff-input` compares with.
    pub reduced_from: Option<PathBuf>,
    /// What the browser lists of its newest run (kept when the steps are not).
    pub summary: Option<Summary>,
    /// Whether the newest run's output differs from the one before it.
    pub changed: bool,
    /// The token of the newest job asked to keep the steps (0: none since they were dropped).
    pub steps_token: u64,
}

/// What the shader browser keeps of a run whose steps it does not keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Ok, CompileError or ValidationError (never Running).
    pub status: DocStatus,
    pub stage: Option<String>,
    /// Instructions of the input and of the output.
    pub before: Option<usize>,
    pub after: Option<usize>,
    /// The first error: why it did not load, the pass that failed, or the first diagnostic.
    pub first_error: Option<String>,
    /// How long its run took.
    pub took: std::time::Duration,
    /// A hash of the output, to tell whether a run changed it.
    pub output: u64,
    /// The files its source includes (`#include`, transitively, as found beside it): a save
    /// of one runs it again.
    pub includes: Vec<PathBuf>,
}

impl Summary {
    /// With the files its source includes.
    pub fn including(mut self, includes: Vec<PathBuf>) -> Self {
        self.includes = includes;
        self
    }

    pub fn of_run(run: &crate::pipeline::Run, took: std::time::Duration) -> Self {
        let failed = run.failure().map(|(_, why)| why);
        let diagnosed = || {
            run.steps.iter().find(|st| st.has_errors()).and_then(|st| {
                st.diagnostics
                    .iter()
                    .find(|d| d.severity == crate::pipeline::Severity::Error)
                    .map(|d| format!("after {}: {}", st.pass, d.message))
            })
        };
        let first_error = failed.or_else(diagnosed);
        let errors = run.failed.is_some() || run.steps.iter().any(|st| st.has_errors());
        // The words `lift` wrote (the final module's, written now, without a lift step).
        let output = run.output_words().map_or(0, |words| {
            use std::hash::{Hash, Hasher};
            let mut h = crate::ir::fxhash::FxHasher::default();
            words.hash(&mut h);
            h.finish()
        });
        Summary {
            status: if errors {
                DocStatus::ValidationError
            } else {
                DocStatus::Ok
            },
            // The input's, else the final module's (a run that keeps no snapshots keeps only
            // that one).
            stage: run
                .steps
                .first()
                .and_then(|st| stage_of(&st.module))
                .or_else(|| run.final_module().and_then(|m| stage_of(m))),
            before: run.steps.first().map(|st| st.inst_count),
            after: run.steps.last().map(|st| st.inst_count),
            first_error,
            took,
            output,
            includes: Vec::new(),
        }
    }

    pub fn of_error(e: &crate::pipeline::input::InputError, took: std::time::Duration) -> Self {
        let first = e.message.lines().next().unwrap_or("");
        Summary {
            status: DocStatus::CompileError,
            stage: None,
            before: None,
            after: None,
            first_error: Some(match e.line {
                Some(l) => format!("line {l}: {first}"),
                None => first.to_string(),
            }),
            took,
            output: 0,
            includes: Vec::new(),
        }
    }
}

/// What the shader browser says about a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocStatus {
    Running,
    Ok,
    /// The input does not load: it does not compile, or is not valid SPIR-V.
    CompileError,
    /// It loads, but a pass or the verifier found errors.
    ValidationError,
}

impl DocStatus {
    pub fn label(self) -> &'static str {
        match self {
            DocStatus::Running => "running",
            DocStatus::Ok => "ok",
            DocStatus::CompileError => "error",
            DocStatus::ValidationError => "invalid",
        }
    }

    /// One character for a narrow column.
    pub fn mark(self) -> &'static str {
        match self {
            DocStatus::Running => "…",
            DocStatus::Ok => "✓",
            DocStatus::CompileError => "✗",
            DocStatus::ValidationError => "!",
        }
    }
}

impl Doc {
    pub fn new(path: PathBuf, root: Option<usize>) -> Self {
        Doc {
            abs: super::watch::absolute(&path),
            path,
            root,
            run: None,
            prev_run: None,
            prev_generation: 0,
            streaming: None,
            error: None,
            error_at: None,
            generation: 0,
            reloads: 0,
            own_write: None,
            requested: 0,
            answered: 0,
            present: true,
            kind: None,
            source: None,
            compare_run: None,
            compare_generation: 0,
            compare_requested: 0,
            compare_answered: 0,
            reduced_from: None,
            summary: None,
            changed: false,
            steps_token: 0,
        }
    }

    pub fn running(&self) -> bool {
        self.requested > self.answered || self.compare_requested > self.compare_answered
    }

    pub fn status(&self) -> DocStatus {
        if self.running() {
            DocStatus::Running
        } else {
            // Every answer brings its summary, which says what the run said.
            self.summary.as_ref().map_or(DocStatus::Ok, |s| s.status)
        }
    }

    /// The shader stage, from the entry points of the input (`vert`, `frag`, `comp`, …; `+`
    /// joins several).
    pub fn stage(&self) -> Option<String> {
        match (&self.run, &self.summary) {
            (Some(run), _) => stage_of(&run.steps.iter().find(|st| !st.is_source())?.module),
            (None, summary) => summary
                .as_ref()
                .and_then(|s| s.stage.clone())
                .or_else(|| stage_of_name(&self.path).map(str::to_string)),
        }
    }

    /// Instructions in the pipeline's output.
    pub fn output_count(&self) -> Option<usize> {
        match &self.run {
            Some(run) => run.steps.last().map(|s| s.inst_count),
            None => self.summary.as_ref()?.after,
        }
    }

    /// The name shown for it: the path under its watched directory, or the file name.
    pub fn display_name(&self, roots: &[PathBuf]) -> String {
        if let Some(rel) = self
            .root
            .and_then(|r| roots.get(r))
            .and_then(|r| self.abs.strip_prefix(r).ok())
        {
            return rel.display().to_string();
        }
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// The stages of a module's entry points (`vert`, `frag`, …; `+` joins several).
fn stage_of(module: &crate::ir::Module) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for ep in module.entry_points() {
        if let Some(rspirv::dr::Operand::ExecutionModel(m)) = ep.lits().first() {
            let n = stage_name(*m);
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    (!names.is_empty()).then(|| names.join("+"))
}

/// The stage a file's name says (`blur.frag`, `blur.comp.spv`), before it is read.
fn stage_of_name(path: &std::path::Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    name.split('.').skip(1).find_map(|part| {
        Some(match part.to_ascii_lowercase().as_str() {
            "vert" => "vert",
            "frag" => "frag",
            "comp" => "comp",
            "geom" => "geom",
            "tesc" => "tesc",
            "tese" => "tese",
            "mesh" => "mesh",
            "task" => "task",
            "rgen" | "rchit" | "rmiss" | "rahit" | "rint" | "rcall" => "rt",
            _ => return None,
        })
    })
}

fn stage_name(m: spirv::ExecutionModel) -> &'static str {
    use spirv::ExecutionModel as E;
    match m {
        E::Vertex => "vert",
        E::Fragment => "frag",
        E::GLCompute => "comp",
        E::Geometry => "geom",
        E::TessellationControl => "tesc",
        E::TessellationEvaluation => "tese",
        E::Kernel => "kernel",
        E::TaskEXT | E::TaskNV => "task",
        E::MeshEXT | E::MeshNV => "mesh",
        _ => "rt",
    }
}

/// What the old side of a diff is, beside a step of the same run or of the compared run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Against {
    /// The base step, or a compared run's step (`:compare`).
    #[default]
    Steps,
    /// The same step of the input's previous run (`:diff-prev`).
    PreviousRun,
    /// The same step of another open input's run (`:diff-input`): a reduction's original.
    Input(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextKind {
    Ir,
    Spirv,
    /// The step decompiled to a shading language (`:view glsl`).
    Lang(crate::pipeline::decompile::Lang),
    /// What the Vulkan driver compiled the step to (`:driver asm`), or its counts.
    Driver(crate::pipeline::driver_code::Show),
}

impl TextKind {
    /// As titles and the status bar say it.
    pub fn name(self) -> &'static str {
        use crate::pipeline::decompile::Lang;
        use crate::pipeline::driver_code::Show;
        match self {
            TextKind::Ir => "IR",
            TextKind::Spirv => "SPIR-V",
            TextKind::Lang(Lang::Glsl) => "GLSL",
            TextKind::Lang(Lang::Hlsl) => "HLSL",
            TextKind::Lang(Lang::Msl) => "MSL",
            TextKind::Lang(Lang::Wgsl) => "WGSL",
            TextKind::Driver(Show::Nir) => "driver NIR",
            TextKind::Driver(Show::Llvm) => "driver LLVM IR",
            TextKind::Driver(Show::Asm) => "driver x86",
            TextKind::Driver(Show::Stats) => "driver counts",
        }
    }

    /// The view that shows this text whole (not a diff).
    pub fn view(self) -> ViewMode {
        match self {
            TextKind::Spirv => ViewMode::Spirv,
            _ => ViewMode::Ir,
        }
    }
}

/// The grammar a text is highlighted with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    Ir,
    Spirv,
    Wgsl,
    Glsl,
    Hlsl,
    /// A driver's NIR, LLVM IR and assembly.
    Driver,
}

impl Syntax {
    pub fn of(kind: TextKind) -> Self {
        use crate::pipeline::decompile::Lang;
        match kind {
            TextKind::Ir => Syntax::Ir,
            TextKind::Spirv => Syntax::Spirv,
            TextKind::Lang(Lang::Glsl) => Syntax::Glsl,
            // C-like: what the HLSL grammar colours reads Metal's C++ too.
            TextKind::Lang(Lang::Hlsl | Lang::Msl) => Syntax::Hlsl,
            TextKind::Lang(Lang::Wgsl) => Syntax::Wgsl,
            TextKind::Driver(_) => Syntax::Driver,
        }
    }

    /// The grammar of a source file, by extension.
    pub fn of_source(path: &std::path::Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "wgsl" => Syntax::Wgsl,
            "hlsl" | "slang" => Syntax::Hlsl,
            "spvasm" | "spv" => Syntax::Spirv,
            _ => Syntax::Glsl,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The shader browser (shown for watched directories and several inputs).
    Shaders,
    Passes,
    Code,
    /// The diagnostics pane under the code (shown when the step has diagnostics).
    Diagnostics,
    /// The link view: the stage interface table (`--pipeline`).
    Link,
    /// The value list under the code: a value's uses (`u`) or its history (`y`).
    Values,
    /// The source pane: moving in it moves the code pane to the line's code.
    Source,
    /// The control-flow graph, in place of the code (`C`, `:cfg`).
    Cfg,
    /// Several steps side by side, in place of the code (`:columns N`).
    Columns,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a `:` command.
    Command(String),
    /// Typing a `/` search.
    Search(String),
    /// Typing a `/` filter of the shader browser (applied as it is typed).
    Filter(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Popup {
    pub title: String,
    pub lines: Vec<String>,
    /// The first line shown (a box longer than the screen scrolls).
    pub scroll: usize,
}

/// The prompt's history: `:` commands and `/` searches, and which one `Up`/`Down` show.
#[derive(Clone, Debug, Default)]
pub struct PromptHistory {
    pub commands: Vec<String>,
    pub searches: Vec<String>,
    /// The entry shown (counted from the newest), and what was typed before browsing.
    pub at: Option<(usize, String)>,
}

/// How many commands and searches the history keeps.
pub const HISTORY_KEPT: usize = 500;

impl PromptHistory {
    /// Adds `line` (a command when `command`), unless it repeats the newest entry.
    pub fn push(&mut self, command: bool, line: &str) {
        let list = if command {
            &mut self.commands
        } else {
            &mut self.searches
        };
        if line.trim().is_empty() || list.last().map(String::as_str) == Some(line) {
            return;
        }
        list.push(line.to_string());
        if list.len() > HISTORY_KEPT {
            list.remove(0);
        }
    }
}

/// How many messages `:messages` keeps.
pub const MESSAGES_KEPT: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
}

/// A pane's place on the screen, in terminal cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Area {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
}

impl Area {
    pub fn contains(&self, col: u16, row: u16) -> bool {
        col >= self.x && col < self.x + self.width && row >= self.y && row < self.y + self.height
    }

    /// Rows of text inside its border.
    pub fn inner_rows(&self) -> usize {
        self.height.saturating_sub(2) as usize
    }
}

/// Where the panes are on the screen, as `views::layout` planned them for the state as it
/// is (the event loop plans it after every event and before every draw), so that `update`
/// pages by the rows the user sees and finds the pane under the mouse without calling views.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub shaders: Option<Area>,
    pub passes: Area,
    pub compare: Option<Area>,
    pub code: Area,
    pub values: Option<Area>,
    pub diagnostics: Option<Area>,
    pub link: Option<Area>,
    /// The source pane, beside or under the code (`S`, `:source`).
    pub source: Option<Area>,
    /// The cost pane under the code (`:cost`).
    pub cost: Option<Area>,
    pub status: Area,
    /// Rows of help text the help overlay shows, and the help's length in lines.
    pub help_rows: usize,
    pub help_lines: usize,
}

impl Layout {
    /// Rows of text the code pane shows.
    pub fn code_rows(&self) -> usize {
        self.code.inner_rows()
    }

    /// Rows the pass list shows.
    pub fn pass_rows(&self) -> usize {
        self.passes.inner_rows()
    }
}

/// What the value list shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueListKind {
    /// Every line of the selected step whose instruction uses the value.
    Uses,
    /// The steps that created, changed, moved, replaced or deleted the value.
    History,
    /// The source lines a step no longer has code for (`:lost`).
    Lost,
    /// The source files the step's module names (`:sources`); an entry's value is the file's
    /// `OpString` id.
    Sources,
    /// The values live after an instruction (`:live`), each at its definition.
    Live,
    /// The source variables of a function and their values at the point the values column
    /// shows (`:locals`); kept up to date while stepping.
    Locals,
    /// The invocations whose values differ between two steps (`:first-difference`), each
    /// with its first difference; `Enter` shows its values.
    Differing,
}

/// One entry of the value list: where `Enter` goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueEntry {
    pub step: usize,
    /// The line of the step's text (a use), or `None`: the line defining `value`.
    pub line: Option<usize>,
    pub value: Option<Id>,
    pub text: String,
    /// For `:lost`: the source file and line that went, to find its code in the diff.
    pub source: Option<(String, u32)>,
}

/// The value list pane (`u`, `y`): a value's uses in the selected step, or its history
/// across the steps of the run, derived once when asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueList {
    pub kind: ValueListKind,
    /// The value as the user picked it (`%name`).
    pub name: String,
    pub entries: Vec<ValueEntry>,
    pub cursor: usize,
    /// The document and run generation it was made from: a reload makes it stale.
    pub doc: usize,
    pub generation: u64,
    /// The text its lines are of (uses are lines of the IR text or of the disassembly).
    pub text: TextKind,
}

impl ValueList {
    /// A list of `kind` about the value `name`, of the selected document's current run and text.
    pub fn new(s: &State, kind: ValueListKind, name: &str, entries: Vec<ValueEntry>) -> Self {
        ValueList {
            kind,
            name: name.to_string(),
            entries,
            cursor: 0,
            doc: s.doc,
            generation: s.current().map_or(0, |d| d.generation),
            text: s.text,
        }
    }

    /// Whether the history touches step `step` (the pass list marks those steps).
    pub fn touches(&self, step: usize) -> bool {
        self.kind == ValueListKind::History && self.entries.iter().any(|e| e.step == step)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    pub text: String,
    /// Match only whole ids (`%x` but not `%x_1`), as "uses" does.
    pub whole_word: bool,
    /// The value whose uses this walks ("uses"): a row matches when its instruction uses the
    /// value, as the printer recorded, whatever the text says.
    pub uses_of: Option<Id>,
}

/// What identifies the content of the code pane; a change means it must be rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanelKey {
    pub doc: usize,
    pub generation: u64,
    pub view: ViewMode,
    pub text: TextKind,
    pub step: usize,
    pub base: usize,
    pub func: Option<String>,
    pub ignore_renumbering: bool,
    /// The old side is the same step of the previous run, or of another input (with that
    /// input's generation).
    pub against: (Against, u64),
    /// The old side is this step of the compared run.
    pub compared: Option<(u64, usize)>,
    /// Answers that have arrived for the text shown (`Cache::driver_answers` for a driver
    /// text, `Cache::decompile_answers` for a language): a text that waited for one is made
    /// again.
    pub answers: u64,
}

pub enum Rows {
    /// Lines of one step's text; `range` is the part shown (a function filter narrows it).
    Text {
        id: u64,
        lines: Arc<Listing>,
        range: Range<usize>,
    },
    /// A diff between two step texts.
    Diff {
        old_id: u64,
        old: Arc<Listing>,
        new_id: u64,
        new: Arc<Listing>,
        rows: Vec<DiffLine>,
        hunks: Vec<usize>,
        added: usize,
        removed: usize,
    },
}

/// The code pane's rows, derived from the run by `update`.
pub struct Panel {
    pub key: Option<PanelKey>,
    pub rows: Rows,
}

impl Default for Panel {
    fn default() -> Self {
        Panel {
            key: None,
            rows: Rows::Text {
                id: 0,
                lines: Arc::new(Listing::default()),
                range: 0..0,
            },
        }
    }
}

impl Panel {
    pub fn len(&self) -> usize {
        match &self.rows {
            Rows::Text { range, .. } => range.len(),
            Rows::Diff { rows, .. } => rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of row `i` (for a diff: the new side, or the old side of a removed line).
    pub fn row_text(&self, i: usize) -> &str {
        self.row_line(i)
            .and_then(|(l, k)| l.lines.get(k))
            .map_or("", String::as_str)
    }

    /// The listing and line that row `i` shows: the new side of a diff row where it has one.
    pub fn row_line(&self, i: usize) -> Option<(&Listing, usize)> {
        match &self.rows {
            Rows::Text { lines, range, .. } => {
                let k = range.start + i;
                (k < range.end).then_some((&**lines, k))
            }
            Rows::Diff { old, new, rows, .. } => match rows.get(i)? {
                DiffLine { new: Some(n), .. } => Some((&**new, *n)),
                DiffLine { old: Some(o), .. } => Some((&**old, *o)),
                _ => None,
            },
        }
    }

    /// The first row whose line defines `id`.
    pub fn row_defining(&self, id: Id) -> Option<usize> {
        (0..self.len()).find(|&r| {
            self.row_line(r)
                .is_some_and(|(l, k)| l.info(k).def == Some(id))
        })
    }

    /// 1-based line number in the step text that row `i` shows.
    pub fn line_number(&self, i: usize) -> usize {
        match &self.rows {
            Rows::Text { range, .. } => range.start + i + 1,
            Rows::Diff { rows, .. } => rows
                .get(i)
                .and_then(|r| r.new.or(r.old))
                .map_or(0, |n| n + 1),
        }
    }
}

/// A step's text: (doc, generation, step, kind).
pub type TextKey = (usize, u64, usize, TextKind);

/// How a highlighted piece of text looks: the grammar theme's colour and font style (the
/// views make a terminal style of it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextStyle {
    pub fg: Option<(u8, u8, u8)>,
    pub bold: bool,
    pub italic: bool,
}

/// Syntax colouring of one line: style per byte range.
pub type LineStyles = Arc<Vec<(TextStyle, Range<usize>)>>;

/// A line on screen to highlight: its key in `Cache::styles`, its text and grammar.
#[derive(Clone, Debug)]
pub struct LineToHighlight {
    pub key: (u64, usize),
    pub text: String,
    pub syntax: Syntax,
}

pub struct State {
    pub docs: Vec<Doc>,
    pub doc: usize,
    /// Watched directories (absolute).
    pub roots: Vec<PathBuf>,
    pub pipeline: Vec<&'static str>,
    pub step: usize,
    /// What diffs compare: the base step, the previous run or another input.
    pub diff: DiffPane,
    /// The second pipeline run beside this one (`:compare`) and its pane.
    pub compare: ComparePane,
    pub view: ViewMode,
    pub text: TextKind,
    pub func: Option<String>,
    pub search: Option<Search>,
    /// The shader browser.
    pub browser: BrowserPane,
    pub focus: Focus,
    /// The `:` and `/` prompt, and what was typed in it before.
    pub prompt: PromptPane,
    pub help: HelpPane,
    /// An information box over the screen (the op table entry shown by `o`).
    pub popup: Option<Popup>,
    /// The value list under the code (`u`: uses, `y`: history), while it is open.
    pub values: Option<ValueList>,
    /// Where the panes are (see `Layout`).
    pub layout: Layout,
    /// The split between the left column and the code.
    pub split: SplitPane,
    /// The long jobs under way that quitting would stop (`bisect run`), kept by the event loop.
    pub jobs: Vec<&'static str>,
    /// What `--steps-cmd` said when it ran again, for the reload it causes to say too.
    pub reload_cause: Option<String>,
    /// Quit was asked for while a job ran: asking again quits.
    pub quit_asked: bool,
    /// The status bar's message, and every message said.
    pub status: StatusPane,
    /// Where the code pane is: its cursor, scroll and selected id.
    pub code: CodePane,
    pub passes: PassPane,
    pub diags: DiagPane,
    /// What the bisects found, and a reduction under way.
    pub bisect: BisectPane,
    pub size: (u16, u16),
    pub quit: bool,
    pub color: bool,
    pub panel: Panel,
    /// What `derive` keeps to avoid doing work twice (see `Cache`).
    pub cache: Cache,
    /// The docs are the stages of one pipeline, run and linked together (`--pipeline`).
    pub linked: bool,
    /// The docs run together (linked stages, or modules linked with `--preset link`).
    pub batched: bool,
    /// The link view: the stage interface table (`L`, linked stages only).
    pub link: LinkPane,
    /// The source pane: the source file of the instruction under the code cursor.
    pub source: SourcePane,
    /// The cost pane and the pressure gutter.
    pub cost: CostPane,
    /// The driver's code size per step, for the cost pane's chart.
    pub driver_costs: DriverCosts,
    /// The values column: the selected step run on the interpreter.
    pub exec: ExecPane,
    /// The control-flow graph of the function at the cursor (`C`, `:cfg`).
    pub cfg: CfgPane,
    /// The function at the cursor in several consecutive steps (`:columns N`).
    pub columns: ColumnsPane,
}

/// Several steps side by side: the function that was at the cursor when it opened, in `n`
/// consecutive steps from the selected one, rows aligned by value identity.
#[derive(Clone, Debug, Default)]
pub struct ColumnsPane {
    pub shown: bool,
    pub n: usize,
    pub function: Option<Id>,
    /// The first row shown.
    pub scroll: usize,
    /// The aligned rows (derived: `derive::refresh_columns`).
    pub drawn: Option<Arc<ColumnsDrawn>>,
}

/// What the columns show, and what for.
#[derive(Clone, Debug)]
pub struct ColumnsDrawn {
    /// (doc, generation, first step, n, function, text kind).
    pub key: (usize, u64, usize, usize, Id, TextKind),
    /// Each column's step and pass.
    pub steps: Vec<(usize, &'static str)>,
    pub versions: Vec<Vec<crate::pipeline::columns::Line>>,
    pub rows: Vec<crate::pipeline::columns::Row>,
    /// Per row: the same in every column (drawn dim).
    pub same: Vec<bool>,
    /// The function's name, as printed.
    pub name: String,
}

/// The control-flow graph pane: the function that was at the cursor when it opened, drawn at
/// the selected step in place of the code, or diffed against the base step.
#[derive(Clone, Debug, Default)]
pub struct CfgPane {
    pub shown: bool,
    pub function: Option<Id>,
    /// Diffed against the base step (`d` in the pane).
    pub diff: bool,
    /// Boxes of two rows (`c` in the pane).
    pub compact: bool,
    /// Loop and selection headers whose construct is folded into them (`Space`).
    pub folded: Vec<Id>,
    /// The selected box (index into the drawing's boxes), the first row shown, and the
    /// columns scrolled off to the left.
    pub cursor: usize,
    pub scroll: usize,
    pub hscroll: usize,
    /// The drawing (derived: `derive::refresh_cfg`).
    pub drawn: Option<Arc<CfgDrawn>>,
}

/// What the graph pane shows, and what it was drawn for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgDrawn {
    pub key: CfgKey,
    /// The pane's title: the function, the step (and the base) and what the graph holds.
    pub title: String,
    pub drawing: crate::pipeline::cfg::Drawing,
    /// The label of each box drawn, and a header's construct when it is one (to fold).
    pub labels: Vec<(Id, bool)>,
    /// Why there is nothing to draw (the function is not in this step).
    pub error: Option<String>,
}

/// What a drawing depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgKey {
    pub doc: usize,
    pub generation: u64,
    pub step: usize,
    /// The base step, in a diff.
    pub base: Option<usize>,
    pub function: Id,
    pub compact: bool,
    pub folded: Vec<Id>,
    pub width: usize,
}

/// A step of an input's run: (doc, generation, step).
pub type StepKey = (usize, u64, usize);

/// The values column of the code pane (`:exec`, `X`): the selected step run on the
/// interpreter (each step once, the last few kept) and one invocation's values.
#[derive(Default)]
pub struct ExecPane {
    pub shown: bool,
    /// Values in hex (`:exec hex`).
    pub hex: bool,
    /// Whose values show; `None`: the run's first invocation (`StepRun::default_choice`).
    pub chosen: Option<crate::pipeline::step_values::Chosen>,
    /// Steps run, the most recently used last, at most `EXEC_KEPT`.
    pub runs: Vec<(
        StepKey,
        Result<Arc<crate::pipeline::step_values::StepRun>, String>,
    )>,
    /// The step the interpreter is running now.
    pub running: Option<StepKey>,
    /// That run was asked to stop: it answers with `exec::CANCELLED`, soon.
    pub cancelling: bool,
    /// Derived before each draw: the shown step's values for the chosen invocation, or why
    /// there are none, with what it was derived from (step, choice, hex).
    pub derived_for: Option<(
        StepKey,
        Option<crate::pipeline::step_values::Chosen>,
        bool,
        Option<usize>,
    )>,
    /// Stepping through the chosen invocation's execution (`:trace`, `.` `,`): the values
    /// are as they stood after its result number `trace` (0-based).
    pub trace: Option<usize>,
    /// The step stepping is in: another step's execution starts at its first result.
    pub trace_step: Option<StepKey>,
    /// The function `:locals` lists the variables of.
    pub locals_function: Option<crate::ir::Id>,
    pub shown_values: Option<Result<Arc<crate::pipeline::step_values::Shown>, String>>,
    /// The last first difference found (`:first-difference`), at its step: the values column
    /// shows the other step's value beside this one's.
    pub difference: Option<(StepKey, crate::pipeline::step_values::FirstDifference)>,
    /// Every invocation's first difference that `:first-difference` found at the step of
    /// `difference`, the first first (the `Differing` list's entries, in order).
    pub differing: Vec<crate::pipeline::step_values::FirstDifference>,
    /// The chosen invocation's values at this step of the previous run, while the code pane
    /// diffs against it (`p`), and what they were derived for.
    pub previous_values: Option<Arc<crate::pipeline::step_values::Shown>>,
    pub previous_for: Option<(StepKey, Option<crate::pipeline::step_values::Chosen>, bool)>,
}

/// Steps whose runs the values column keeps (each holds a trace of up to
/// `step_values::TRACE_LIMIT` events).
pub const EXEC_KEPT: usize = 4;

impl ExecPane {
    /// The run of step `key`, if it is kept.
    pub fn run_of(
        &self,
        key: StepKey,
    ) -> Option<&Result<Arc<crate::pipeline::step_values::StepRun>, String>> {
        self.runs.iter().find(|(k, _)| *k == key).map(|(_, r)| r)
    }
}

/// What diffs compare the selected step with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffPane {
    /// Steps, or the same step of the previous run or another input.
    pub against: Against,
    /// The step diffs compare against; `None` means the step before the selected one.
    pub base: Option<usize>,
    /// Diffs hide lines that only renumber ids (`r`, `:ignore-renumbering`).
    pub ignore_renumbering: bool,
}

/// The x86 instructions the driver compiled each step to (`:cost`'s chart, the pass list in
/// a driver text), where it has answered: derived for the selected shader while either shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverCosts {
    /// (doc, generation, `Cache::driver_answers`) they were derived for.
    pub key: Option<(usize, u64, u64)>,
    /// Per step of the run: `None` for the source text, a step not answered yet, or one the
    /// driver could not compile or show.
    pub x86: Vec<Option<usize>>,
}

/// The cost pane under the code (`:cost`) and the pressure gutter of the code pane (`P`,
/// `:pressure`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CostPane {
    pub shown: bool,
    pub pressure: bool,
}

/// How many shaders keep their steps when more are listed: the ones selected last. The others
/// keep their summaries, and run again when selected.
pub const STEPS_KEPT: usize = 8;

/// The shader browser.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrowserPane {
    /// What shader names must contain to be listed (`/` there; empty: all). A leading `!`
    /// lists only the failing ones.
    pub filter: String,
    /// The shaders selected last, the newest first: those that keep their steps.
    pub kept: std::collections::VecDeque<usize>,
    pub sort: SortBy,
    /// Folders folded, by key (`FolderKey`).
    pub folded: std::collections::BTreeSet<FolderKey>,
    /// The folder the cursor is on (`None`: the selected shader's row).
    pub on_folder: Option<FolderKey>,
    /// The first row shown: kept so that the cursor's row stays in view, moving only as
    /// far as it must (derived before each draw).
    pub scroll: usize,
    /// The row the cursor is on, and the counts of every listed shader (derived).
    pub cursor: usize,
    pub totals: FolderCounts,
    /// How many shaders are on disk, listed by the filter or not (derived).
    pub present: usize,
    /// The rows listed, derived from the docs, the filter, the sort and the folds.
    pub rows: Arc<Vec<BrowserRow>>,
    /// Every listed shader in the tree's order (also those folded away).
    pub order: Arc<Vec<usize>>,
    /// The listed shaders ordered with their folders, which `rows` are walked from.
    pub sorted: Arc<super::tree::Sorted>,
    /// What `rows` were derived from.
    pub rows_key: u64,
    /// What the shape of `rows` was derived from, and each folder row's folder in `sorted`:
    /// while only statuses change, the rows' counts are brought up to date in place.
    pub rows_shape: u64,
    pub folder_rows: Arc<Vec<(u32, u32)>>,
}

/// A folder of the browser: its watched directory and its path under it.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FolderKey {
    pub root: Option<usize>,
    pub path: String,
}

/// What the shaders under a folder (or the whole list) are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FolderCounts {
    pub shaders: usize,
    pub failing: usize,
    /// Shaders whose output the newest run changed.
    pub changed: usize,
    /// Shaders not run yet.
    pub running: usize,
}

impl FolderCounts {
    pub fn add(&mut self, other: FolderCounts) {
        self.shaders += other.shaders;
        self.failing += other.failing;
        self.changed += other.changed;
        self.running += other.running;
    }
}

/// A row of the browser's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowserRow {
    Folder {
        key: FolderKey,
        /// As the row says it (the last part of its path, or the watched directory).
        name: String,
        depth: usize,
        folded: bool,
        counts: FolderCounts,
    },
    Shader {
        doc: usize,
        depth: usize,
    },
}

/// What the browser lists shaders by, within each folder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortBy {
    #[default]
    Name,
    /// Failing first.
    Status,
    /// Most instructions first.
    Size,
    /// Slowest first.
    Time,
}

impl SortBy {
    pub fn name(self) -> &'static str {
        match self {
            SortBy::Name => "name",
            SortBy::Status => "status",
            SortBy::Size => "size",
            SortBy::Time => "time",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "name" => SortBy::Name,
            "status" => SortBy::Status,
            "size" => SortBy::Size,
            "time" => SortBy::Time,
            _ => return None,
        })
    }
}

/// The prompt: what is typed, and the history of what was.
#[derive(Clone, Debug)]
pub struct PromptPane {
    pub mode: Mode,
    /// Commands and searches submitted, oldest first (kept across runs by the event loop).
    pub history: PromptHistory,
}

/// What the status bar says, and what it said (`:messages`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusPane {
    pub message: Option<Message>,
    /// Every message said, oldest first, whole (`:messages`), the last `MESSAGES_KEPT`.
    pub messages: Vec<Message>,
}

/// What the bisects found and a reduction under way (`:bisect`, `:reduce`).
#[derive(Default)]
pub struct BisectPane {
    /// Diagnostics found after the run (`:bisect`), by (doc, generation, step).
    pub found: HashMap<(usize, u64, usize), Vec<Diagnostic>>,
    /// What the last bisect found, for `:reduce`: (doc, generation, pass number, the
    /// property: `invalid`, `differs` or `crash`).
    pub last_found: Option<(usize, u64, usize, &'static str)>,
    /// The last bisect of a document that found nothing: (doc, which bisect), so `:reduce`
    /// can say why it has nothing to reduce for.
    pub last_clean: Option<(usize, &'static str)>,
    /// A reduction under way: its progress line.
    pub reducing: Option<String>,
}

/// The split between the left column (shaders, passes) and the code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitPane {
    /// The left column's width the user chose (`+`, `-`, `:split`, a drag of its edge);
    /// `None`: as the screen's width makes it.
    pub width: Option<u16>,
    /// The mouse went down on the left column's edge: dragging moves it.
    pub dragging: bool,
}

/// The source pane (`S`, `:source`): the source file of the instruction under the code
/// cursor at the selected step, its line marked. All but `shown`, `paths` and `bands` is
/// derived before each draw.
#[derive(Clone, Debug, Default)]
pub struct SourcePane {
    pub shown: bool,
    /// `[source] paths`: where the pane looks for the files debug info names.
    pub paths: Vec<PathBuf>,
    /// Colour bands per source line in the code and source panes (`:bands`).
    pub bands: bool,
    /// `file:line  text`: the source line of the instruction under the cursor, from the
    /// module's line info (the code pane's title says it).
    pub cursor_line: Option<String>,
    /// The file shown; kept while the cursor is on an instruction with no location.
    pub file: Option<SourceFile>,
    /// The marked line (1-based), when the cursor's instruction came from a line of `file`.
    pub line: Option<usize>,
    /// The `OpString` id of `file`, when the module names it.
    pub file_id: Option<Id>,
    /// The lines of `file` that have code in the code pane (for the colour bands).
    pub code_lines: Arc<std::collections::BTreeSet<u32>>,
    /// A line chosen in the pane itself (file, line), and where the code cursor was then
    /// (doc, step, row): shown until the code cursor moves on its own.
    pub pinned: Option<(Id, u32, (usize, usize, usize))>,
    /// The first line shown (0-based).
    pub scroll: usize,
    /// `file:line`, or why there is no line.
    pub title: String,
    /// Said instead of the text when there is none to show.
    pub note: Option<String>,
    /// Rows of the code pane whose instruction came from the marked line, in order.
    pub code_rows: Vec<usize>,
    /// Which function of the cursor's inline stack the pane shows: 0 the instruction's own
    /// line, 1 the line its caller called it from, … (`c`).
    pub frame: usize,
    /// Where the cursor was when `frame` was chosen (doc, step, row): it goes back to 0 when
    /// the cursor moves.
    pub frame_at: Option<(usize, usize, usize)>,
}

impl SourcePane {
    /// Whether code pane row `r` came from the marked source line.
    pub fn marks_code_row(&self, r: usize) -> bool {
        self.shown && self.code_rows.binary_search(&r).is_ok()
    }
}

/// A source file as the source pane shows it.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The document and run generation it was found for.
    pub doc: usize,
    pub generation: u64,
    /// The name the module gives it (`OpString`), or the input's path.
    pub name: String,
    /// Its text, when the module embeds it or it is the file opened.
    pub lines: Option<Arc<Vec<String>>>,
    /// Its text's id for highlighting (`Cache::styles`).
    pub text_id: u64,
    pub syntax: Syntax,
}

/// The pass list: which steps it lists, and from where.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassPane {
    /// Steps that changed nothing are not listed.
    pub hide_unchanged: bool,
    /// The first step listed.
    pub scroll: usize,
}

/// The help screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HelpPane {
    pub shown: bool,
    /// First line of the help text shown.
    pub scroll: usize,
}

/// The diagnostics pane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiagPane {
    /// The selected row.
    pub cursor: usize,
}

/// The compared pipeline (`:compare`) and its pane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComparePane {
    /// How the compared pipeline is called, while one is.
    pub spec: Option<String>,
    /// Diffs compare against this step of the compared pipeline's run (`usize::MAX` until its
    /// first run arrives: its output then).
    pub base: Option<usize>,
    /// Instructions per function of our selected step and of the compared step, by name
    /// (`None`: no such function there), derived before each draw.
    pub functions: Vec<(String, Option<usize>, Option<usize>)>,
}

/// The link view.
#[derive(Clone, Debug, Default)]
pub struct LinkPane {
    /// Shown, and its selected row.
    pub shown: bool,
    pub cursor: usize,
    /// Its rows (derived before each draw).
    pub table: Vec<crate::pipeline::link::stages::InterfaceRow>,
}

/// Where the code pane is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodePane {
    /// Row of the cursor, and the first row shown.
    pub cursor: usize,
    pub scroll: usize,
    /// Index of the selected `%id` on the cursor row.
    pub token: usize,
    /// Columns of text scrolled off to the left.
    pub hscroll: usize,
}

/// Work `derive` keeps so it is not done twice: step texts as listings, highlighted lines, and
/// what the derived tables were last computed for. Nothing here is shown as it is.
#[derive(Default)]
pub struct Cache {
    /// Step texts as listings, by (doc, generation, step, kind), each with a unique id.
    pub texts: HashMap<TextKey, (u64, Arc<Listing>)>,
    pub next_text_id: u64,
    /// Highlighting of lines, by (text id, line index). Filled for visible rows only.
    pub styles: HashMap<(u64, usize), LineStyles>,
    /// Visible rows not highlighted yet that `derive` left to the highlighter thread (its
    /// grammar not compiled yet, or the frame's budget spent): the event loop hands them over,
    /// and the answers fill `styles` (`Answered::Highlighted`). Drawn plain meanwhile.
    pub highlight_wanted: Vec<LineToHighlight>,
    /// The grammar of each text id.
    pub syntaxes: HashMap<u64, Syntax>,
    /// The stage generations and steps the link table was computed for.
    pub link_key: Option<Vec<(u64, Option<usize>)>>,
    /// The (doc, generation, step, compared generation, compared step) the compare table was
    /// computed for.
    pub compare_functions_key: Option<(usize, u64, usize, u64, usize)>,
    /// The source files of one step's module, by (doc, generation, step).
    pub source_files: Option<((usize, u64, usize), Arc<SourceFiles>)>,
    /// Source files read from disk (`None`: not there), until they change.
    pub disk_texts: HashMap<PathBuf, Option<String>>,
    /// Text ids of source files, by (doc, generation, name).
    pub source_ids: HashMap<(usize, u64, String), u64>,
    /// What the source pane's marked code rows were computed for: the panel, the file and line.
    pub source_rows_key: Option<(PanelKey, Id, u32)>,
    /// The rows the search stops at, for one panel and search (`n`/`N` and "match 3 of 17").
    pub search_rows: Option<(PanelKey, Search, Arc<Vec<usize>>)>,
    /// What the colour bands' lines with code were computed for: the panel and the file.
    pub band_lines_key: Option<(PanelKey, Id)>,
    /// The code pane's rows by the source line their instruction came from, for one panel:
    /// what the source pane marks and the bands colour, found without a walk of every row.
    pub rows_by_source: Option<(PanelKey, Arc<RowsBySource>)>,
    /// Steps decompiled (`:view glsl`), by the hash of their SPIR-V and the language: a step
    /// that changed nothing is not decompiled again. Asked for by `update`
    /// (`update::decompile`); the text, or why there is none.
    pub decompiled: HashMap<(u64, crate::pipeline::decompile::Lang), Result<String, String>>,
    /// Steps asked of the decompiler job and not answered yet.
    pub decompile_pending: std::collections::HashSet<(u64, crate::pipeline::decompile::Lang)>,
    /// How many answers the decompiler job has given.
    pub decompile_answers: u64,
    /// The driver's code of steps (`:driver`), by the hash of their SPIR-V: a step that
    /// changed nothing is not compiled again. Asked for by `update` (`update::driver`).
    pub driver_code: HashMap<u64, Result<Arc<crate::pipeline::driver_code::Code>, String>>,
    /// Hashes asked of the driver job and not answered yet.
    pub driver_pending: std::collections::HashSet<u64>,
    /// How many answers the driver job has given.
    pub driver_answers: u64,
    /// The hash of steps' SPIR-V, by (doc, generation, step): what the driver's code is kept by.
    pub step_hashes: HashMap<(usize, u64, usize), u64>,
}

/// Code pane rows by the (file, line) their instruction came from.
pub type RowsBySource = HashMap<(Id, u32), Vec<usize>>;

/// The source files a module's line info refers to, by `OpString` id, with their text and
/// where it came from.
pub type SourceFiles = super::sources::Sources;

impl State {
    pub fn new(
        docs: Vec<Doc>,
        roots: Vec<PathBuf>,
        pipeline: Vec<&'static str>,
        size: (u16, u16),
        color: bool,
    ) -> Self {
        State {
            docs,
            doc: 0,
            roots,
            pipeline,
            step: 0,
            diff: DiffPane::default(),
            compare: ComparePane::default(),
            view: ViewMode::Ir,
            text: TextKind::Ir,
            func: None,
            search: None,
            browser: BrowserPane::default(),
            focus: Focus::Passes,
            prompt: PromptPane {
                mode: Mode::Normal,
                history: PromptHistory::default(),
            },
            help: HelpPane::default(),
            popup: None,
            values: None,
            layout: Layout::default(),
            split: SplitPane::default(),
            jobs: Vec::new(),
            reload_cause: None,
            quit_asked: false,
            status: StatusPane::default(),
            code: CodePane::default(),
            passes: PassPane::default(),
            diags: DiagPane::default(),
            bisect: BisectPane::default(),
            size,
            quit: false,
            color,
            panel: Panel::default(),
            // Text id 0 stands for "no text".
            cache: Cache {
                next_text_id: 1,
                ..Cache::default()
            },
            linked: false,
            batched: false,
            link: LinkPane::default(),
            source: SourcePane::default(),
            cost: CostPane::default(),
            driver_costs: DriverCosts::default(),
            exec: ExecPane::default(),
            cfg: CfgPane::default(),
            columns: ColumnsPane::default(),
        }
    }

    /// Whether input `i` keeps its steps: every input while few are open (or they run
    /// together), else the selected one and those selected last.
    pub fn keeps_steps(&self, i: usize) -> bool {
        self.batched
            || self.docs.len() <= STEPS_KEPT
            || i == self.doc
            || self.browser.kept.contains(&i)
    }

    /// The browser's rows and every listed shader in order: as derived, or built now when
    /// the docs changed since (within `update`, before `derive` runs).
    pub fn browser_tree(&self) -> (Arc<Vec<BrowserRow>>, Arc<Vec<usize>>) {
        if self.browser.rows_key == super::tree::key(self) {
            return (self.browser.rows.clone(), self.browser.order.clone());
        }
        let fresh;
        let sorted = if self.browser.sorted.fits(self) {
            &self.browser.sorted
        } else {
            fresh = Arc::new(super::tree::sort(self));
            &fresh
        };
        (
            Arc::new(super::tree::rows(self, sorted).rows),
            Arc::new(sorted.order()),
        )
    }

    /// The row the browser's cursor is on: the folder it is on, else the selected shader's, or
    /// the nearest folder above it that shows (the shader is folded away).
    pub fn browser_cursor_row(&self) -> usize {
        self.cursor_row_in(&self.browser_tree().0)
    }

    /// `browser_cursor_row` among `rows`, the browser's rows as they are now.
    pub fn cursor_row_in(&self, rows: &[BrowserRow]) -> usize {
        if let Some(key) = &self.browser.on_folder {
            if let Some(i) = rows
                .iter()
                .position(|r| matches!(r, BrowserRow::Folder { key: k, .. } if k == key))
            {
                return i;
            }
        }
        if let Some(i) = rows
            .iter()
            .position(|r| matches!(r, BrowserRow::Shader { doc, .. } if *doc == self.doc))
        {
            return i;
        }
        let Some(_) = self.docs.get(self.doc) else {
            return 0;
        };
        let folders = super::tree::folders_of(self, self.doc);
        folders
            .iter()
            .rev()
            .find_map(|f| {
                rows.iter()
                    .position(|r| matches!(r, BrowserRow::Folder { key, .. } if key == f))
            })
            .unwrap_or(0)
    }

    /// The shaders the browser lists (present ones, named like its filter), in the tree's
    /// order.
    pub fn listed_docs(&self) -> Vec<usize> {
        self.browser_tree().1.to_vec()
    }

    /// Whether the shader browser is shown: for watched directories or several inputs.
    pub fn browser_shown(&self) -> bool {
        !self.roots.is_empty() || self.docs.len() > 1
    }

    pub fn current(&self) -> Option<&Doc> {
        self.docs.get(self.doc)
    }

    /// Whether the selected input shows the first steps of a run still under way.
    pub fn run_under_way(&self) -> bool {
        self.current().is_some_and(|d| d.streaming.is_some())
    }

    /// The passes still to come of the selected input's run under way (none when it is done).
    pub fn pending_passes(&self) -> &[&'static str] {
        let Some(run) = self.run().filter(|_| self.run_under_way()) else {
            return &[];
        };
        let done = run.steps.iter().filter(|st| !st.is_source()).count();
        self.pipeline.get(done..).unwrap_or(&[])
    }

    /// The selected step of the selected input, as the values column keys it.
    pub fn step_key(&self) -> Option<StepKey> {
        let d = self.current()?;
        d.run.as_ref()?;
        Some((self.doc, d.generation, self.step))
    }

    pub fn run(&self) -> Option<&Arc<Run>> {
        self.current().and_then(|d| d.run.as_ref())
    }

    /// Steps before the first pass of doc `d`'s run (its source step, if it has one).
    fn step_offset(&self, d: usize) -> usize {
        self.docs
            .get(d)
            .and_then(|doc| doc.run.as_ref())
            .map_or(0, |r| {
                usize::from(r.steps.first().is_some_and(|s| s.is_source()))
            })
    }

    /// The step of doc `d` that is the selected step of the current doc: linked stages run
    /// the same steps, but only those compiled from source have a source step in front.
    pub fn aligned_step(&self, d: usize) -> Option<usize> {
        let len = self.docs.get(d)?.run.as_ref()?.steps.len();
        let k = self.step.saturating_sub(self.step_offset(self.doc));
        Some((k + self.step_offset(d)).min(len.checked_sub(1)?))
    }

    /// The stage interface at the selected step against the stages' first pass (the link
    /// view); empty unless the docs are the linked stages of a pipeline. Views read the
    /// cached table (`link.table`) instead.
    pub fn compute_link_rows(&self) -> Vec<crate::pipeline::link::stages::InterfaceRow> {
        if !self.linked {
            return Vec::new();
        }
        let mut first = Vec::new();
        let mut now = Vec::new();
        for d in 0..self.docs.len() {
            let (Some(run), Some(step)) = (self.docs[d].run.as_ref(), self.aligned_step(d)) else {
                return Vec::new();
            };
            first.push(&*run.steps[self.step_offset(d).min(step)].module);
            now.push(&*run.steps[step].module);
        }
        crate::pipeline::link::stages::interface_table(&first, &now)
    }

    pub fn step_count(&self) -> usize {
        self.run().map_or(0, |r| r.steps.len())
    }

    /// The base step for diffs of the selected step.
    /// The compared pipeline's run on the current input.
    pub fn compare_run(&self) -> Option<&Arc<Run>> {
        self.compare.spec.as_ref()?;
        self.current()?.compare_run.as_ref()
    }

    /// The compared step diffs are against, when there is a compared run.
    pub fn compared_base(&self) -> Option<usize> {
        let n = self.compare_run()?.steps.len();
        self.compare.base.filter(|&b| b < n)
    }

    /// What diffs compare with now: another input only while it is open with a run.
    pub fn diff_against(&self) -> Against {
        match self.diff.against {
            Against::Input(d)
                if d == self.doc || self.docs.get(d).is_none_or(|doc| doc.run.is_none()) =>
            {
                Against::Steps
            }
            a => a,
        }
    }

    /// The step of input `d` a diff compares the selected step with: the same pass (the
    /// source text of one input is not a step of a SPIR-V one), as far as its run goes.
    pub fn input_step(&self, d: usize) -> Option<usize> {
        use crate::pipeline::semantic::pass_steps;
        let theirs = pass_steps(self.docs.get(d)?.run.as_ref()?);
        match pass_steps(self.run()?).iter().position(|&i| i == self.step) {
            Some(k) => theirs.get(k).or(theirs.last()).copied(),
            // The source text: theirs, or their first step.
            None => Some(0),
        }
    }

    pub fn base_step(&self) -> usize {
        self.diff.base.unwrap_or(self.step.saturating_sub(1))
    }

    /// Steps listed in the pass list (all, or only those that changed something).
    pub fn visible_steps(&self) -> Vec<usize> {
        let Some(run) = self.run() else {
            return Vec::new();
        };
        (0..run.steps.len())
            .filter(|&i| {
                !self.passes.hide_unchanged
                    || run.steps[i].changed
                    || run.steps[i].is_source()
                    || run.steps[i].has_errors()
                    || i == self.step
            })
            .collect()
    }

    /// Diagnostics of step `i`: the pass's own, then any found later (`:bisect`).
    pub fn diagnostics_of(&self, i: usize) -> Vec<&Diagnostic> {
        let Some(doc) = self.current() else {
            return Vec::new();
        };
        let mut out: Vec<&Diagnostic> = match self.run().and_then(|r| r.steps.get(i)) {
            Some(st) => st.diagnostics.iter().collect(),
            None => Vec::new(),
        };
        if let Some(found) = self.bisect.found.get(&(self.doc, doc.generation, i)) {
            out.extend(found.iter());
        }
        out
    }

    pub fn step_has_errors(&self, i: usize) -> bool {
        self.diagnostics_of(i)
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    pub fn set_message(&mut self, text: impl Into<String>) {
        self.say(Message {
            text: text.into(),
            error: false,
        });
    }

    pub fn set_error(&mut self, text: impl Into<String>) {
        self.say(Message {
            text: text.into(),
            error: true,
        });
    }

    /// A job's progress: shown on the status line, not kept in `:messages` (its end is).
    pub fn show_progress(&mut self, text: impl Into<String>) {
        self.status.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    fn say(&mut self, m: Message) {
        if self.status.messages.last() != Some(&m) {
            self.status.messages.push(m.clone());
            if self.status.messages.len() > MESSAGES_KEPT {
                self.status.messages.remove(0);
            }
        }
        self.status.message = Some(m);
    }
}

/// Byte ranges in `text` that match the search.
pub fn search_matches(text: &str, search: &Search) -> Vec<Range<usize>> {
    if search.text.is_empty() {
        return Vec::new();
    }
    // Smart case: lower-case queries match any case.
    let sensitive = search.text.chars().any(char::is_uppercase);
    let (hay, needle) = if sensitive {
        (text.to_string(), search.text.clone())
    } else {
        (text.to_lowercase(), search.text.to_lowercase())
    };
    if hay.len() != text.len() {
        // Lower-casing changed byte lengths (non-ASCII): fall back to exact matching.
        return exact_matches(text, &search.text, search.whole_word);
    }
    exact_matches(&hay, &needle, search.whole_word)
}

fn exact_matches(hay: &str, needle: &str, whole_word: bool) -> Vec<Range<usize>> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(pos) = hay[start..].find(needle) {
        let s = start + pos;
        let e = s + needle.len();
        let ok = !whole_word
            || (!hay[..s].chars().next_back().is_some_and(is_word)
                && !hay[e..].chars().next().is_some_and(is_word));
        if ok {
            out.push(s..e);
        }
        start = s + needle.len().max(1);
        if start > hay.len() {
            break;
        }
    }
    out
}

/// Byte ranges of the `%ids` in a line.
pub fn id_tokens(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let mut j = i + 1;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            if j > i + 1 {
                out.push(i..j);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}
