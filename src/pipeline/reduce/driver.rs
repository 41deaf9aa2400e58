//! The driver: delta debugging over the kinds of edit, largest first, in chunks that halve
//! until one at a time, candidates judged on all cores; and a whole reduction to a file.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::apply::apply;
use super::property::{prepare, Judge, Property, Test};
use super::{chances, types, Chance, Edit};
use crate::ir::Module;
use crate::pipeline::gpu::Device;
use crate::pipeline::pass::PassCx;
use crate::pipeline::registry;
use crate::pipeline::validate::spirv_of;
use crate::pipeline::Pipeline;

/// How a reduction went.
pub struct Reduced {
    pub module: Module,
    pub words: Vec<u32>,
    pub before: usize,
    pub after: usize,
    pub tried: usize,
    pub accepted: usize,
    /// Edits that applied, with how many times.
    pub applied: Vec<(Edit, usize)>,
    pub took: Duration,
    /// Stopped before the end (cancelled): the best so far.
    pub stopped: bool,
    /// Who judged the candidates, and what the driver said of the result, where the property
    /// needs the driver.
    pub judged: Option<String>,
}

/// Progress, after every candidate.
pub struct Progress {
    /// The kind of edit being tried.
    pub edit: Edit,
    pub tried: usize,
    pub accepted: usize,
    pub instructions: usize,
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "reducing: {} tried, {} kept, {} instructions ({})",
            self.tried,
            self.accepted,
            self.instructions,
            self.edit.name()
        )
    }
}

/// Where a reduction of `input` is written unless told: `NAME.reduced.spv` beside it, or
/// `NAME.reduced-2.spv` and on when that exists (a reduction never overwrites a file it was
/// not told to). A reduced shader reduced again counts on from its own name.
pub fn default_output(input: &std::path::Path) -> std::path::PathBuf {
    let stem = input
        .file_stem()
        .unwrap_or(input.as_os_str())
        .to_string_lossy();
    let base = match stem.rsplit_once(".reduced") {
        Some((base, n))
            if n.is_empty()
                || n.strip_prefix('-')
                    .is_some_and(|n| n.parse::<u32>().is_ok()) =>
        {
            base.to_string()
        }
        _ => stem.into_owned(),
    };
    (1..)
        .map(|n| {
            let name = match n {
                1 => format!("{base}.reduced.spv"),
                n => format!("{base}.reduced-{n}.spv"),
            };
            input.with_file_name(name)
        })
        .find(|p| !p.exists())
        .expect("some name is free")
}

/// Whether our verifier finds nothing wrong with a candidate: a check in this process
/// before any tool is run (it rejects nothing spirv-val accepts).
pub(super) fn verified(m: &Module) -> bool {
    let mut copy = m.clone();
    registry::pass("verify").is_some_and(|p| {
        p.run(&mut copy, &mut PassCx::new(Arc::new(Vec::new())))
            .is_ok()
    })
}

/// The scratch file of lane `j`: `candidate.spv` becomes `candidate-j.spv`, so a command
/// that goes by the extension (spirv-dis, spirv-val) sees every candidate as SPIR-V.
pub(super) fn scratch_for(base: &std::path::Path, j: usize) -> std::path::PathBuf {
    let stem = base.file_stem().unwrap_or_default().to_string_lossy();
    let name = match base.extension() {
        Some(ext) => format!("{stem}-{j}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{j}"),
    };
    base.with_file_name(name)
}

/// What a reduction makes smaller, in this order: instructions in functions, their operands
/// that are values computed in functions (what ties the code together), instructions, words,
/// elements of arrays.
pub(super) fn size(m: &Module, words: &[u32]) -> (usize, usize, usize, usize, u64) {
    let code = m.functions().iter().map(|f| f.inst_count()).sum();
    let ties = m
        .functions()
        .iter()
        .map(|f| {
            f.insts()
                .flat_map(|i| i.args().iter())
                .filter(|&&a| f.def_of(a).is_some())
                .count()
        })
        .sum();
    (
        code,
        ties,
        m.inst_count(),
        words.len(),
        types::array_elements(m),
    )
}

/// What tells a candidate's words from others: their length and a hash.
pub(super) fn fingerprint(words: &[u32]) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut h);
    (words.len(), h.finish())
}

/// The module's words, if it can be written as SPIR-V.
pub(super) fn words_of(m: &Module) -> Option<Vec<u32>> {
    spirv_of(m).ok().map(|s| s.words)
}

