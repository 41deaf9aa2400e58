//! Every `:` command, declared once: its name and aliases, how its arguments read, what `Tab`
//! completes after it and its help; and the default keys (`KEYS`), each naming the command it
//! runs and saying once what it does. `Action`'s parsing and printing, the help screen, the key
//! map and the prompt's completion read these tables; key actions (`step-next`, `click`…) are
//! commands too, listed without help of their own (their keys say what they do).

use std::path::PathBuf;

use super::action::{on_off, on_off_text, Action, CfgArg, ExecArg, SplitTo, TraceMove, ViewMode};
use super::keymap::Context;
use crate::pipeline::step_values::Chosen;

/// What `Tab` completes after a command's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Complete {
    Nothing,
    /// A pass name of the selected input's steps.
    Steps,
    /// A preset, or `spirv-opt`.
    Presets,
    /// A listed shader's name.
    Shaders,
    /// `ir`, `spirv`, `diff`, `split` or a shading language.
    View,
    /// `on` or `off`.
    OnOff,
}

/// One command.
pub struct Command {
    pub name: &'static str,
    /// Other spellings (`q`, `w!`).
    pub aliases: &'static [&'static str],
    /// Its forms and what each does, for the help (none: a key action).
    pub usage: &'static [(&'static str, &'static str)],
    pub complete: Complete,
    pub form: Form,
}

/// How a command's arguments read, and print back.
pub enum Form {
    /// It takes no argument: it is always this action.
    Bare(Action),
    Args {
        /// The action, from the name as typed and the rest of the line.
        parse: fn(&str, Option<&str>) -> Result<Action, String>,
        /// What follows the name in the command line for `action`, when it is one of this
        /// command's (arguments after a space, or `!` for `write!`); `None` when it is not.
        print: fn(&Action) -> Option<String>,
    },
}

impl Command {
    /// A key action: bound to keys, with no help line of its own.
    pub fn is_key_action(&self) -> bool {
        self.usage.is_empty()
    }

    /// The action the command line `cmd ARG` stands for (`cmd`: this command's name or an
    /// alias, as typed).
    pub fn parse(&self, cmd: &str, arg: Option<&str>) -> Result<Action, String> {
        match &self.form {
            Form::Bare(action) => match arg {
                None => Ok(action.clone()),
                Some(x) => Err(format!(":{cmd} takes no argument (got '{x}')")),
            },
            Form::Args { parse, .. } => parse(cmd, arg),
        }
    }

    /// `action` as this command's line, when it is one of this command's.
    pub fn print(&self, action: &Action) -> Option<String> {
        let rest = match &self.form {
            Form::Bare(a) => (a == action).then(String::new)?,
            Form::Args { print, .. } => print(action)?,
        };
        Some(format!("{}{rest}", self.name))
    }
}

/// The command line that stands for `action`, if a command does.
pub fn command_line(action: &Action) -> Option<String> {
    COMMANDS.iter().find_map(|c| c.print(action))
}

/// The command spelled `name` (its name or an alias).
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// `n` from the argument, 1 without one.
fn count(arg: Option<&str>) -> Result<usize, String> {
    arg.map_or(Ok(1), |a| {
        a.parse().map_err(|_| format!("'{a}' is not a count"))
    })
}

/// The column and row a pointer command takes.
fn cell(cmd: &str, arg: Option<&str>) -> Result<(u16, u16), String> {
    let cell: Vec<u16> = arg
        .unwrap_or("")
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| format!(":{cmd} takes a column and a row"))?;
    match cell[..] {
        [c, r] => Ok((c, r)),
        _ => Err(format!(":{cmd} takes a column and a row")),
    }
}

/// What follows `:bisect run`: `[--oracle O | --oracle=O] [FILE]` (the file's name as it is,
/// spaces and all).
/// `:invocation X,Y,Z`, `:pixel X,Y`, `:vertex N`.
fn who(what: &str, arg: Option<&str>) -> Result<Action, String> {
    let arg = arg
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .ok_or_else(|| {
            format!(
                ":{what} takes {}",
                match what {
                    "invocation" => "X,Y,Z",
                    "pixel" => "X,Y",
                    _ => "a number",
                }
            )
        })?;
    let chosen: Chosen = format!("{what} {arg}")
        .parse()
        .map_err(|e| format!(":{what}: {e}"))?;
    Ok(Action::Exec(ExecArg::Who(chosen)))
}

fn parse_bisect_run(rest: &str) -> Result<Action, String> {
    let (oracle, file) = match rest.strip_prefix("--oracle") {
        Some(after) => {
            let after = after.strip_prefix('=').unwrap_or(after).trim_start();
            let (name, file) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
            if name.is_empty() {
                return Err(":bisect run --oracle takes auto, interp, driver or both".into());
            }
            (name.parse()?, file.trim())
        }
        None => (Default::default(), rest),
    };
    let file = (!file.is_empty()).then(|| PathBuf::from(file));
    Ok(Action::BisectRun(file, oracle))
}

