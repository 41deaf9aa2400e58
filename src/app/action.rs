//! `Action`: the only way state changes. It parses from and prints as the `:` command syntax,
//! as the command table (`commands`) says, so key maps, the command line and replay scripts
//! share one vocabulary.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewMode {
    /// The IR text of the selected step.
    Ir,
    /// The spirv-dis style disassembly of the selected step.
    Spirv,
    /// Unified diff against the base step.
    Diff,
    /// Side-by-side diff against the base step.
    Split,
}

impl ViewMode {
    pub fn name(self) -> &'static str {
        match self {
            ViewMode::Ir => "ir",
            ViewMode::Spirv => "spirv",
            ViewMode::Diff => "diff",
            ViewMode::Split => "split",
        }
    }
}

/// What `:cfg` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfgArg {
    /// Show the graph of the function at the cursor, or hide it.
    Toggle,
    Off,
    /// Diff against the base step, or not.
    Diff,
    /// Boxes of two rows, or of three and four.
    Compact,
    /// Fold the selected header's construct into it, or unfold it.
    Fold,
    /// Go to the selected block in the code.
    Goto,
}

/// A step named by index (0-based, as the pass list shows) or by pass name (first match).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepRef {
    Index(usize),
    Name(String),
    /// `bN`: step N of the compared pipeline (`:compare`).
    Compared(usize),
}

impl fmt::Display for StepRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepRef::Index(i) => write!(f, "{i}"),
            StepRef::Name(n) => f.write_str(n),
            StepRef::Compared(i) => write!(f, "b{i}"),
        }
    }
}

impl FromStr for StepRef {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.is_empty() {
            return Err("expected a step number or pass name".into());
        }
        if let Some(n) = s.strip_prefix('b').and_then(|r| r.parse().ok()) {
            return Ok(StepRef::Compared(n));
        }
        Ok(match s.parse() {
            Ok(i) => StepRef::Index(i),
            Err(_) => StepRef::Name(s.to_string()),
        })
    }
}

/// What a mouse event at a cell is: the input turns it into `Click`, `WheelUp` or `WheelDown`,
/// and `update` routes it to the pane under the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseKind {
    Click,
    /// The mouse moved with its button held.
    Drag,
    WheelUp,
    WheelDown,
}

