//! The interestingness test: what makes a candidate interesting (`Property`), at which step,
//! and how a candidate is judged — in this process, on a thread of its own (`Judge`), or on
//! the driver's worker; `prepare` finds the step and checks the input has the property.

use std::sync::Arc;

use crate::pipeline::external::{spirv_val_with, target_env, Validation};
use crate::pipeline::gpu::Device;
use crate::pipeline::semantic::{self, pass_steps, Feed, Finding};
use crate::pipeline::validate::{check_step, StepCheck};
use crate::pipeline::{Pipeline, Run};

/// What makes a candidate interesting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    /// The step's output is rejected by spirv-val.
    Invalid,
    /// The step's results differ from its input's on the driver.
    Differs,
    /// The driver crashes or hangs on the step's output.
    Crash,
    /// The step's pass fails with the same diagnostic.
    Fails,
    /// A command, given the candidate's path last, exits 0.
    Command(String),
}

impl std::str::FromStr for Property {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "invalid" => Property::Invalid,
            "differs" => Property::Differs,
            "crash" => Property::Crash,
            "fails" => Property::Fails,
            "" => return Err("an empty property".into()),
            command => Property::Command(command.to_string()),
        })
    }
}

/// The interestingness test: the property, at which step of the pipeline.
#[derive(Clone)]
pub struct Test<'a> {
    pub pipeline: &'a Pipeline,
    pub property: Property,
    /// The pass step (0 is the first pass) the property is about; none for a command.
    pub step: Option<usize>,
    /// That step's pass, by name.
    pub pass: Option<&'static str>,
    /// For `fails`: the error the pass fails with on the input.
    pub error: Option<String>,
    pub gpu: Option<&'a dyn Device>,
    /// The SPIR-V environment candidates are validated in, and the block layout rules the
    /// input needs (`--scalar-block-layout`…).
    pub env: String,
    pub layout: Option<&'static str>,
    /// Where a command's candidates are written.
    pub scratch: std::path::PathBuf,
    /// `differs` judged on the interpreter, where it agrees with the driver on the input and
    /// finds the property there as the driver does: no driver compile per candidate, and
    /// candidates judged on all cores. The driver confirms the result (`reduce`).
    pub interpreter: bool,
    /// Who judges candidates and why, in words, for a property that needs the driver.
    pub oracle: Option<String>,
    /// The interpreter's budget for a candidate's run (`budget_for`).
    pub budget: Option<u64>,
    /// A draw judged on the interpreter: only the quads of these pixels, where the input's
    /// step differs (`quads_where_differs`), are drawn.
    pub quads_of: Option<[[u32; 2]; 4]>,
}

/// Which step `which` names in `run`: a pass number, or the first step of a pass of that
/// name.
pub fn step_named(run: &Run, which: &str) -> Result<usize, String> {
    let steps = pass_steps(run);
    if let Ok(k) = which.parse::<usize>() {
        return if k < steps.len() {
            Ok(k)
        } else {
            Err(format!(
                "there is no step {k}: the pipeline has {} steps",
                steps.len()
            ))
        };
    }
    steps
        .iter()
        .position(|&i| run.steps[i].pass == which)
        .ok_or_else(|| {
            let mut names: Vec<&str> = steps.iter().map(|&i| run.steps[i].pass).collect();
            names.dedup();
            format!(
                "the pipeline has no pass '{which}' (it runs: {})",
                names.join(", ")
            )
        })
}

impl Test<'_> {
    /// Whether `words` still have the property (they are valid SPIR-V: checked before).
    pub fn holds(&self, words: &[u32]) -> Result<bool, String> {
        match self.judge() {
            Some(judge) => judge.holds(words, &self.scratch),
            None => self.holds_on_driver(words),
        }
    }

    /// What judges candidates off the main thread: all but the properties that need the
    /// driver (one worker process, asked in turn).
    pub(super) fn judge(&self) -> Option<Judge<'_>> {
        let driver = match self.property {
            Property::Differs => !self.interpreter,
            Property::Crash => true,
            _ => false,
        };
        (!driver).then_some(Judge {
            pipeline: self.pipeline,
            property: &self.property,
            step: self.step,
            error: self.error.as_deref(),
            env: &self.env,
            layout: self.layout,
            budget: self.budget,
            quads_of: self.quads_of,
        })
    }

    /// Whether `words` have the property on the driver, whoever judges the candidates.
    pub(super) fn holds_on_driver(&self, words: &[u32]) -> Result<bool, String> {
        let run = self.pipeline.run(Arc::new(words.to_vec()));
        let k = self
            .step
            .ok_or("the property is about a step, and none is named")?;
        if pass_steps(&run).get(k).is_none() {
            // The pipeline stopped before the step: a pass failed earlier.
            return Ok(false);
        }
        let gpu = self
            .gpu
            .ok_or("the property needs a Vulkan driver, and none is open")?;
        // This step and the one before: the difference must begin at this one.
        // On the driver, as the property is stated.
        let feed = Feed {
            window: Some((k.saturating_sub(1), k)),
            oracle: semantic::Oracle::Driver,
            ..Feed::default()
        };
        Ok(match semantic::bisect(gpu, &[&run], feed, &|| false) {
            Ok(b) => b.first.is_some_and(|d| {
                d.pass_index == k
                    && match self.property {
                        Property::Differs => d.finding == Finding::Differs,
                        _ => matches!(d.finding, Finding::Crashes | Finding::Hangs),
                    }
            }),
            // The candidate no longer runs at all (its input fails): not it.
            Err(_) => false,
        })
    }

    /// Whether spirv-val accepts `words`.
    pub(super) fn valid(&self, words: &[u32]) -> Result<bool, String> {
        valid_under(words, &self.env, self.layout)
    }
}

