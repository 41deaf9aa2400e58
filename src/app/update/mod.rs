//! `update`: applies an action to the state and returns the effects (file reads, pipeline runs,
//! writes) for the event loop to carry out. Input becomes actions in `input`; the derived parts
//! of the state (the code pane's rows, highlighting) are kept fresh by `derive`.
//!
//! One file per pane or job, as `views/` has one per pane: what a key does is next to the pane
//! it acts on. `update` only says which file an action belongs to.

mod bisect;
mod browser;
mod cfg_view;
mod code_view;
mod columns_view;
mod compare;
mod cost;
mod decompile;
mod diagnostics;
mod diff;
mod driver;
mod exec;
mod files;
mod help;
mod layout;
mod link_view;
mod pass_list;
mod prompt;
mod search;
mod source_view;
mod values;

use std::path::PathBuf;

use crate::app::action::Action;
use crate::app::state::State;
use crate::app::worker::Job;

pub(in crate::app) use browser::select_doc;
pub(crate) use exec::locals_list;
pub(in crate::app) use files::{load, load_all};
pub use help::op_on_line;

#[derive(Debug, PartialEq)]
pub enum Effect {
    /// Read inputs from disk and run the pipeline on them (together, when the inputs run
    /// together), and the compared pipeline on one, when one is compared. Each job carries the
    /// token its answer must bring back (see `load`).
    Load {
        jobs: Vec<Job>,
        compared: Option<Job>,
    },
    /// Write `bytes` to `path`: over an existing file only when `force`, and never over one of
    /// the `inputs` without it (the shader's own source).
    Write {
        path: PathBuf,
        bytes: Vec<u8>,
        force: bool,
        inputs: Vec<PathBuf>,
        /// Said after what was written (`lifted out of the dialect …`).
        note: String,
    },
    /// Keep a submitted command or search in the history file (across runs).
    RememberPrompt { command: bool, line: String },
    /// Open the user's editor at `line` of `path` (the terminal is handed over meanwhile).
    Edit { path: PathBuf, line: u32 },
    /// Validate every step of the current input with spirv-val.
    Bisect,
    /// Run the current input after every step on a Vulkan driver (in the background), buffers
    /// starting with the bytes of a file when one is given.
    BisectRun(Option<PathBuf>, crate::pipeline::oracle::Oracle),
    /// Reduce the current input (in the background) while it has the property: the one named,
    /// else what the last bisect found.
    Reduce(Option<String>),
    /// Stop the reduction under way (`Esc`): it ends with the smallest shader so far.
    StopReduce,
    /// Compile these steps (the hash of their SPIR-V, and it) on the driver, for its code.
    DriverCode(Vec<(u64, Vec<u32>)>),
    /// Decompile these steps (the hash of their SPIR-V, the language, and the SPIR-V); those
    /// `shown` are on screen, the others are asked ahead.
    Decompile {
        asked: Vec<(u64, crate::pipeline::decompile::Lang, Vec<u32>)>,
        shown: Vec<(u64, crate::pipeline::decompile::Lang)>,
    },
    /// Run step `key` (its module) on the interpreter for the values column.
    Exec {
        key: crate::app::state::StepKey,
        module: std::sync::Arc<crate::ir::Module>,
        /// Whose values to keep, should the run be too big to keep every invocation's.
        chosen: Option<crate::pipeline::step_values::Chosen>,
    },
    /// Stop the values column's run under way: its step is no longer the one looked at.
    CancelExec,
    /// Run two steps on the interpreter and find the first value that differs.
    FirstDifference {
        key: crate::app::state::StepKey,
        /// What the other is called, in what is said.
        other: String,
        this: std::sync::Arc<crate::ir::Module>,
        against: std::sync::Arc<crate::ir::Module>,
        /// Ids of the earlier step to the later one's (`history::renamed`, composed).
        forward: crate::ir::fxhash::FxHashMap<crate::ir::Id, crate::ir::Id>,
        this_is_later: bool,
    },
    /// Start running a second pipeline beside this one (a preset, a pass list or
    /// `spirv-opt FLAGS`) on every input (`jobs`), or stop (`None`).
    Compare {
        spec: Option<String>,
        jobs: Vec<Job>,
    },
}