/// Where the split between the left column (shaders, passes) and the code goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitTo {
    /// Wider (positive) or narrower by this many columns.
    By(i16),
    /// This many columns wide.
    At(u16),
    /// As wide as the screen's size makes it.
    Default,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Quit,
    Help,
    Focus,
    Up(usize),
    Down(usize),
    PageUp,
    PageDown,
    Top,
    Bottom,
    Left,
    Right,
    StepNext,
    StepPrev,
    Step(StepRef),
    /// Mark the selected step as the base of comparisons.
    Mark,
    /// `diff A B`: show A→B; without steps: the selected step against its base.
    Diff(Option<(StepRef, StepRef)>),
    View(ViewMode),
    /// Switch between the IR text and the SPIR-V disassembly.
    ToggleText,
    HideUnchanged(Option<bool>),
    IgnoreRenumbering(Option<bool>),
    NextHunk,
    PrevHunk,
    Find(String),
    FindNext,
    FindPrev,
    /// Show one function across all steps; `None` shows the whole module.
    Func(Option<String>),
    /// Filter to the function under the cursor, or clear the filter.
    FuncAtCursor,
    Goto(usize),
    NextToken,
    PrevToken,
    Definition,
    /// The uses of the selected value: listed under the code, walked with n/N.
    Uses,
    /// The history of the selected value across the steps (`:history`).
    History,
    /// The source lines the selected step no longer covers, each with the instruction that
    /// carried it in the step before (`:lost`).
    Lost,
    /// Go to the selected entry of the value list (a use, or the step of a history event).
    ValueGoto,
    /// Close the value list.
    ValueClose,
    /// Jump from the pass list to the first line the selected pass changed.
    FirstChange,
    /// Write the selected step as SPIR-V to a file; `true`: over an existing one (`:write!`).
    Write(PathBuf, bool),
    Reload,
    NextInput,
    PrevInput,
    /// Select the next (`true`) or previous failing shader of the browser's list.
    NextFailing(bool),
    /// In the browser: fold the folder at the cursor (or go to the folder the shader is in),
    /// unfold it, or (on a shader) focus its passes.
    Fold,
    Unfold,
    Open,
    /// List the shaders in each folder by name, status, size or time (`None`: the next).
    Sort(Option<crate::app::state::SortBy>),
    /// Select the shader whose name contains the text.
    Shader(String),
    /// Diff the selected step against the same step of the input's previous run.
    DiffPrev,
    /// Diff the selected step against the same step of another open input (by name; `None`:
    /// the input this one was reduced from); `:diff-input off` stops.
    DiffInput(Option<String>),
    /// Run a second pipeline on the same inputs (a preset, a pass list, or `spirv-opt FLAGS`)
    /// and diff against its steps; `None` stops comparing.
    Compare(Option<String>),
    /// Move the compared step that diffs are against, by this many steps.
    CompareStep(isize),
    /// Run the shader after every step (on the oracle given: the interpreter, a Vulkan driver,
    /// or both); select the first step whose results differ from the input's. With a file:
    /// the bytes buffers start with.
    BisectRun(Option<PathBuf>, crate::pipeline::oracle::Oracle),
    /// Reduce the input to the smallest that still shows what the last bisect found, or the
    /// property given (`invalid`, `differs`, `crash`, `fails` at the step shown, or a command).
    Reduce(Option<String>),
    /// Show or hide the link view (the interface between linked stages).
    LinkView,
    /// The code pane (and its diffs) in a shading language: each step decompiled.
    ViewLang(crate::pipeline::decompile::Lang),
    /// The code pane (and its diffs) as the Vulkan driver compiled each step (`:driver`).
    ViewDriver(crate::pipeline::driver_code::Show),
    /// The control-flow graph of the function at the cursor (`:cfg`, `C`).
    Cfg(CfgArg),
    /// The function at the cursor in this many consecutive steps side by side (`None`: close).
    Columns(Option<usize>),
    /// Show (`Some(true)`), hide or toggle (`None`) the source pane.
    SourcePane(Option<bool>),
    /// Colour bands per source line in the code and source panes (`:bands on|off`).
    Bands(Option<bool>),
    /// The pressure gutter in the code pane: live 32-bit components after each line's
    /// instruction (`P`, `:pressure on|off`).
    Pressure(Option<bool>),
    /// The cost pane: the step's instruction mix against its base step's, and a chart of
    /// instructions, pressure, texture and memory ops over the steps (`:cost`).
    CostPane,
    /// The values column (`:exec`, `X`): what the interpreter computed at each line of the
    /// selected step, for one invocation.
    Exec(ExecArg),
    /// Where the selected step first computes otherwise than another step of this input
    /// (by number or pass name; `None`: the step before) or the same step of another open
    /// input (by name): the cursor goes to that value.
    FirstDifference(Option<String>),
    /// The source variables of the function at the cursor and their values where the values
    /// column stands (`:locals`).
    Locals,
    /// The values live after the cursor's instruction, heaviest first (`:live`).
    Live,
    /// Go to the instruction after which the step's pressure peaks (`:peak`).
    Peak,
    /// List the source files the step's module names, to show one in the source pane.
    Sources,
    /// Open `$VISUAL`/`$EDITOR` (else `vi`) at the source file and line of the instruction at
    /// the cursor.
    EditSource,
    /// Show in the source pane the line the next caller out called inlined code from.
    SourceCaller,
    /// Jump from the selected link view row to its variable: the writer's (`false`) or the
    /// reader's (`true`).
    LinkJump(bool),
    /// Scroll the code pane sideways (long lines).
    ScrollRight,
    ScrollLeft,
    /// Show the op table's entry for the opcode on the cursor line.
    OpInfo,
    /// Every message said so far, whole, newest first (`:messages`).
    Messages,
    /// Jump to the instruction the selected diagnostic is about.
    GotoDiagnostic,
    /// Validate every step with spirv-val and select the first whose output is invalid.
    Bisect,
    CommandLine,
    SearchPrompt,
    /// Type a filter of the shader browser's names (`/` there).
    FilterPrompt,
    /// List only the shaders whose names contain the text (empty: all).
    Filter(String),
    /// Clear the search and the message (`Esc`).
    Cancel,
    /// Close the information box (the op table entry).
    ClosePopup,
    /// In the `:` or `/` prompt: add a character, delete the last, run it, leave it.
    PromptInsert(char),
    PromptBackspace,
    PromptSubmit,
    PromptCancel,
    /// The prompt's history: the command (or search) before (`true`) or after the one shown.
    PromptHistory(bool),
    /// Complete the word before the prompt's cursor (commands, pass names, presets, shaders).
    PromptComplete,
    /// A mouse click or wheel turn at a terminal cell (column, row).
    Click(u16, u16),
    Drag(u16, u16),
    /// Move the split between the left column and the code (`+`, `-`, `:split`, a drag).
    Split(SplitTo),
    WheelUp(u16, u16),
    WheelDown(u16, u16),
    /// What a background job answered (see `Answer`).
    Answer(Answer),
    /// What the event loop found on disk after a watch event (see `DiskFact`).
    Disk(Vec<DiskFact>),
    /// The terminal is this size now (columns, rows).
    Resize(u16, u16),
}