/// Whether spirv-val accepts `words` in `env` under the block `layout` rules.
pub(super) fn valid_under(words: &[u32], env: &str, layout: Option<&str>) -> Result<bool, String> {
    let options: Vec<&str> = layout.into_iter().collect();
    Ok(matches!(
        spirv_val_with(words, env, &options)?,
        Validation::Valid
    ))
}

/// A `Test` without the driver: it judges candidates on any thread.
pub(super) struct Judge<'a> {
    pipeline: &'a Pipeline,
    property: &'a Property,
    step: Option<usize>,
    error: Option<&'a str>,
    env: &'a str,
    layout: Option<&'static str>,
    budget: Option<u64>,
    quads_of: Option<[[u32; 2]; 4]>,
}

impl Judge<'_> {
    fn holds(&self, words: &[u32], scratch: &std::path::Path) -> Result<bool, String> {
        if let Property::Command(command) = self.property {
            return run_command(command, words, scratch);
        }
        let run = self.pipeline.run(Arc::new(words.to_vec()));
        let k = self
            .step
            .ok_or("the property is about a step, and none is named")?;
        let Some(&i) = pass_steps(&run).get(k) else {
            return Ok(false);
        };
        Ok(match self.property {
            Property::Invalid => {
                run.failed.is_none_or(|f| f > i)
                    && matches!(check_step(&run.steps[i].module)?, StepCheck::Invalid { .. })
            }
            Property::Fails => run.failed == Some(i) && run.steps[i].error.as_deref() == self.error,
            Property::Differs => {
                // This step and the one before, as the driver's question is put, with no
                // difference that hangs on undefined values (the driver may compute those
                // alike).
                let feed = Feed {
                    window: Some((k.saturating_sub(1), k)),
                    oracle: semantic::Oracle::Interp,
                    undefined_same: true,
                    budget: self.budget,
                    quads_of: self.quads_of,
                    ..Feed::default()
                };
                let no_driver = || Err("candidates are judged on the interpreter".to_string());
                semantic::bisect_with(&no_driver, &[&run], feed, &|| false).is_ok_and(|b| {
                    b.first
                        .is_some_and(|d| d.pass_index == k && d.finding == Finding::Differs)
                })
            }
            _ => false,
        })
    }

    /// Valid and interesting. A command sees only valid candidates (a script may make no
    /// sense of others); the properties judged here come first otherwise, since most
    /// candidates lose them and spirv-val costs a process each.
    pub(super) fn accepts(&self, words: &[u32], scratch: &std::path::Path) -> Result<bool, String> {
        let valid = || valid_under(words, self.env, self.layout);
        let command = matches!(self.property, Property::Command(_));
        if command && !valid()? {
            return Ok(false);
        }
        Ok(self.holds(words, scratch)? && (command || valid()?))
    }
}

/// Runs `command` on the candidate, written to `path`: whether it exits 0.
pub(super) fn run_command(
    command: &str,
    words: &[u32],
    path: &std::path::Path,
) -> Result<bool, String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let status = |mut run: std::process::Command| {
        run.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
    };
    let status = match status(command_for(command, path)) {
        // A script without a `#!` line: the shell runs it, as spirv-reduce's would be.
        Err(e) if e.raw_os_error() == Some(ENOEXEC) => status(through_shell(command, path)),
        other => other,
    }
    .map_err(|e| format!("cannot run '{command}': {e}"))?;
    Ok(status.success())
}