/// Every command: first those the help lists, in its order, then the key actions.
pub static COMMANDS: &[Command] = &[
    Command {
        name: "step",
        aliases: &[],
        usage: &[(
            "step N|PASS",
            "select a step by number or pass name",
        )],
        complete: Complete::Steps,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Step(
                arg.ok_or(":step needs a step number or pass name")?
                    .parse()?,
            )),
            print: |a| match a {
                Action::Step(s) => Some(format!(" {s}")),
                _ => None,
            },
        },
    },
    Command {
        name: "diff",
        aliases: &[],
        usage: &[(
            "diff A B",
            "compare step A with step B (bN: step N of the compared pipeline)",
        )],
        complete: Complete::Steps,
        form: Form::Args {
            parse: |_cmd, arg| match arg {
                None => Ok(Action::Diff(None)),
                Some(a) => {
                    let parts: Vec<&str> = a.split_whitespace().collect();
                    match parts.as_slice() {
                        [x, y] => Ok(Action::Diff(Some((x.parse()?, y.parse()?)))),
                        _ => Err(":diff takes two steps (`:diff 2 5`) or none".into()),
                    }
                }
            },
            print: |a| match a {
                Action::Diff(None) => Some(String::new()),
                Action::Diff(Some((x, y))) => Some(format!(" {x} {y}")),
                _ => None,
            },
        },
    },
    Command {
        name: "compare",
        aliases: &[],
        usage: &[(
            "compare O|a,b,c|spirv-opt -O",
            "run a second pipeline beside this one; diff the outputs (:compare off)",
        )],
        complete: Complete::Presets,
        form: Form::Args {
            parse: |_cmd, arg| match arg.map(str::trim) {
                Some("off") => Ok(Action::Compare(None)),
                Some(spec) if !spec.is_empty() => Ok(Action::Compare(Some(spec.to_string()))),
                _ => {
                    Err(":compare needs a preset, a pass list or 'spirv-opt FLAGS' (or off)".into())
                }
            },
            print: |a| match a {
                Action::Compare(Some(spec)) => Some(format!(" {spec}")),
                Action::Compare(None) => Some(" off".into()),
                _ => None,
            },
        },
    },
    Command {
        name: "view",
        aliases: &[],
        usage: &[
            (
                "view ir|spirv|diff|split",
                "IR text, disassembly, unified or side-by-side diff",
            ),
            (
                "view glsl|hlsl|msl|wgsl",
                "each step decompiled (SPIRV-Cross; WGSL: naga), diffs in it too",
            ),
        ],
        complete: Complete::View,
        form: Form::Args {
            parse: |_cmd, arg| match arg {
                Some("ir") => Ok(Action::View(ViewMode::Ir)),
                Some("spirv" | "spvasm") => Ok(Action::View(ViewMode::Spirv)),
                Some("diff") => Ok(Action::View(ViewMode::Diff)),
                Some("split") => Ok(Action::View(ViewMode::Split)),
                Some(other) => match crate::pipeline::decompile::Lang::parse(other) {
                    Some(lang) => Ok(Action::ViewLang(lang)),
                    None => Err(
                        ":view takes ir, spirv, diff, split, glsl, hlsl, msl or wgsl".into(),
                    ),
                },
                None => Err(":view takes ir, spirv, diff, split, glsl, hlsl, msl or wgsl".into()),
            },
            print: |a| match a {
                Action::View(m) => Some(format!(" {}", m.name())),
                Action::ViewLang(l) => Some(format!(" {}", l.name())),
                _ => None,
            },
        },
    },
    Command {
        name: "func",
        aliases: &[],
        usage: &[(
            "func NAME",
            "show one function across all steps (:func alone: all)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Func(
                arg.map(|a| a.trim_start_matches('%').to_string()),
            )),
            print: |a| match a {
                Action::Func(None) => Some(String::new()),
                Action::Func(Some(n)) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "find",
        aliases: &[],
        usage: &[(
            "find TEXT",
            "search (like /)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Find(
                arg.ok_or(":find needs text to search for")?.to_string(),
            )),
            print: |a| match a {
                Action::Find(t) => Some(format!(" {t}")),
                _ => None,
            },
        },
    },
    Command {
        name: "goto",
        aliases: &[],
        usage: &[(
            "goto N",
            "go to line N (also :N)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| {
                let a = arg.ok_or(":goto needs a line number")?;
                let n: usize = a
                    .parse()
                    .map_err(|_| format!("'{a}' is not a line number"))?;
                Ok(Action::Goto(n))
            },
            print: |a| match a {
                Action::Goto(n) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "hide-unchanged",
        aliases: &[],
        usage: &[(
            "hide-unchanged on|off",
            "list only steps that changed something",
        )],
        complete: Complete::OnOff,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::HideUnchanged(on_off(arg)?)),
            print: |a| match a {
                Action::HideUnchanged(v) => Some(on_off_text(*v).into()),
                _ => None,
            },
        },
    },
    Command {
        name: "ignore-renumbering",
        aliases: &[],
        usage: &[(
            "ignore-renumbering on|off",
            "diffs hide lines that only renumber ids",
        )],
        complete: Complete::OnOff,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::IgnoreRenumbering(on_off(arg)?)),
            print: |a| match a {
                Action::IgnoreRenumbering(v) => Some(on_off_text(*v).into()),
                _ => None,
            },
        },
    },
    Command {
        name: "write",
        aliases: &["w", "w!", "write!"],
        usage: &[(
            "write[!] PATH",
            "write the selected step as a SPIR-V binary (lifted out of the dialect); ! replaces a file",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |cmd, arg| Ok(Action::Write(
                PathBuf::from(arg.ok_or(":write needs a file path")?),
                cmd.ends_with('!'),
            )),
            print: |a| match a {
                Action::Write(p, false) => Some(format!(" {}", p.display())),
                Action::Write(p, true) => Some(format!("! {}", p.display())),
                _ => None,
            },
        },
    },
    Command {
        name: "mark",
        aliases: &[],
        usage: &[(
            "mark",
            "use the selected step as diff base",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Mark),
    },
    Command {
        name: "bisect",
        aliases: &[],
        usage: &[(
            "bisect",
            "spirv-val every step; select the first invalid one",
        ),
        (
            "bisect run [--oracle O] [FILE]",
            "run the shader after every step (buffers from FILE); select the first that computes otherwise, naming its first differing value. O: interp, driver or both; default: the interpreter where it agrees with Vulkan on the input",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| match arg.map(str::trim) {
                None | Some("") => Ok(Action::Bisect),
                Some("run") => Ok(Action::BisectRun(None, Default::default())),
                Some(a) if a.starts_with("run ") => parse_bisect_run(a["run ".len()..].trim()),
                Some(other) => Err(format!(":bisect takes nothing or run, not '{other}'")),
            },
            print: |a| match a {
                Action::Bisect => Some(String::new()),
                Action::BisectRun(data, oracle) => {
                    let mut s = String::from(" run");
                    if *oracle != Default::default() {
                        s.push_str(&format!(" --oracle {oracle}"));
                    }
                    if let Some(p) = data {
                        s.push_str(&format!(" {}", p.display()));
                    }
                    Some(s)
                }
                _ => None,
            },
        },
    },
    Command {
        name: "reduce",
        aliases: &[],
        usage: &[(
            "reduce [PROPERTY]",
            "the smallest shader still showing what the bisect found (or invalid|differs|crash|fails at this step, or 'COMMAND'); Esc stops",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Reduce(
                arg.map(|a| a.trim().trim_matches('\'').to_string())
                    .filter(|a| !a.is_empty()),
            )),
            print: |a| match a {
                Action::Reduce(None) => Some(String::new()),
                Action::Reduce(Some(p)) => Some(format!(" {p}")),
                _ => None,
            },
        },
    },
    Command {
        name: "history",
        aliases: &[],
        usage: &[(
            "history",
            "the selected value's history across the steps, listed under the code",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::History),
    },
    Command {
        name: "uses",
        aliases: &[],
        usage: &[(
            "uses",
            "the selected value's uses, listed under the code",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Uses),
    },
    Command {
        name: "lost",
        aliases: &[],
        usage: &[(
            "lost",
            "the source lines the selected step no longer has code for, with the code that went",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Lost),
    },
    Command {
        name: "messages",
        aliases: &["mes"],
        usage: &[(
            "messages",
            "every message said so far, whole (long ones are cut in the status bar), newest first",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Messages),
    },
    Command {
        name: "sources",
        aliases: &[],
        usage: &[(
            "sources",
            "the source files of the step (#includes too), where each was found; Enter shows one",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Sources),
    },
    Command {
        name: "bands",
        aliases: &[],
        usage: &[(
            "bands on|off",
            "colour bands per source line in the code and source panes, as Compiler Explorer draws them",
        )],
        complete: Complete::OnOff,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Bands(on_off(arg)?)),
            print: |a| match a {
                Action::Bands(v) => Some(on_off_text(*v).into()),
                _ => None,
            },
        },
    },
    Command {
        name: "source",
        aliases: &[],
        usage: &[(
            "source on|off",
            "the source pane: the source line of the instruction at the cursor (alone: toggle)",
        )],
        complete: Complete::OnOff,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::SourcePane(on_off(arg)?)),
            print: |a| match a {
                Action::SourcePane(v) => Some(on_off_text(*v).into()),
                _ => None,
            },
        },
    },
    Command {
        name: "pressure",
        aliases: &[],
        usage: &[(
            "pressure on|off",
            "the pressure gutter: 32-bit components live after each line, by heat, the peak marked ▲ (alone: toggle)",
        )],
        complete: Complete::OnOff,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Pressure(on_off(arg)?)),
            print: |a| match a {
                Action::Pressure(v) => Some(on_off_text(*v).into()),
                _ => None,
            },
        },
    },
    Command {
        name: "exec",
        aliases: &[],
        usage: &[
            (
                "exec",
                "the values column: run the selected step on the interpreter and show what each line computed for one invocation (again: hide)",
            ),
            ("exec on|off", "show or hide the values column"),
            ("exec hex|dec", "values in hex, or as numbers"),
        ],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| {
                Ok(Action::Exec(match arg.map(str::trim) {
                    None | Some("") => ExecArg::Toggle,
                    Some("on") => ExecArg::Shown(true),
                    Some("off") => ExecArg::Shown(false),
                    Some("hex") => ExecArg::Hex(true),
                    Some("dec") => ExecArg::Hex(false),
                    Some(other) => {
                        return Err(format!(
                            ":exec takes nothing, on, off, hex or dec, not '{other}'"
                        ))
                    }
                }))
            },
            print: |a| match a {
                Action::Exec(ExecArg::Toggle) => Some(String::new()),
                Action::Exec(ExecArg::Shown(on)) => Some(on_off_text(Some(*on)).into()),
                Action::Exec(ExecArg::Hex(true)) => Some(" hex".into()),
                Action::Exec(ExecArg::Hex(false)) => Some(" dec".into()),
                _ => None,
            },
        },
    },
    Command {
        name: "first-difference",
        aliases: &["fd"],
        usage: &[(
            "first-difference [STEP | INPUT]",
            "run the selected step and another on the interpreter and go to the first value that differs, both values beside it: the step before, a step by number or pass name, or the same step of another open input",
        )],
        complete: Complete::Steps,
        form: Form::Args {
            parse: |_cmd, arg| {
                Ok(Action::FirstDifference(
                    arg.map(str::trim).filter(|a| !a.is_empty()).map(String::from),
                ))
            },
            print: |a| match a {
                Action::FirstDifference(None) => Some(String::new()),
                Action::FirstDifference(Some(x)) => Some(format!(" {x}")),
                _ => None,
            },
        },
    },
    Command {
        name: "trace",
        aliases: &[],
        usage: &[
            (
                "trace",
                "step through the execution of the invocation shown: the values as they stood after each result, the cursor on its line (again: stop)",
            ),
            (
                "trace next|prev|over|out|again|cursor",
                "the next or previous result (into calls); the next of this call (over the calls it makes); the next after it returns; the next time this line runs (its loop's next iteration); on to the line under the cursor",
            ),
        ],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| {
                Ok(Action::Exec(ExecArg::Trace(match arg.map(str::trim) {
                    None | Some("") => TraceMove::Toggle,
                    Some("next") => TraceMove::Next,
                    Some("prev") => TraceMove::Prev,
                    Some("again") => TraceMove::Again,
                    Some("over") => TraceMove::Over,
                    Some("out") => TraceMove::Out,
                    Some("cursor") => TraceMove::ToCursor,
                    Some(other) => {
                        return Err(format!(
                            ":trace takes nothing, next, prev, over, out, again or cursor, not '{other}'"
                        ))
                    }
                })))
            },
            print: |a| match a {
                Action::Exec(ExecArg::Trace(m)) => Some(
                    match m {
                        TraceMove::Toggle => "",
                        TraceMove::Next => " next",
                        TraceMove::Prev => " prev",
                        TraceMove::Again => " again",
                        TraceMove::Over => " over",
                        TraceMove::Out => " out",
                        TraceMove::ToCursor => " cursor",
                    }
                    .into(),
                ),
                _ => None,
            },
        },
    },
    Command {
        name: "locals",
        aliases: &[],
        usage: &[(
            "locals",
            "the source variables of the function at the cursor (debug builds) and their values where the values column stands, stepping too",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Locals),
    },
    Command {
        name: "invocation",
        aliases: &[],
        usage: &[(
            "invocation X,Y,Z",
            "show the values of this invocation of a dispatch (opens the values column)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| who("invocation", arg),
            print: |a| match a {
                Action::Exec(ExecArg::Who(Chosen::Invocation([x, y, z]))) => {
                    Some(format!(" {x},{y},{z}"))
                }
                _ => None,
            },
        },
    },
    Command {
        name: "pixel",
        aliases: &[],
        usage: &[(
            "pixel X,Y",
            "show the values of the fragment at this pixel of a draw (opens the values column)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| who("pixel", arg),
            print: |a| match a {
                Action::Exec(ExecArg::Who(Chosen::Pixel(x, y))) => Some(format!(" {x},{y}")),
                _ => None,
            },
        },
    },
    Command {
        name: "vertex",
        aliases: &[],
        usage: &[(
            "vertex N",
            "show the values of this vertex of a draw (opens the values column)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| who("vertex", arg),
            print: |a| match a {
                Action::Exec(ExecArg::Who(Chosen::Vertex(n))) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "cost",
        aliases: &[],
        usage: &[(
            "cost",
            "the cost pane: the step's instruction mix against its base step's, and a chart over the steps",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::CostPane),
    },
    Command {
        name: "peak",
        aliases: &[],
        usage: &[(
            "peak",
            "go to the instruction after which the step's pressure peaks (the gutter marks it ▲)",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Peak),
    },
    Command {
        name: "live",
        aliases: &[],
        usage: &[(
            "live",
            "the values live after the cursor's instruction, heaviest first (Enter on a peak line too)",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Live),
    },
    Command {
        name: "filter",
        aliases: &[],
        usage: &[(
            "filter [TEXT]",
            "list only the shaders whose names contain TEXT (/ in the browser; alone: all)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Filter(arg.unwrap_or("").trim().to_string())),
            print: |a| match a {
                Action::Filter(t) if t.is_empty() => Some(String::new()),
                Action::Filter(t) => Some(format!(" {t}")),
                _ => None,
            },
        },
    },
    Command {
        name: "sort",
        aliases: &[],
        usage: &[(
            "sort [name|status|size|time]",
            "order the shaders of each folder: by name, failing first, largest or slowest first (alone: the next order)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| match arg.map(str::trim) {
                None | Some("") => Ok(Action::Sort(None)),
                Some(a) => crate::app::state::SortBy::parse(a)
                    .map(|s| Action::Sort(Some(s)))
                    .ok_or_else(|| format!(":sort takes name, status, size or time (got '{a}')")),
            },
            print: |a| match a {
                Action::Sort(None) => Some(String::new()),
                Action::Sort(Some(s)) => Some(format!(" {}", s.name())),
                _ => None,
            },
        },
    },
    Command {
        name: "shader",
        aliases: &["open"],
        usage: &[(
            "shader NAME",
            "select the shader whose name contains NAME (also :open)",
        )],
        complete: Complete::Shaders,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Shader(
                arg.ok_or(":shader needs (part of) a shader's name")?
                    .to_string(),
            )),
            print: |a| match a {
                Action::Shader(n) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "diff-prev",
        aliases: &[],
        usage: &[(
            "diff-prev",
            "diff against this step of the previous run (what the last save changed)",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::DiffPrev),
    },
    Command {
        name: "diff-input",
        aliases: &[],
        usage: &[(
            "diff-input [NAME|off]",
            "diff against this step of another input (alone: the one this was reduced from)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::DiffInput(arg.map(str::to_string))),
            print: |a| match a {
                Action::DiffInput(None) => Some(String::new()),
                Action::DiffInput(Some(name)) => Some(format!(" {name}")),
                _ => None,
            },
        },
    },
    Command {
        name: "first-change",
        aliases: &[],
        usage: &[(
            "first-change",
            "go to the first line the selected pass changed",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::FirstChange),
    },
    Command {
        name: "split",
        aliases: &[],
        usage: &[(
            "split [N|+N|-N]",
            "the left column N wide, or wider or narrower by N (alone: as the screen makes it; + and - too, or drag its edge)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| {
                let to = match arg.map(str::trim) {
                    None | Some("") => SplitTo::Default,
                    Some(a) => {
                        let bad = || format!(":split takes a width, +N or -N, not '{a}'");
                        if a.starts_with(['+', '-']) {
                            SplitTo::By(a.parse().map_err(|_| bad())?)
                        } else {
                            SplitTo::At(a.parse().map_err(|_| bad())?)
                        }
                    }
                };
                Ok(Action::Split(to))
            },
            print: |a| match a {
                Action::Split(SplitTo::Default) => Some(String::new()),
                Action::Split(SplitTo::At(n)) => Some(format!(" {n}")),
                Action::Split(SplitTo::By(n)) => Some(format!(" {n:+}")),
                _ => None,
            },
        },
    },
    Command {
        name: "compare-step",
        aliases: &[],
        usage: &[(
            "compare-step N",
            "move the compared step the diff is against by N (:compare first)",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| {
                let a = arg.ok_or(":compare-step needs a count (1, -1)")?;
                let n: isize = a.parse().map_err(|_| format!("'{a}' is not a count"))?;
                Ok(Action::CompareStep(n))
            },
            print: |a| match a {
                Action::CompareStep(n) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "link",
        aliases: &[],
        usage: &[(
            "link",
            "the link view: the interface between linked stages (--pipeline)",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::LinkView),
    },
    Command {
        name: "driver",
        aliases: &[],
        usage: &[(
            "driver nir|llvm|asm|stats",
            "each step as the Vulkan driver compiled it (lavapipe 25: --driver), diffs in it too",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| match crate::pipeline::driver_code::Show::parse(arg.unwrap_or("asm")) {
                Some(show) => Ok(Action::ViewDriver(show)),
                None => Err(":driver takes nir, llvm, asm or stats".into()),
            },
            print: |a| match a {
                Action::ViewDriver(show) => Some(format!(" {}", show.name())),
                _ => None,
            },
        },
    },
    Command {
        name: "cfg",
        aliases: &[],
        usage: &[
            (
                "cfg",
                "the control-flow graph of the function at the cursor, at the selected step (again: the code)",
            ),
            ("cfg diff", "the graph against the base step's: blocks and edges added, removed, changed"),
            ("cfg compact", "boxes of two rows, or of three and four"),
            ("cfg fold", "fold the selected loop or selection into its header, or unfold it"),
            ("cfg goto", "the selected block in the code"),
            ("cfg off", "the code again"),
        ],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| {
                Ok(Action::Cfg(match arg {
                    None => CfgArg::Toggle,
                    Some("off") => CfgArg::Off,
                    Some("diff") => CfgArg::Diff,
                    Some("compact") => CfgArg::Compact,
                    Some("fold") => CfgArg::Fold,
                    Some("goto") => CfgArg::Goto,
                    Some(other) => {
                        return Err(format!(
                            ":cfg takes diff, compact, fold, goto or off, not '{other}'"
                        ))
                    }
                }))
            },
            print: |a| match a {
                Action::Cfg(arg) => Some(
                    match arg {
                        CfgArg::Toggle => "",
                        CfgArg::Off => " off",
                        CfgArg::Diff => " diff",
                        CfgArg::Compact => " compact",
                        CfgArg::Fold => " fold",
                        CfgArg::Goto => " goto",
                    }
                    .into(),
                ),
                _ => None,
            },
        },
    },
    Command {
        name: "columns",
        aliases: &[],
        usage: &[
            (
                "columns N",
                "the function at the cursor in N consecutive steps side by side, rows aligned by value",
            ),
            ("columns off", "the code again"),
        ],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| match arg {
                None | Some("off") => Ok(Action::Columns(None)),
                Some(n) => match n.parse::<usize>() {
                    Ok(n) if (2..=8).contains(&n) => Ok(Action::Columns(Some(n))),
                    _ => Err(format!(":columns takes a number of steps from 2 to 8, or off, not '{n}'")),
                },
            },
            print: |a| match a {
                Action::Columns(Some(n)) => Some(format!(" {n}")),
                Action::Columns(None) => Some(" off".into()),
                _ => None,
            },
        },
    },
    Command {
        name: "link-jump",
        aliases: &[],
        usage: &[(
            "link-jump writer|reader",
            "from the link view's row to its variable in the stage that writes or reads it",
        )],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| match arg {
                Some("writer") | None => Ok(Action::LinkJump(false)),
                Some("reader") => Ok(Action::LinkJump(true)),
                Some(other) => Err(format!(":link-jump takes writer or reader, not '{other}'")),
            },
            print: |a| match a {
                Action::LinkJump(false) => Some(" writer".into()),
                Action::LinkJump(true) => Some(" reader".into()),
                _ => None,
            },
        },
    },
    Command {
        name: "edit",
        aliases: &[],
        usage: &[(
            "edit",
            "open $VISUAL/$EDITOR at the source line of the instruction at the cursor",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::EditSource),
    },
    Command {
        name: "source-caller",
        aliases: &[],
        usage: &[(
            "source-caller",
            "source pane on inlined code: the line it was called from (again: further out)",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::SourceCaller),
    },
    Command {
        name: "op-info",
        aliases: &[],
        usage: &[(
            "op-info",
            "the op table's entry for the op on the cursor line",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::OpInfo),
    },
    Command {
        name: "reload",
        aliases: &[],
        usage: &[(
            "reload",
            "read the inputs again",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Reload),
    },
    Command {
        name: "quit",
        aliases: &["q"],
        usage: &[(
            "quit",
            "leave (also :q)",
        )],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Quit),
    },
    Command {
        name: "help",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Help),
    },
    Command {
        name: "focus",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Focus),
    },
    Command {
        name: "up",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Up(count(arg)?)),
            print: |a| match a {
                Action::Up(n) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "down",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| Ok(Action::Down(count(arg)?)),
            print: |a| match a {
                Action::Down(n) => Some(format!(" {n}")),
                _ => None,
            },
        },
    },
    Command {
        name: "page-up",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PageUp),
    },
    Command {
        name: "page-down",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PageDown),
    },
    Command {
        name: "top",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Top),
    },
    Command {
        name: "bottom",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Bottom),
    },
    Command {
        name: "left",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Left),
    },
    Command {
        name: "right",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Right),
    },
    Command {
        name: "step-next",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::StepNext),
    },
    Command {
        name: "step-prev",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::StepPrev),
    },
    Command {
        name: "toggle-text",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::ToggleText),
    },
    Command {
        name: "next-hunk",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::NextHunk),
    },
    Command {
        name: "prev-hunk",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PrevHunk),
    },
    Command {
        name: "find-next",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::FindNext),
    },
    Command {
        name: "find-prev",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::FindPrev),
    },
    Command {
        name: "func-at-cursor",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::FuncAtCursor),
    },
    Command {
        name: "next-token",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::NextToken),
    },
    Command {
        name: "prev-token",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PrevToken),
    },
    Command {
        name: "definition",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Definition),
    },
    Command {
        name: "value-goto",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::ValueGoto),
    },
    Command {
        name: "value-close",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::ValueClose),
    },
    Command {
        name: "goto-diagnostic",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::GotoDiagnostic),
    },
    Command {
        name: "next-input",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::NextInput),
    },
    Command {
        name: "prev-input",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PrevInput),
    },
    Command {
        name: "next-failing",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::NextFailing(true)),
    },
    Command {
        name: "prev-failing",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::NextFailing(false)),
    },
    Command {
        name: "fold",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Fold),
    },
    Command {
        name: "unfold",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Unfold),
    },
    Command {
        name: "open-row",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Open),
    },
    Command {
        name: "scroll-right",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::ScrollRight),
    },
    Command {
        name: "scroll-left",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::ScrollLeft),
    },
    Command {
        name: "cancel",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::Cancel),
    },
    Command {
        name: "close-popup",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::ClosePopup),
    },
    Command {
        name: "command-line",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::CommandLine),
    },
    Command {
        name: "search-prompt",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::SearchPrompt),
    },
    Command {
        name: "filter-prompt",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::FilterPrompt),
    },
    Command {
        name: "prompt-insert",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |_cmd, arg| arg
                .and_then(|a| a.parse::<u32>().ok())
                .and_then(char::from_u32)
                .map(Action::PromptInsert)
                .ok_or_else(|| ":prompt-insert takes a character's code point".to_string()),
            print: |a| match a {
                // By code point: a space would not survive the command's trimming.
                Action::PromptInsert(c) => Some(format!(" {}", *c as u32)),
                _ => None,
            },
        },
    },
    Command {
        name: "prompt-backspace",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PromptBackspace),
    },
    Command {
        name: "prompt-submit",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PromptSubmit),
    },
    Command {
        name: "prompt-cancel",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PromptCancel),
    },
    Command {
        name: "prompt-history-prev",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PromptHistory(true)),
    },
    Command {
        name: "prompt-history-next",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PromptHistory(false)),
    },
    Command {
        name: "prompt-complete",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Bare(Action::PromptComplete),
    },
    Command {
        name: "click",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |cmd, arg| cell(cmd, arg).map(|(c, r)| Action::Click(c, r)),
            print: |a| match a {
                Action::Click(c, r) => Some(format!(" {c} {r}")),
                _ => None,
            },
        },
    },
    Command {
        name: "drag",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |cmd, arg| cell(cmd, arg).map(|(c, r)| Action::Drag(c, r)),
            print: |a| match a {
                Action::Drag(c, r) => Some(format!(" {c} {r}")),
                _ => None,
            },
        },
    },
    Command {
        name: "wheel-up",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |cmd, arg| cell(cmd, arg).map(|(c, r)| Action::WheelUp(c, r)),
            print: |a| match a {
                Action::WheelUp(c, r) => Some(format!(" {c} {r}")),
                _ => None,
            },
        },
    },
    Command {
        name: "wheel-down",
        aliases: &[],
        usage: &[],
        complete: Complete::Nothing,
        form: Form::Args {
            parse: |cmd, arg| cell(cmd, arg).map(|(c, r)| Action::WheelDown(c, r)),
            print: |a| match a {
                Action::WheelDown(c, r) => Some(format!(" {c} {r}")),
                _ => None,
            },
        },
    },
];