/// A file's modification time and length: what tells one write of it from another.
pub type FileStamp = (std::time::SystemTime, u64);

/// A finished reduction: the input reduced, the reduced shader written (and its stamp then),
/// what was done.
pub type Reduced = (
    std::path::PathBuf,
    std::path::PathBuf,
    Option<FileStamp>,
    String,
);

/// A path that changed on disk, as the event loop found it (it does the file system reads;
/// `update` decides what to reload, list or unlist). Not a command: it cannot be typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiskFact {
    /// A file, and the watched directory that lists it (by index), if one does.
    File {
        path: PathBuf,
        listed_under: Option<usize>,
        /// When it was last written and its length, where the file system says.
        stamp: Option<FileStamp>,
    },
    /// A directory that appeared, with the shaders under it and the directory listing each.
    Dir { files: Vec<(PathBuf, usize)> },
    /// A file or directory that is no longer there.
    Gone(PathBuf),
    /// A watched directory scanned again (its `.gitignore` changed): every shader it lists.
    Rescanned { root: usize, files: Vec<PathBuf> },
    /// The file watcher failed, or could not start: why.
    WatchError(String),
}

/// What a background job answered, for `update` to apply like any other action: an input's
/// run, the compared pipeline's run, a validation bisect, a semantic bisect. It comes from the
/// worker threads through the event loop; it cannot be typed or bound to a key. The answer is
/// taken once (a run moves into the state), so clones share it.
#[derive(Clone)]
pub struct Answer(std::sync::Arc<std::sync::Mutex<Option<Answered>>>);

/// What carrying out an effect gave, for the state to say or keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It could not be done: why.
    Failed(String),
    /// It was done (or started): what to tell the user.
    Done(String),
    /// The compared pipeline (`:compare SPEC`) runs: its runs will follow.
    Comparing(String),
    /// The compared pipeline cannot run: why (no runs will follow).
    CompareFailed(String),
    /// A long job began (`bisect`, `bisect run`): quitting asks first until it answers.
    Started { job: &'static str, said: String },
}

/// What shaderstep.toml says now, read again after it changed (the event loop applied its
/// keys and compilers; the state takes the rest).
pub struct Settings {
    /// The file read, as the message names it.
    pub name: String,
    pub source_paths: Vec<std::path::PathBuf>,
    /// Key bindings that did not parse.
    pub key_errors: Vec<String>,
    /// The driver `[driver]` switched to (as `Driver::describe` says it), or why the one it
    /// names cannot be used (the driver before stays); `None` when it is the same.
    pub driver: Option<Result<String, String>>,
}