/// Applies `action` to the state and returns what the event loop is to carry out: each action
/// goes to the file of the pane or job it acts on.
pub fn update(s: &mut State, action: Action) -> Vec<Effect> {
    // A message answers what was done last: the user's next action clears it (what the
    // workers and the disk report stays until then; `:messages` keeps them all).
    if !matches!(
        action,
        Action::Answer(..) | Action::Disk(..) | Action::Resize(..)
    ) {
        s.status.message = None;
        if action != Action::Quit {
            s.quit_asked = false;
        }
    }
    let mut effects = route(s, action);
    effects.extend(exec::follow(s));
    effects.extend(files::steps_wanted(s));
    effects.extend(driver::wanted(s));
    effects.extend(decompile::wanted(s));
    effects
}

/// Hands `action` to the file of the pane or job it acts on.
fn route(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Quit => {
            // A job the user started and waits for is not stopped by one stray key.
            if s.jobs.is_empty() || s.quit_asked {
                s.quit = true;
            } else {
                s.quit_asked = true;
                s.set_error(format!(
                    "the {} is still running: press Ctrl-C or q again to stop it and quit",
                    s.jobs.join(" and the ")
                ));
            }
            Vec::new()
        }
        Action::Resize(..)
        | Action::Click(..)
        | Action::Drag(..)
        | Action::Split(..)
        | Action::WheelUp(..)
        | Action::WheelDown(..)
        | Action::Focus
        | Action::Up(..)
        | Action::Down(..)
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
        | Action::Left
        | Action::Right => layout::handle(s, action),
        Action::NextInput
        | Action::PrevInput
        | Action::NextFailing(..)
        | Action::Fold
        | Action::Unfold
        | Action::Open
        | Action::Sort(..)
        | Action::Shader(..)
        | Action::Filter(..) => browser::handle(s, action),
        Action::StepNext
        | Action::StepPrev
        | Action::Step(..)
        | Action::Mark
        | Action::HideUnchanged(..)
        | Action::FirstChange => pass_list::handle(s, action),
        Action::ToggleText
        | Action::Func(..)
        | Action::FuncAtCursor
        | Action::Goto(..)
        | Action::NextToken
        | Action::PrevToken
        | Action::Definition
        | Action::ScrollRight
        | Action::ScrollLeft => code_view::handle(s, action),
        Action::Find(..) | Action::FindNext | Action::FindPrev => search::handle(s, action),
        Action::Diff(..)
        | Action::View(..)
        | Action::ViewLang(..)
        | Action::ViewDriver(..)
        | Action::IgnoreRenumbering(..)
        | Action::NextHunk
        | Action::PrevHunk
        | Action::DiffPrev
        | Action::DiffInput(_) => diff::handle(s, action),
        Action::Uses
        | Action::History
        | Action::Lost
        | Action::Sources
        | Action::ValueGoto
        | Action::ValueClose => values::handle(s, action),
        Action::GotoDiagnostic => diagnostics::handle(s, action),
        Action::LinkView | Action::LinkJump(..) => link_view::handle(s, action),
        Action::Cfg(..) => cfg_view::handle(s, action),
        Action::Columns(..) => columns_view::handle(s, action),
        Action::SourcePane(..) | Action::Bands(..) | Action::SourceCaller | Action::EditSource => {
            source_view::handle(s, action)
        }
        Action::Pressure(..) | Action::CostPane | Action::Live | Action::Peak => {
            cost::handle(s, action)
        }
        Action::Exec(..) | Action::FirstDifference(..) | Action::Locals => exec::handle(s, action),
        Action::Compare(..) | Action::CompareStep(..) => compare::handle(s, action),
        Action::Bisect | Action::BisectRun(..) | Action::Reduce(..) => bisect::handle(s, action),
        Action::Cancel
        | Action::PromptInsert(..)
        | Action::PromptBackspace
        | Action::PromptCancel
        | Action::PromptHistory(..)
        | Action::PromptComplete
        | Action::PromptSubmit
        | Action::CommandLine
        | Action::SearchPrompt
        | Action::FilterPrompt => prompt::handle(s, action),
        Action::Help | Action::ClosePopup | Action::OpInfo | Action::Messages => {
            help::handle(s, action)
        }
        Action::Answer(..) | Action::Disk(..) | Action::Reload | Action::Write(..) => {
            files::handle(s, action)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ctrl-C (or q) quits at once, but asks first while a bisect the user waits for runs;
    /// any other action in between takes the question back.
    #[test]
    fn quitting_during_a_job_asks_first() {
        let mut s = State::new(Vec::new(), Vec::new(), Vec::new(), (80, 24), false);
        update(&mut s, Action::Quit);
        assert!(s.quit);

        let mut s = State::new(Vec::new(), Vec::new(), Vec::new(), (80, 24), false);
        s.jobs = vec!["bisect run"];
        update(&mut s, Action::Quit);
        assert!(!s.quit);
        let said = s.status.message.clone().unwrap().text;
        assert!(said.contains("bisect run is still running"), "{said}");
        update(&mut s, Action::Down(1));
        update(&mut s, Action::Quit);
        assert!(!s.quit, "a key in between takes the question back");
        update(&mut s, Action::Quit);
        assert!(s.quit);
    }

    /// A values-column run of a step no longer selected is stopped once, and its answer,
    /// cancelled, is not kept as the step's run.
    #[test]
    fn a_values_run_nobody_waits_for_is_cancelled() {
        use crate::app::action::{Answer, Answered};
        let mut s = State::new(Vec::new(), Vec::new(), Vec::new(), (80, 24), false);
        s.exec.shown = true;
        s.exec.running = Some((0, 0, 3));
        let cancels = |effects: &[Effect]| {
            effects
                .iter()
                .filter(|e| matches!(e, Effect::CancelExec))
                .count()
        };
        assert_eq!(cancels(&update(&mut s, Action::Down(1))), 1);
        assert_eq!(cancels(&update(&mut s, Action::Down(1))), 0, "asked once");
        let answer = Action::Answer(Answer::new(Answered::Executed {
            key: (0, 0, 3),
            result: Err(crate::ir::exec::CANCELLED.into()),
        }));
        update(&mut s, answer);
        assert_eq!(s.exec.running, None);
        assert!(!s.exec.cancelling);
        assert!(
            s.exec.runs.is_empty(),
            "a cancelled run is no run of its step"
        );
    }

    /// The values column's run past 200ms: the status line counts its time, never over what
    /// something else said, and never among the messages.
    #[test]
    fn a_long_values_run_says_its_time_without_filling_the_messages() {
        use crate::app::action::{Answer, Answered};
        let running = |took_ms| {
            Action::Answer(Answer::new(Answered::ExecRunning {
                key: (0, 0, 3),
                took: std::time::Duration::from_millis(took_ms),
            }))
        };
        let mut s = State::new(Vec::new(), Vec::new(), Vec::new(), (80, 24), false);
        update(&mut s, running(1500));
        assert!(
            s.status.message.is_none(),
            "no run of that step is under way"
        );
        s.exec.running = Some((0, 0, 3));
        update(&mut s, running(1500));
        let said = s.status.message.clone().unwrap().text;
        assert_eq!(said, "running step 3 on the interpreter… 1.5s");
        assert!(!s.status.messages.iter().any(|m| m.text == said));
        s.set_message("first difference: %12");
        update(&mut s, running(1600));
        assert_eq!(
            s.status.message.as_ref().unwrap().text,
            "first difference: %12"
        );
    }
}