/// "Exec format error": a file that is not a program the kernel can start.
const ENOEXEC: i32 = 8;

/// The process that runs `command` on `path`. A command that names the file as `$1` gets it
/// there, through the shell; otherwise the path is its last argument — given to the command
/// itself when it is plain words (a process fewer per candidate, which is much of a
/// candidate's cost), else to a shell that runs it as written.
pub(super) fn command_for(command: &str, path: &std::path::Path) -> std::process::Command {
    let plain =
        |c: char| c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || "_./=,:+-@%".contains(c);
    let mut words = command.split_ascii_whitespace();
    match words.next() {
        Some(program) if command.chars().all(plain) && !program.contains('=') => {
            let mut run = std::process::Command::new(program);
            run.args(words).arg(path);
            run
        }
        _ => through_shell(command, path),
    }
}

/// `command` run by `sh` with the candidate as `$1`, appended when the command does not use
/// `$1` itself.
fn through_shell(command: &str, path: &std::path::Path) -> std::process::Command {
    let uses_arg = command.contains("$1") || command.contains("${1");
    let script = if uses_arg {
        command.to_string()
    } else {
        format!("{command} \"$1\"")
    };
    let mut run = std::process::Command::new("sh");
    run.arg("-c").arg(script).arg("sh").arg(path);
    run
}