/// What `:exec` and its companions ask.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecArg {
    /// Show the column if hidden, else hide it (`X`, `:exec`).
    Toggle,
    /// `:exec on|off`.
    Shown(bool),
    /// Integers and floats in hex (`:exec hex`) or as numbers (`:exec dec`).
    Hex(bool),
    /// Whose values show (`:invocation X,Y,Z`, `:pixel X,Y`, `:vertex N`).
    Who(crate::pipeline::step_values::Chosen),
    /// Step through the chosen invocation's execution (`:trace …`, `.` `,`).
    Trace(TraceMove),
}

/// A move through a recorded execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceMove {
    /// Start at its first result, or stop stepping (`:trace`).
    Toggle,
    Next,
    Prev,
    /// The next result of this call, over the calls it makes.
    Over,
    /// The next result after this call returns.
    Out,
    /// The next time the current line runs again (the next iteration of its loop).
    Again,
    /// On to the next time the line under the cursor runs.
    ToCursor,
}

pub enum Answered {
    /// What an effect gave (see `Outcome`).
    Outcome(Outcome),
    /// A step of a run under way, before the run is done.
    Step(super::worker::StepDone),
    Run(super::worker::Done),
    Compared(super::worker::Done),
    /// `:bisect` of the run of (doc, generation).
    Bisect {
        key: (usize, u64),
        result: Result<crate::pipeline::validate::FirstInvalid, String>,
    },
    /// `:bisect run` of these (doc, generation) runs (one, or the linked stages).
    BisectRun {
        docs: Vec<(usize, u64)>,
        result: Result<crate::pipeline::semantic::BisectRun, String>,
    },
    /// How a reduction under way is going (its progress line).
    Reducing(String),
    /// A reduction ended: the input reduced and the reduced shader written (their paths) and
    /// what was done, or why it could not be.
    Reduced(Result<Reduced, String>),
    /// shaderstep.toml read again, or why it could not be.
    Settings(Result<Settings, String>),
    /// `--steps-cmd` ran again after a save (`--watch`): what it wrote, or why it failed.
    StepsCommand(Result<String, String>),
    /// `:first-difference` of step (doc, generation, step) against `other` (its name).
    FirstDifference {
        key: (usize, u64, usize),
        other: String,
        result: Result<Option<crate::pipeline::step_values::FirstDifference>, String>,
    },
    /// The interpreter has been running step (doc, generation, step) for the values column
    /// this long (said past `EXEC_PROGRESS_AFTER`, each tenth of a second).
    ExecRunning {
        key: (usize, u64, usize),
        took: std::time::Duration,
    },
    /// Lines the highlighter thread highlighted, by their key in `Cache::styles`.
    Highlighted(Vec<((u64, usize), crate::app::state::LineStyles)>),
    /// The driver's code of the SPIR-V `hash` hashes, or why there is none.
    DriverCode {
        hash: u64,
        result: Result<std::sync::Arc<crate::pipeline::driver_code::Code>, String>,
    },
    /// The step whose SPIR-V `hash` hashes, in `lang`, or why there is none.
    Decompiled {
        hash: u64,
        lang: crate::pipeline::decompile::Lang,
        result: Result<String, String>,
    },
    /// The interpreter ran step (doc, generation, step) for the values column.
    Executed {
        key: (usize, u64, usize),
        result: Result<std::sync::Arc<crate::pipeline::step_values::StepRun>, String>,
    },
}

impl Answer {
    pub fn new(answered: Answered) -> Self {
        Answer(std::sync::Arc::new(std::sync::Mutex::new(Some(answered))))
    }

    /// The answer, the first time it is asked for.
    pub fn take(&self) -> Option<Answered> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl PartialEq for Answer {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Answer")
    }
}

pub(super) fn on_off(arg: Option<&str>) -> Result<Option<bool>, String> {
    match arg {
        None => Ok(None),
        Some("on" | "true" | "yes") => Ok(Some(true)),
        Some("off" | "false" | "no") => Ok(Some(false)),
        Some(other) => Err(format!("expected on or off, not '{other}'")),
    }
}