/// Whether each candidate is valid and still interesting (`false` where none was built): on a
/// thread each when a `Judge` can, else one after another on the driver.
pub(super) fn judge_all(
    test: &Test,
    judge: Option<&Judge>,
    candidates: &[Option<(Module, Vec<u32>)>],
) -> Vec<Result<bool, String>> {
    match judge {
        Some(judge) => std::thread::scope(|scope| {
            let handles: Vec<_> = candidates
                .iter()
                .enumerate()
                .map(|(j, c)| {
                    let scratch = scratch_for(&test.scratch, j);
                    scope.spawn(move || match c {
                        Some((_, w)) => judge.accepts(w, &scratch),
                        None => Ok(false),
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Ok(false)))
                .collect()
        }),
        None => candidates
            .iter()
            .map(|c| match c {
                Some((_, w)) => Ok(test.valid(w)? && test.holds(w)?),
                None => Ok(false),
            })
            .collect(),
    }
}

/// Reduces `start` (the input, read into the IR) while `test` holds. Candidates judged on the
/// interpreter (`Test::interpreter`) end in a result the driver confirms: where it does not,
/// the reduction goes back to the last candidate it confirms and goes on with the driver
/// judging.
pub fn reduce(
    test: &Test,
    start: Module,
    progress: &mut dyn FnMut(&Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<Reduced, String> {
    if !test.interpreter {
        let mut reduced = reduce_on(test, start, progress, cancelled, None)?;
        reduced.judged = test.oracle.clone();
        return Ok(reduced);
    }
    let began = Instant::now();
    let mut trail = vec![words_of(&start).ok_or("the input cannot be written as SPIR-V")?];
    let mut reduced = reduce_on(test, start, progress, cancelled, Some(&mut trail))?;
    let confirmed = |words: &[u32]| test.holds_on_driver(words);
    if confirmed(&reduced.words)? {
        reduced.judged =
            Some("candidates judged on the interpreter, the result confirmed on the driver".into());
        reduced.took = began.elapsed();
        return Ok(reduced);
    }
    // The last candidate the driver confirms: the input is (`prepare` asked), the result is
    // not.
    let (mut yes, mut no) = (0, trail.len() - 1);
    while no - yes > 1 {
        let mid = (yes + no) / 2;
        if confirmed(&trail[mid])? {
            yes = mid;
        } else {
            no = mid;
        }
    }
    let on_driver = Test {
        interpreter: false,
        ..test.clone()
    };
    let from = start_of(&trail[yes])?;
    let at = from.inst_count();
    let mut more = reduce_on(&on_driver, from, progress, cancelled, None)?;
    more.before = reduced.before;
    more.tried += reduced.tried;
    more.accepted += yes;
    more.stopped |= reduced.stopped;
    more.took = began.elapsed();
    more.judged = Some(format!(
        "candidates judged on the interpreter to {} instructions, which the driver does not confirm; from the last it confirms ({at}), on the driver",
        reduced.after
    ));
    Ok(more)
}

/// The delta debugging itself. `trail`: where each candidate kept is recorded, by its words.
fn reduce_on(
    test: &Test,
    start: Module,
    progress: &mut dyn FnMut(&Progress),
    cancelled: &dyn Fn() -> bool,
    mut trail: Option<&mut Vec<Vec<u32>>>,
) -> Result<Reduced, String> {
    let began = Instant::now();
    // Judged on the interpreter, a candidate whose difference hangs on undefined values is
    // refused as it is judged (`Feed::undefined_same`): the guards the driver needs are not.
    let differs = test.property == Property::Differs && !test.interpreter;
    let before = start.inst_count();
    let mut best = start;
    let mut best_words = words_of(&best).ok_or("the input cannot be written as SPIR-V")?;
    let mut tried = 0;
    let mut accepted = 0;
    let mut applied: Vec<(Edit, usize)> = Vec::new();
    let mut stopped = false;
    // Candidates judged at once: one per core, or one at a time on the driver.
    let judge = test.judge();
    let lanes = if judge.is_some() {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        1
    };
    // An edit whose chances are the ones it failed on last round is skipped this round, but
    // for a last round that tries everything before the reduction ends.
    let mut failed: Vec<(Edit, Vec<Chance>)> = Vec::new();
    let mut skipping = true;
    // Candidates judged uninteresting, by their words: edits of different kinds, and the
    // last rounds, often make one again.
    let mut rejected: std::collections::HashSet<(usize, u64)> = Default::default();
    'rounds: loop {
        let mut progressed = false;
        let mut skipped = false;
        for edit in Edit::ALL {
            let mut list = chances(&best, edit, differs);
            if skipping && failed.iter().any(|(e, l)| *e == edit && *l == list) {
                skipped = true;
                continue;
            }
            let tried_on = list.clone();
            let mut kept_here = false;
            let mut streak = false;
            let mut chunk = list.len().max(1);
            // While other edits still make progress, operands are made constant in large
            // chunks only: one at a time they cost a candidate each, most of which fail on a
            // long shader (an operand on the path to what the reduction is about), and other
            // edits shrink the shader first. The last round, which tries everything, goes
            // down to one at a time.
            let smallest = match edit {
                Edit::Operands if skipping => (list.len() / 8).max(1),
                _ => 1,
            };
            while !list.is_empty() {
                let mut at = 0;
                let mut kept_any = false;
                while at < list.len() {
                    if cancelled() {
                        stopped = true;
                        break 'rounds;
                    }
                    // Windows of the list in order, built until `lanes` candidates are in
                    // hand that are new (not one judged before, not another's twin); those
                    // are judged at once and the smallest that holds is taken.
                    // One at a time, each edit is tried with what only it used swept away,
                    // then without (the sweep may take what the reduction is about).
                    // While edits hold, the second lane tries the window and the next one
                    // together rather than the next alone, which would have to be tried
                    // again on the module the first makes.
                    let mut windows = Vec::new();
                    let mut candidates: Vec<Option<(Module, Vec<u32>)>> = Vec::new();
                    let mut next = at;
                    // Operands made constant keep what they fed: other edits take it.
                    let sweeps = edit != Edit::Operands;
                    let best_size = size(&best, &best_words);
                    let mut fresh = 0;
                    let mut build = |from: usize, to: usize, swept: bool| {
                        let candidate = apply(&best, &list[from..to], swept).and_then(|c| {
                            let w = words_of(&c)?;
                            let new = !rejected.contains(&fingerprint(&w))
                                && !candidates.iter().flatten().any(|(_, o)| *o == w);
                            (new && size(&c, &w) < best_size && verified(&c)).then_some((c, w))
                        });
                        let built = candidate.is_some();
                        windows.push((from, to, swept));
                        candidates.push(candidate);
                        usize::from(built)
                    };
                    if streak && lanes > 1 && at + chunk < list.len() {
                        let end = at + chunk;
                        fresh += build(at, end, sweeps);
                        fresh += build(at, (end + chunk).min(list.len()), sweeps);
                        if chunk == 1 && sweeps && fresh < lanes {
                            fresh += build(at, end, false);
                        }
                        next = end;
                    }
                    while fresh < lanes && next < list.len() {
                        let end = (next + chunk).min(list.len());
                        fresh += build(next, end, sweeps);
                        if chunk == 1 && sweeps {
                            fresh += build(next, end, false);
                        }
                        next = end;
                    }
                    tried += fresh;
                    let verdicts = judge_all(test, judge.as_ref(), &candidates);
                    let mut taken: Option<usize> = None;
                    for (j, verdict) in verdicts.into_iter().enumerate() {
                        let Some((c, w)) = &candidates[j] else {
                            continue;
                        };
                        if !verdict? {
                            rejected.insert(fingerprint(w));
                        } else if taken.is_none_or(|t| {
                            candidates[t]
                                .as_ref()
                                .is_some_and(|(o, ow)| size(c, w) < size(o, ow))
                        }) {
                            taken = Some(j);
                        }
                    }
                    streak = taken.is_some();
                    match taken {
                        Some(j) => {
                            let (from, to, _) = windows[j];
                            let (c, w) = candidates
                                .into_iter()
                                .nth(j)
                                .flatten()
                                .expect("a candidate that holds exists");
                            if let Some(trail) = trail.as_deref_mut() {
                                trail.push(w.clone());
                            }
                            best = c;
                            best_words = w;
                            accepted += 1;
                            progressed = true;
                            kept_any = true;
                            kept_here = true;
                            match applied.iter_mut().find(|(e, _)| *e == edit) {
                                Some((_, n)) => *n += to - from,
                                None => applied.push((edit, to - from)),
                            }
                            // The chances are the new module's now.
                            list = chances(&best, edit, differs);
                            at = from.min(list.len());
                        }
                        None => at = next,
                    }
                    progress(&Progress {
                        edit,
                        tried,
                        accepted,
                        instructions: best.inst_count(),
                    });
                }
                if chunk <= smallest && !kept_any {
                    break;
                }
                chunk = (chunk / 2).max(smallest);
                if chunk == 1 && list.len() <= 1 && !kept_any {
                    break;
                }
            }
            failed.retain(|(e, _)| *e != edit);
            if !kept_here {
                failed.push((edit, tried_on));
            }
        }
        if !progressed {
            if skipped && skipping {
                skipping = false;
                continue;
            }
            break;
        }
        skipping = true;
    }
    Ok(Reduced {
        after: best.inst_count(),
        module: best,
        words: best_words,
        before,
        tried,
        accepted,
        applied,
        took: began.elapsed(),
        stopped,
        judged: None,
    })
}

/// The module a reduction starts from: `words` read into the IR (the `lower` step).
pub fn start_of(words: &[u32]) -> Result<Module, String> {
    Pipeline::from_names(&["lower"])?
        .run(Arc::new(words.to_vec()))
        .final_module()
        .map(|m| (**m).clone())
        .ok_or_else(|| "the input does not read".to_string())
}

/// A whole reduction of `words`, as `reduce` and `:reduce` run it: the driver's worker
/// process opened when the property needs one, candidates a command judges written to a
/// scratch directory of their own, the result written to `output` (`write`). Returns what was
/// done, in a line.
// Each argument is a different thing the caller has at hand; a struct would be built once.
#[allow(clippy::too_many_arguments)]
pub fn reduce_to_file(
    pipeline: &Pipeline,
    driver: &crate::pipeline::gpu::Driver,
    property: Property,
    step: Option<&str>,
    words: &[u32],
    output: &std::path::Path,
    progress: &mut dyn FnMut(&Progress),
    cancelled: &dyn Fn() -> bool,
) -> Result<String, String> {
    static SCRATCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let worker = match property {
        Property::Differs | Property::Crash => {
            Some(crate::pipeline::gpu::isolated::Isolated::open_here(driver)?)
        }
        _ => None,
    };
    let gpu = worker.as_ref().map(|w| w as &dyn Device);
    let scratch_dir = std::env::temp_dir().join(format!(
        "shaderstep-reduce-{}-{}",
        std::process::id(),
        SCRATCH.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&scratch_dir).map_err(|e| format!("{}: {e}", scratch_dir.display()))?;
    let reduced = prepare(
        pipeline,
        property,
        step,
        words,
        gpu,
        scratch_dir.join("candidate.spv"),
    )
    .and_then(|test| {
        let reduced = reduce(&test, start_of(words)?, progress, cancelled)?;
        Ok((test.step.zip(test.pass), reduced))
    });
    let _ = std::fs::remove_dir_all(&scratch_dir);
    let (about, reduced) = reduced?;
    let summary = write(&reduced, output)?;
    Ok(match about {
        Some((k, pass)) => format!("at step {k} ({pass}), {summary}"),
        None => summary,
    })
}

/// Writes the reduced shader to `output` and its assembly beside it (`.spvasm`); what was
/// done, in a line.
pub fn write(reduced: &Reduced, output: &std::path::Path) -> Result<String, String> {
    let bytes: Vec<u8> = reduced.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(output, bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    let asm = output.with_extension("spvasm");
    let module = crate::ir::spirv::read::read_words(&reduced.words).map_err(|e| e.to_string())?;
    let text = crate::ir::spirv::disasm::disassemble(&module, &Default::default());
    std::fs::write(&asm, text).map_err(|e| format!("{}: {e}", asm.display()))?;
    let applied: Vec<String> = reduced
        .applied
        .iter()
        .map(|(e, n)| format!("{} {n}", e.name()))
        .collect();
    Ok(format!(
        "{} → {} instructions ({:.0} %), in {:.1} s{}: {} candidates tried, {} kept ({}){} → {} and {}",
        reduced.before,
        reduced.after,
        100.0 * reduced.after as f64 / reduced.before.max(1) as f64,
        reduced.took.as_secs_f64(),
        if reduced.stopped { ", stopped" } else { "" },
        reduced.tried,
        reduced.accepted,
        if applied.is_empty() {
            "nothing applied".to_string()
        } else {
            applied.join(", ")
        },
        reduced
            .judged
            .as_ref()
            .map_or(String::new(), |j| format!("; {j}")),
        output.display(),
        asm.display()
    ))
}