/// Default keys: in `contexts`, each of `keys` runs `command` (a command line, read by the
/// table above). One row per thing done, so its text is written once; the help lists the
/// rows of each context in this order, the keys of a row together.
pub struct DefaultKeys {
    pub contexts: &'static [Context],
    pub keys: &'static [&'static str],
    pub command: &'static str,
    pub help: &'static str,
}

const fn keys(
    context: &'static [Context],
    keys: &'static [&'static str],
    command: &'static str,
    help: &'static str,
) -> DefaultKeys {
    DefaultKeys {
        contexts: context,
        keys,
        command,
        help,
    }
}

/// The default key map. Context-specific bindings win over global ones.
pub static KEYS: &[DefaultKeys] = {
    use Context::{
        Cfg, Code, Columns, Diagnostics, Global, Help, Link, Passes, Popup, Prompt, Shaders, Values,
    };
    &[
        keys(
            &[Global],
            &["q", "<C-c>"],
            "quit",
            "quit (asks first while a bisect runs)",
        ),
        keys(&[Global], &["?"], "help", "show or hide this help"),
        keys(
            &[Global],
            &[":"],
            "command-line",
            "command line (:step :diff :func :write …)",
        ),
        keys(&[Global], &["/"], "search-prompt", "search the code pane"),
        keys(&[Global], &["n"], "find-next", "next search match"),
        keys(&[Global], &["N"], "find-prev", "previous search match"),
        keys(
            &[Global],
            &["<Tab>"],
            "focus",
            "focus shaders / pass list / code / diagnostics",
        ),
        keys(&[Global], &["J", "<C-n>"], "step-next", "next step"),
        keys(&[Global], &["K", "<C-p>"], "step-prev", "previous step"),
        keys(
            &[Global],
            &["m"],
            "mark",
            "mark the selected step as diff base",
        ),
        keys(
            &[Global],
            &["d"],
            "view diff",
            "diff selected step against base",
        ),
        keys(&[Global], &["D"], "view split", "diff side by side"),
        keys(&[Global], &["i"], "view ir", "IR text view"),
        keys(&[Global], &["s"], "view spirv", "SPIR-V disassembly view"),
        keys(
            &[Global],
            &["t"],
            "toggle-text",
            "toggle IR / SPIR-V text (in diffs too)",
        ),
        keys(
            &[Global],
            &["X"],
            "exec",
            "values column: what each line computed (interpreter)",
        ),
        keys(
            &[Global],
            &["."],
            "trace next",
            "step through the execution: next result",
        ),
        keys(
            &[Global],
            &[","],
            "trace prev",
            "step through the execution: previous result",
        ),
        keys(
            &[Global],
            &[";"],
            "trace again",
            "step on to the next time this line runs",
        ),
        keys(&[Global], &["}"], "next-hunk", "next change"),
        keys(&[Global], &["{"], "prev-hunk", "previous change"),
        keys(
            &[Global],
            &["r"],
            "ignore-renumbering",
            "diffs: ignore renumbered ids",
        ),
        keys(
            &[Global],
            &["H"],
            "hide-unchanged",
            "hide steps that changed nothing",
        ),
        keys(
            &[Global],
            &["f"],
            "func-at-cursor",
            "only the function at the cursor / all",
        ),
        keys(&[Global], &["]"], "next-input", "next shader"),
        keys(&[Global], &["["], "prev-input", "previous shader"),
        keys(
            &[Global],
            &["p"],
            "diff-prev",
            "diff against this step of the previous run (after a reload)",
        ),
        keys(
            &[Global],
            &["("],
            "compare-step -1",
            "compared pipeline: diff against its step before",
        ),
        keys(
            &[Global],
            &[")"],
            "compare-step 1",
            "compared pipeline: diff against its next step",
        ),
        keys(&[Global], &[">"], "scroll-right", "scroll the code right"),
        keys(&[Global], &["<lt>"], "scroll-left", "scroll the code left"),
        keys(&[Global], &["R"], "reload", "reload inputs from disk"),
        keys(
            &[Global],
            &["+"],
            "split +4",
            "widen the left column (or drag its edge)",
        ),
        keys(&[Global], &["-"], "split -4", "narrow the left column"),
        keys(
            &[Global],
            &["<C-d>", "<PageDown>"],
            "page-down",
            "page down",
        ),
        keys(&[Global], &["<C-u>", "<PageUp>"], "page-up", "page up"),
        keys(&[Global], &["g", "<Home>"], "top", "top"),
        keys(&[Global], &["G", "<End>"], "bottom", "bottom"),
        keys(&[Global], &["j", "<Down>"], "down 1", "down"),
        keys(&[Global], &["k", "<Up>"], "up 1", "up"),
        keys(
            &[Passes],
            &["<Enter>"],
            "first-change",
            "first change of this pass",
        ),
        keys(
            &[Code],
            &["l", "<Right>"],
            "next-token",
            "select next id on the line",
        ),
        keys(
            &[Code],
            &["h", "<Left>"],
            "prev-token",
            "select previous id on the line",
        ),
        keys(
            &[Code],
            &["<Enter>"],
            "definition",
            "go to the definition of the selected id",
        ),
        keys(
            &[Code],
            &["u"],
            "uses",
            "uses of the selected id: listed below, n/N walk them",
        ),
        keys(
            &[Code],
            &["y"],
            "history",
            "history of the selected id across the passes",
        ),
        // `o` for op: J and K step in every pane, as the status bar and help say.
        keys(
            &[Code],
            &["o"],
            "op-info",
            "the op table's entry for this line's op",
        ),
        keys(
            &[Shaders],
            &["<Enter>"],
            "open-row",
            "fold or unfold the folder / show this shader's passes",
        ),
        keys(
            &[Shaders],
            &["h", "<Left>"],
            "fold",
            "fold the folder (on a shader: go to its folder)",
        ),
        keys(&[Shaders], &["l", "<Right>"], "unfold", "unfold the folder"),
        keys(&[Shaders], &["]"], "next-failing", "next failing shader"),
        keys(
            &[Shaders],
            &["["],
            "prev-failing",
            "previous failing shader",
        ),
        keys(
            &[Shaders],
            &["o"],
            "sort",
            "order by name, status, size, time",
        ),
        keys(
            &[Shaders],
            &["/"],
            "filter-prompt",
            "list only the shaders named like what is typed (!: failing ones; Esc: all)",
        ),
        keys(
            &[Global],
            &["L"],
            "link",
            "link view: the stage interface table (--pipeline)",
        ),
        keys(
            &[Global],
            &["P"],
            "pressure",
            "pressure gutter: live components after each line (Enter on the ▲ peak: what is live)",
        ),
        keys(
            &[Global],
            &["S"],
            "source",
            "source pane: the source line of the instruction at the cursor",
        ),
        keys(
            &[Global],
            &["e"],
            "edit",
            "open $EDITOR at the source line of the instruction at the cursor",
        ),
        keys(
            &[Global],
            &["c"],
            "source-caller",
            "source pane: the line inlined code was called from (again: further out)",
        ),
        keys(
            &[Global],
            &["C"],
            "cfg",
            "control-flow graph of the function at the cursor (again: the code)",
        ),
        keys(
            &[Cfg],
            &["<Enter>"],
            "cfg goto",
            "the selected block in the code",
        ),
        keys(
            &[Cfg],
            &["d"],
            "cfg diff",
            "the graph against the base step's (again: not)",
        ),
        keys(
            &[Cfg],
            &["c"],
            "cfg compact",
            "boxes of two rows (again: taller)",
        ),
        keys(
            &[Cfg],
            &["<Space>", "z"],
            "cfg fold",
            "fold the selected loop or selection into its header (again: unfold)",
        ),
        keys(&[Cfg], &["x", "<Esc>"], "cfg off", "close the graph"),
        keys(
            &[Columns],
            &["x", "<Esc>"],
            "columns off",
            "close the columns",
        ),
        keys(
            &[Cfg],
            &["l", "<Right>"],
            "scroll-right",
            "scroll the graph right",
        ),
        keys(
            &[Cfg],
            &["h", "<Left>"],
            "scroll-left",
            "scroll the graph left",
        ),
        keys(
            &[Link],
            &["<Enter>"],
            "link-jump writer",
            "jump to the variable in the earlier stage (writer)",
        ),
        keys(
            &[Link],
            &["o"],
            "link-jump reader",
            "jump to the variable in the later stage (reader)",
        ),
        keys(
            &[Diagnostics],
            &["<Enter>"],
            "goto-diagnostic",
            "go to the instruction it is about",
        ),
        keys(
            &[Values],
            &["<Enter>"],
            "value-goto",
            "go to the use, or to the step with the value selected",
        ),
        keys(&[Values], &["x"], "value-close", "close the list"),
        keys(
            &[Global],
            &["<Esc>"],
            "cancel",
            "clear the search and the message",
        ),
        keys(&[Help], &["<Esc>", "q", "?"], "help", "close the help"),
        keys(
            &[Popup],
            &["<Esc>", "q", "o", "<Enter>"],
            "close-popup",
            "close the box",
        ),
        keys(
            &[Prompt],
            &["<Enter>"],
            "prompt-submit",
            "run the command or search",
        ),
        keys(
            &[Prompt],
            &["<Esc>", "<C-c>"],
            "prompt-cancel",
            "leave the prompt",
        ),
        keys(
            &[Prompt],
            &["<Up>"],
            "prompt-history-prev",
            "the command before (history)",
        ),
        keys(
            &[Prompt],
            &["<Down>"],
            "prompt-history-next",
            "the command after (history)",
        ),
        keys(
            &[Prompt],
            &["<Tab>"],
            "prompt-complete",
            "complete: commands, pass names, steps, presets, shaders",
        ),
        keys(
            &[Prompt],
            &["<BS>"],
            "prompt-backspace",
            "delete the last character (leaves when empty)",
        ),
        // The help and information boxes scroll alike.
        keys(&[Help, Popup], &["j", "<Down>"], "down 1", "scroll down"),
        keys(&[Help, Popup], &["k", "<Up>"], "up 1", "scroll up"),
        keys(
            &[Help, Popup],
            &["<C-d>", "<PageDown>"],
            "page-down",
            "page down",
        ),
        keys(&[Help, Popup], &["<C-u>", "<PageUp>"], "page-up", "page up"),
        keys(&[Help, Popup], &["g", "<Home>"], "top", "to the top"),
        keys(&[Help, Popup], &["G", "<End>"], "bottom", "to the end"),
    ]
};