pub(super) fn on_off_text(v: Option<bool>) -> &'static str {
    match v {
        None => "",
        Some(true) => " on",
        Some(false) => " off",
    }
}

impl fmt::Display for Action {
    /// The command line the command table gives the action; what is not a command is shown
    /// as what it is, for logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Answer(_) => write!(f, "answer"),
            Action::Disk(facts) => write!(f, "disk ({} paths)", facts.len()),
            Action::Resize(w, h) => write!(f, "resize {w}x{h}"),
            // Every other action is a command's (a test checks each).
            action => match super::commands::command_line(action) {
                Some(line) => f.write_str(&line),
                None => write!(f, "{action:?}"),
            },
        }
    }
}

impl FromStr for Action {
    type Err = String;

    /// Parses a command as typed after `:` (the leading `:` is optional), as the command
    /// table (`commands`) says it reads.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim().trim_start_matches(':').trim();
        let (cmd, rest) = match s.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (s, ""),
        };
        let arg = if rest.is_empty() { None } else { Some(rest) };
        if cmd.is_empty() {
            return Err("empty command".into());
        }
        match super::commands::find(cmd) {
            Some(command) => command.parse(cmd, arg),
            None => match cmd.parse::<usize>() {
                Ok(n) => Ok(Action::Goto(n)),
                Err(_) => Err(format!("unknown command ':{cmd}' (press ? for help)")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        let actions = [
            Action::Quit,
            Action::Down(3),
            Action::Step(StepRef::Index(4)),
            Action::Step(StepRef::Name("lift".into())),
            Action::Diff(Some((StepRef::Index(1), StepRef::Name("lift".into())))),
            Action::Diff(None),
            Action::View(ViewMode::Split),
            Action::HideUnchanged(Some(true)),
            Action::HideUnchanged(None),
            Action::Find("OpLoad %float".into()),
            Action::Func(Some("main".into())),
            Action::Func(None),
            Action::Goto(120),
            Action::Write(PathBuf::from("out.spv"), false),
            Action::Write(PathBuf::from("out.spv"), true),
            Action::PromptInsert(' '),
            Action::PromptInsert('%'),
            Action::Click(3, 14),
            Action::WheelDown(80, 2),
            Action::History,
            Action::Lost,
            Action::ValueClose,
            Action::SourcePane(None),
            Action::SourcePane(Some(false)),
            Action::Bands(Some(true)),
            Action::Pressure(Some(false)),
            Action::CostPane,
            Action::FirstDifference(None),
            Action::Locals,
            Action::FirstDifference(Some("mem2reg".into())),
            Action::Exec(ExecArg::Toggle),
            Action::Exec(ExecArg::Trace(TraceMove::Toggle)),
            Action::Exec(ExecArg::Trace(TraceMove::Next)),
            Action::Exec(ExecArg::Trace(TraceMove::Prev)),
            Action::Exec(ExecArg::Trace(TraceMove::Again)),
            Action::Exec(ExecArg::Trace(TraceMove::Over)),
            Action::Exec(ExecArg::Trace(TraceMove::Out)),
            Action::Exec(ExecArg::Trace(TraceMove::ToCursor)),
            Action::Exec(ExecArg::Shown(false)),
            Action::Exec(ExecArg::Hex(true)),
            Action::Exec(ExecArg::Who(
                crate::pipeline::step_values::Chosen::Invocation([1, 2, 3]),
            )),
            Action::Exec(ExecArg::Who(crate::pipeline::step_values::Chosen::Pixel(
                4, 5,
            ))),
            Action::Exec(ExecArg::Who(crate::pipeline::step_values::Chosen::Vertex(
                6,
            ))),
            Action::Live,
            Action::Peak,
            Action::Sources,
            Action::Messages,
            Action::EditSource,
            Action::SourceCaller,
            Action::BisectRun(None, Default::default()),
            Action::BisectRun(
                Some(PathBuf::from("data.bin")),
                crate::pipeline::oracle::Oracle::Interp,
            ),
            Action::BisectRun(None, crate::pipeline::oracle::Oracle::Both),
        ];
        for a in actions {
            let text = a.to_string();
            assert_eq!(text.parse::<Action>().unwrap(), a, "{text}");
        }
    }

    #[test]
    fn bad_commands_say_why() {
        assert!(":diff 1"
            .parse::<Action>()
            .unwrap_err()
            .contains("two steps"));
        assert!(":view png"
            .parse::<Action>()
            .unwrap_err()
            .contains("ir, spirv, diff, split, glsl"));
        assert!(":frob"
            .parse::<Action>()
            .unwrap_err()
            .contains("unknown command ':frob'"));
        assert!(":hide-unchanged maybe"
            .parse::<Action>()
            .unwrap_err()
            .contains("on or off"));
        assert_eq!(":42".parse::<Action>().unwrap(), Action::Goto(42));
    }
}

#[cfg(test)]
mod command_table_tests {
    use super::*;
    use crate::app::commands::{find, COMMANDS};

    /// A command line each usage stands for.
    fn example(usage: &str) -> String {
        usage
            .replace("N|PASS", "2")
            .replace("A B", "1 2")
            .replace("ir|spirv|diff|split", "split")
            .replace("glsl|hlsl|msl|wgsl", "hlsl")
            .replace("nir|llvm|asm|stats", "nir")
            .replace("NAME", "main")
            .replace("TEXT", "OpLoad")
            .replace(" N", " 3")
            .replace("on|off", "on")
            .replace("PATH", "out.spv")
            .replace("[!]", "")
            .replace("writer|reader", "reader")
            .replace("[N|+N|-N]", "40")
            .replace("[--oracle O]", "--oracle interp")
            .replace("hex|dec", "hex")
            .replace("next|prev|over|out|again|cursor", "again")
            .replace("[STEP | INPUT]", "mem2reg")
            .replace("X,Y,Z", "1,2,3")
            .replace("X,Y", "4,5")
            .replace("[name|status|size|time]", "size")
    }

    /// Each usage the help shows parses, and what it parses to prints as a command that
    /// parses back to it: the table, the parser and `Display` agree.
    #[test]
    fn every_documented_command_parses_and_prints_back() {
        let mut usages = 0;
        for command in COMMANDS {
            for (usage, _) in command.usage {
                let line = example(usage);
                let action = line
                    .parse::<Action>()
                    .unwrap_or_else(|e| panic!(":{line} does not parse: {e}"));
                let printed = action.to_string();
                assert_eq!(
                    printed.parse::<Action>(),
                    Ok(action),
                    ":{line} printed {printed}"
                );
                usages += 1;
            }
        }
        assert!(usages > 35, "only {usages} usages");
    }

    /// `Display` is the table's: each bare command's action prints as its name, and every
    /// default key's action prints as a command line that reads back as it.
    #[test]
    fn actions_print_as_their_commands_line() {
        use crate::app::commands::{Form, KEYS};
        for command in COMMANDS {
            if let Form::Bare(action) = &command.form {
                assert_eq!(action.to_string(), command.name);
            }
        }
        for row in KEYS {
            let action: Action = row.command.parse().unwrap();
            assert_eq!(action.to_string().parse::<Action>(), Ok(action));
        }
        assert_eq!(Action::Up(1).to_string(), "up 1");
        assert_eq!(
            Action::Write(PathBuf::from("o.spv"), true).to_string(),
            "write! o.spv"
        );
        assert_eq!(Action::Resize(80, 24).to_string(), "resize 80x24");
    }

    /// Names and aliases are found, and no spelling names two commands.
    #[test]
    fn every_spelling_names_one_command() {
        let mut seen = std::collections::HashSet::new();
        for command in COMMANDS {
            for name in std::iter::once(&command.name).chain(command.aliases) {
                assert!(seen.insert(*name), ":{name} names two commands");
                assert_eq!(find(name).map(|c| c.name), Some(command.name));
            }
        }
        assert!(COMMANDS.iter().filter(|c| c.is_key_action()).count() > 40);
    }
}
