//! One compile: inputs loaded (through the configured front ends) and run through a pipeline,
//! each on its own or together — linked modules, or the stages of a graphics pipeline. The
//! app's worker does this for the TUI and `shaderstep run` for a build, so both see the same
//! runs.

use std::path::PathBuf;
use std::sync::Arc;

use super::input::{self, FrontEnds, InputError, InputKind};
use super::link::LinkInput;
use super::{Pipeline, Run, StageLink, Step};

/// How the inputs of a compile go through the pipeline.
#[derive(Clone, Debug)]
pub enum Together {
    /// Each input on its own.
    Apart,
    /// Modules linked (`link`): every input in turn is the one the others are linked into (a
    /// view per input), or only the first (`first_only`: a build wants one output).
    Linked { first_only: bool },
    /// The stages of a graphics pipeline, linked as `StageLink` says.
    Stages(Box<StageLink>),
}

/// An input's run, with what the app shows beside it.
pub struct Compiled {
    pub path: PathBuf,
    pub run: Run,
    pub kind: InputKind,
    /// The source text, for inputs compiled from source.
    pub source: Option<Arc<str>>,
}

/// A step of an input's run, reported as soon as its pass is done (for inputs run apart), so
/// that the app shows the first steps of a long run while the others are computed.
pub struct Progress<'a> {
    /// Which of the paths the step is of.
    pub input: usize,
    /// The input's source text, for inputs compiled from source.
    pub source: Option<&'a str>,
    pub step: &'a Step,
}

/// Loads `path` (from `bytes`, when the caller read it already and no configured compiler
/// reads it instead) and runs `pipeline` on it keeping only the steps' figures and the final
/// module (`Pipeline::run_figures`): a shader listed, not looked at. `None` when `cancelled`
/// said to give up.
pub fn compile_figures(
    path: &std::path::Path,
    bytes: Option<&[u8]>,
    pipeline: &Pipeline,
    front: &FrontEnds,
    cancelled: &dyn Fn() -> bool,
) -> Option<Result<Compiled, InputError>> {
    let loaded = match bytes {
        Some(b) if front.command_for(path).is_none() => input::load_bytes(path, b),
        _ => input::load_with(path, front),
    };
    let l = match loaded {
        Ok(l) => l,
        Err(e) => return Some(Err(e)),
    };
    let run = pipeline.run_figures(
        Arc::new(l.words),
        Some((l.module, l.decode_time)),
        cancelled,
    )?;
    Some(Ok(Compiled {
        path: l.path,
        run,
        kind: l.kind,
        source: l.source.map(Arc::from),
    }))
}

/// Loads `paths` and runs `pipeline` on them as `together` says: one result per input (per the
/// first only, linked with `first_only`). Inputs that go together fail together: one that does
/// not load leaves the others unlinked, each saying why. `None` when `cancelled` said to give
/// up (checked between passes of inputs run apart). Inputs run apart report each step to
/// `on_step` as it is made.
pub fn compile(
    paths: &[PathBuf],
    pipeline: &Pipeline,
    front: &FrontEnds,
    together: &Together,
    cancelled: &dyn Fn() -> bool,
    on_step: &mut dyn FnMut(Progress),
) -> Option<Vec<Result<Compiled, InputError>>> {
    let loaded: Vec<Result<input::Loaded, InputError>> =
        paths.iter().map(|p| input::load_with(p, front)).collect();
    let compiled = |l: input::Loaded, run: Run| Compiled {
        source: l.source.clone().map(Arc::from),
        path: l.path,
        kind: l.kind,
        run,
    };
    if let Together::Apart = together {
        let mut out = Vec::with_capacity(loaded.len());
        for (n, l) in loaded.into_iter().enumerate() {
            out.push(match l {
                Ok(input::Loaded {
                    path,
                    kind,
                    words,
                    module,
                    decode_time,
                    source,
                }) => {
                    let decoded = Some((module, decode_time));
                    let run = pipeline.run_observed(
                        Arc::new(words),
                        decoded,
                        cancelled,
                        &mut |step| {
                            on_step(Progress {
                                input: n,
                                source: source.as_deref(),
                                step,
                            })
                        },
                    )?;
                    Ok(Compiled {
                        path,
                        run,
                        kind,
                        source: source.map(Arc::from),
                    })
                }
                Err(e) => Err(e),
            });
        }
        return Some(out);
    }
    if let Some(bad) = loaded.iter().find_map(|l| l.as_ref().err()) {
        let bad = bad.clone();
        return Some(
            loaded
                .into_iter()
                .zip(paths)
                .map(|(l, path)| match l {
                    Err(e) => Err(e),
                    Ok(_) => Err(InputError {
                        path: path.clone(),
                        line: None,
                        message: format!("not linked: {bad}"),
                        source: None,
                    }),
                })
                .collect(),
        );
    }
    let loaded: Vec<input::Loaded> = loaded.into_iter().flatten().collect();
    let runs: Vec<Run> = match together {
        Together::Apart => unreachable!("handled above"),
        Together::Stages(link) => {
            let stages = loaded
                .iter()
                .map(|l| (Arc::new(l.words.clone()), decoded(l)))
                .collect();
            pipeline.run_stages(stages, link.as_ref())
        }
        Together::Linked { first_only } => {
            let count = if *first_only { 1 } else { loaded.len() };
            (0..count.min(loaded.len()))
                .map(|i| {
                    let others = loaded
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| *k != i)
                        .map(|(_, l)| LinkInput {
                            name: l.path.display().to_string(),
                            module: l.module.clone(),
                        })
                        .collect();
                    let l = &loaded[i];
                    pipeline.run_linked(
                        Arc::new(l.words.clone()),
                        decoded(l),
                        l.path.display().to_string(),
                        others,
                    )
                })
                .collect()
        }
    };
    Some(
        loaded
            .into_iter()
            .zip(runs)
            .map(|(l, run)| Ok(compiled(l, run)))
            .collect(),
    )
}

/// An input's module as already decoded, and how long that took (`lower`'s work).
fn decoded(l: &input::Loaded) -> Option<(crate::ir::Module, std::time::Duration)> {
    Some((l.module.clone(), l.decode_time))
}