/// How `command` is run on `path`, as a shell would write it: for messages.
pub fn command_line(command: &str, path: &std::path::Path) -> String {
    let run = command_for(command, path);
    std::iter::once(run.get_program())
        .chain(run.get_args())
        .map(|a| {
            let a = a.to_string_lossy();
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./=,:+-@%".contains(c))
            {
                a.into_owned()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `Test` for `property` on `words`: the step it is about found (named by `step`, else
/// by the bisect that finds such a step), and checked to hold on the input. Errors say why
/// no reduction can start.
pub fn prepare<'a>(
    pipeline: &'a Pipeline,
    property: Property,
    step: Option<&str>,
    words: &[u32],
    gpu: Option<&'a dyn Device>,
    scratch: std::path::PathBuf,
) -> Result<Test<'a>, String> {
    let module = crate::ir::spirv::read::read_words(words).map_err(|e| e.to_string())?;
    let env = target_env(&module);
    // The block layout rules the input is valid under: candidates are held to the same.
    let mut layout = None;
    let mut first_error = None;
    for rules in [
        None,
        Some("--relax-block-layout"),
        Some("--scalar-block-layout"),
    ] {
        let options: Vec<&str> = rules.into_iter().collect();
        match spirv_val_with(words, &env, &options)? {
            Validation::Valid => {
                layout = Some(rules);
                break;
            }
            Validation::Invalid(messages) => {
                first_error.get_or_insert_with(|| {
                    messages.first().map_or(String::new(), |m| m.text.clone())
                });
            }
        }
    }
    let Some(layout) = layout else {
        return Err(format!(
            "the input is not valid SPIR-V, so candidates could not be checked against it: {}",
            first_error.unwrap_or_default()
        ));
    };
    let run = pipeline.run(Arc::new(words.to_vec()));
    let steps = pass_steps(&run);
    // Whether the interpreter decides `differs`, and why, from the bisect that finds the step.
    let mut decided: Option<(bool, Option<String>)> = None;
    let found = match (&property, step) {
        (Property::Command(_), _) => None,
        (_, Some(which)) => Some(step_named(&run, which)?),
        (Property::Invalid, None) => {
            let first = crate::pipeline::validate::first_invalid(&run)?;
            let (i, ..) = first
                .first
                .ok_or("every step of the input is valid: there is nothing to reduce")?;
            steps.iter().position(|&s| s == i)
        }
        (Property::Fails, None) => {
            let f = run
                .failed
                .ok_or("no pass fails on the input: there is nothing to reduce")?;
            steps.iter().position(|&s| s == f)
        }
        (Property::Differs | Property::Crash, None) => {
            let gpu = gpu.ok_or("the property needs a Vulkan driver")?;
            // `differs`: the interpreter finds the step where it agrees with the driver on
            // the input.
            let feed = Feed {
                oracle: if property == Property::Differs {
                    semantic::Oracle::Auto
                } else {
                    semantic::Oracle::Driver
                },
                ..Feed::default()
            };
            let b = semantic::bisect(gpu, &[&run], feed, &|| false)?;
            if property == Property::Differs {
                decided = Some((b.interpreter_decided, b.oracle.clone()));
            }
            let summary = b.summary();
            let d = b
                .first
                .ok_or_else(|| format!("the bisect finds no such step: {summary}"))?;
            Some(d.pass_index)
        }
    };
    let error = match (&property, found) {
        (Property::Fails, Some(k)) => steps.get(k).and_then(|&i| run.steps[i].error.clone()),
        _ => None,
    };
    let mut test = Test {
        pipeline,
        property,
        step: found,
        pass: found.and_then(|k| steps.get(k)).map(|&i| run.steps[i].pass),
        error,
        gpu,
        env,
        layout,
        scratch,
        interpreter: false,
        oracle: None,
        budget: None,
        quads_of: None,
    };
    if test.property == Property::Differs {
        choose_judge(&mut test, decided, &run, words)?;
    }
    if let Property::Command(command) = &test.property {
        // A command that cannot run at all is said before any work.
        let program = command.split_whitespace().next().unwrap_or("");
        let exists = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {program}"))
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !exists {
            return Err(format!("cannot run '{command}': no program '{program}'"));
        }
    }
    if !test.holds(words)? {
        let what = match (&test.property, found) {
            (Property::Command(c), _) => format!(
                "the command does not exit 0 on the input; it ran: {}",
                command_line(c, &test.scratch)
            ),
            (p, Some(k)) => format!(
                "the input does not have the property {p:?} at step {k} ({})",
                steps.get(k).map_or("?", |&i| run.steps[i].pass)
            ),
            (p, None) => format!("the input does not have the property {p:?}"),
        };
        return Err(what);
    }
    Ok(test)
}

/// Who judges `differs` candidates: the interpreter where it agrees with the driver on the
/// input (`decided`, from the bisect that found the step, else asked of the step's window
/// now) and both find the property there; else the driver.
fn choose_judge(
    test: &mut Test,
    decided: Option<(bool, Option<String>)>,
    run: &Run,
    words: &[u32],
) -> Result<(), String> {
    let (Some(gpu), Some(k)) = (test.gpu, test.step) else {
        return Ok(());
    };
    let (agrees, why) = match decided {
        Some(d) => d,
        None => {
            let feed = Feed {
                window: Some((k.saturating_sub(1), k)),
                ..Feed::default()
            };
            let b = semantic::bisect(gpu, &[run], feed, &|| false)?;
            (b.interpreter_decided, b.oracle)
        }
    };
    let why = why.unwrap_or_default();
    if !agrees {
        test.oracle = Some(format!("candidates judged on the driver: {why}"));
        return Ok(());
    }
    test.interpreter = true;
    test.quads_of = quads_where_differs(run, k);
    test.budget = budget_for(run, k, test.quads_of);
    if !test.holds(words)? {
        test.interpreter = false;
        test.oracle = Some(
            "candidates judged on the driver: the interpreter finds the step's difference only where values are undefined"
                .into(),
        );
    } else if !test.holds_on_driver(words)? {
        test.interpreter = false;
        test.oracle = Some(
            "candidates judged on the driver: it does not find the difference the interpreter finds at the step"
                .into(),
        );
    } else {
        test.oracle = Some(
            "candidates judged on the interpreter, which agrees with the driver on the input; the driver confirms the result"
                .into(),
        );
    }
    Ok(())
}

/// The interpreter's budget for a candidate of `run`'s input, judged at pass step `k`: four
/// times what the input and the step run, and 100 000 more. Candidates are made from the
/// input by taking code away; one that runs far longer loops where the input did not, and is
/// refused when it stops, not after the interpreter's whole budget.
pub fn budget_for(run: &Run, k: usize, quads_of: Option<[[u32; 2]; 4]>) -> Option<u64> {
    let feed = Feed {
        quads_of,
        ..Feed::default()
    };
    let most = [0, k]
        .iter()
        .filter_map(|&j| crate::pipeline::oracle::instructions_run(run, j, feed))
        .max()?;
    Some(most.saturating_mul(4).saturating_add(100_000))
}

/// Where a draw's candidates are judged: four pixels spread over those where pass step `k`
/// of `run` differs from the input (the first, the last, two between), whose quads are all
/// the interpreter draws of a candidate — the same question asked of a few quads rather than
/// the whole framebuffer, at a fraction of the cost. A candidate that differs only elsewhere
/// is refused (the question is stricter, never looser), and the driver still confirms the
/// result on the whole draw. `None` for a compute shader, or a draw whose difference is not
/// in its attachments (a storage buffer).
pub fn quads_where_differs(run: &Run, k: usize) -> Option<[[u32; 2]; 4]> {
    let pixels = crate::pipeline::oracle::differing_pixels(run, k, Feed::default())?;
    let n = pixels.len();
    (n > 0).then(|| [0, n / 3, 2 * n / 3, n - 1].map(|i| pixels[i]))
}
