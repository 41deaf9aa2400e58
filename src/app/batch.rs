//! `shaderstep run DIR|FILES... -o OUTDIR`: a whole shader tree compiled in one process, several
//! shaders at once, the tree mirrored under OUTDIR. Files that are not shaders are skipped (the
//! watch mode's rules), a shader that does not load or whose pass fails is reported and the
//! others go on, and an output newer than its input is kept unless `--force`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use super::cli::{Emit, RunArgs, StatsFormat};
use crate::pipeline::compile::{compile, Together};
use crate::pipeline::input::FrontEnds;
use crate::pipeline::Pipeline;

/// One shader of the batch and where its output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// What became of one shader.
#[derive(Debug)]
enum Outcome {
    Written {
        before: usize,
        after: usize,
        time: Duration,
    },
    UpToDate,
    Failed(String),
}

/// Every shader `inputs` (files and directories) name, with its path under an output
/// directory: a directory's listed shaders (the watch mode's rules) at their path under it, a
/// file given by name as it is, at the top.
pub fn shaders(inputs: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    for i in inputs {
        if i.is_dir() {
            for f in super::workspace::scan(i) {
                let rel = f.strip_prefix(i).unwrap_or(&f).to_path_buf();
                found.push((f, rel));
            }
        } else {
            let name = i
                .file_name()
                .map_or_else(|| PathBuf::from("out"), PathBuf::from);
            found.push((i.clone(), name));
        }
    }
    found
}

/// The jobs for `inputs` (files and directories) writing under `out`: a directory's shaders at
/// their path under it, a file given by name at the top. The output keeps the input's stem
/// (`lit.frag` → `lit.spv`) unless a neighbour shares it (`lit.vert`, `lit.frag` →
/// `lit.vert.spv`, `lit.frag.spv`), with the extension of what is written.
pub fn plan(inputs: &[PathBuf], out: &Path, emit: Emit) -> Vec<Job> {
    let ext = emit.extension();
    let found = shaders(inputs);
    // How many of the outputs share each directory and stem (counted once, not per file).
    let stem = |p: &Path| {
        (
            p.parent().map(Path::to_path_buf),
            p.file_stem().map(|s| s.to_os_string()),
        )
    };
    let mut stems: std::collections::HashMap<_, usize> = std::collections::HashMap::new();
    for (_, rel) in &found {
        *stems.entry(stem(rel)).or_default() += 1;
    }
    found
        .iter()
        .map(|(input, rel)| {
            let shared = stems[&stem(rel)] > 1;
            let name = if shared {
                rel.file_name()
            } else {
                rel.file_stem()
            }
            .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
            let output = out
                .join(rel.parent().unwrap_or(Path::new("")))
                .join(format!("{name}.{ext}"));
            Job {
                input: input.clone(),
                output,
            }
        })
        .collect()
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// Compiles and writes one shader.
fn one(job: &Job, pipeline: &Pipeline, front: &FrontEnds, emit: Emit, force: bool) -> Outcome {
    if !force {
        if let (Some(i), Some(o)) = (modified(&job.input), modified(&job.output)) {
            if o >= i {
                return Outcome::UpToDate;
            }
        }
    }
    let t = Instant::now();
    let result = compile(
        std::slice::from_ref(&job.input),
        pipeline,
        front,
        &Together::Apart,
        &|| false,
        &mut |_| {},
    )
    .expect("a compile nothing cancels finishes")
    .pop();
    let compiled = match result {
        Some(Ok(c)) => c,
        Some(Err(e)) => return Outcome::Failed(e.to_string()),
        None => return Outcome::Failed(format!("{}: nothing compiled", job.input.display())),
    };
    let run = compiled.run;
    if let Some(f) = run.failed {
        let step = &run.steps[f];
        let mut msg = format!("{}: pass '{}' failed", job.input.display(), step.pass);
        for d in &step.diagnostics {
            msg.push_str(&format!("\n  {d}"));
        }
        return Outcome::Failed(msg);
    }
    if let Err(e) = run.check_output(pipeline.checks, pipeline.experimental) {
        return Outcome::Failed(format!("{}: {e}", job.input.display()));
    }
    let bytes = match super::run::output_bytes(&run, emit) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(format!("{}: {e}", job.input.display())),
    };
    let time = t.elapsed();
    let written = job
        .output
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&job.output, bytes));
    if let Err(e) = written {
        return Outcome::Failed(format!("{}: cannot write: {e}", job.output.display()));
    }
    Outcome::Written {
        before: run.steps.first().map_or(0, |s| s.inst_count),
        after: run.steps.last().map_or(0, |s| s.inst_count),
        time,
    }
}

/// Runs the batch; `Err` lists the shaders that failed (the exit status is then 1).
pub fn run(
    args: &RunArgs,
    pipeline: &Pipeline,
    front: &FrontEnds,
    out: &Path,
) -> Result<(), String> {
    let jobs = plan(&args.inputs, out, args.emit);
    for i in &args.inputs {
        if !i.exists() {
            return Err(format!("{}: no such file or directory", i.display()));
        }
    }
    let workers = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(jobs.len()).collect());
    let progress = std::io::stderr().is_terminal();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(k) else { break };
                // A pass that panics is a bug, but the others go on.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    one(job, pipeline, front, args.emit, args.force)
                }))
                .unwrap_or_else(|_| {
                    Outcome::Failed(format!(
                        "{}: internal error (please report)",
                        job.input.display()
                    ))
                });
                if matches!(outcome, Outcome::Failed(_)) {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                outcomes.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(outcome);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    bar(n, jobs.len(), failed.load(Ordering::Relaxed));
                }
            });
        }
    });
    if progress {
        eprint!("\r\x1b[2K");
    }
    let outcomes: Vec<Outcome> = outcomes
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Failed("not run".into())))
        .collect();
    let mut stdout = std::io::stdout().lock();
    if args.stats == Some(StatsFormat::Json) {
        for (job, o) in jobs.iter().zip(&outcomes) {
            let esc = |p: &Path| super::run::json_escape(&p.display().to_string());
            let line = match o {
                Outcome::Written {
                    before,
                    after,
                    time,
                } => format!(
                    "{{\"input\":\"{}\",\"output\":\"{}\",\"status\":\"written\",\"instructions_before\":{before},\"instructions_after\":{after},\"microseconds\":{}}}",
                    esc(&job.input),
                    esc(&job.output),
                    time.as_micros()
                ),
                Outcome::UpToDate => format!(
                    "{{\"input\":\"{}\",\"output\":\"{}\",\"status\":\"up to date\"}}",
                    esc(&job.input),
                    esc(&job.output)
                ),
                Outcome::Failed(e) => format!(
                    "{{\"input\":\"{}\",\"status\":\"failed\",\"error\":\"{}\"}}",
                    esc(&job.input),
                    super::run::json_escape(e)
                ),
            };
            if writeln!(stdout, "{line}").is_err() {
                break;
            }
        }
    }
    let (mut written, mut fresh, mut before, mut after) = (0, 0, 0usize, 0usize);
    let mut failures = Vec::new();
    for o in outcomes {
        match o {
            Outcome::Written {
                before: b,
                after: a,
                ..
            } => {
                written += 1;
                before += b;
                after += a;
            }
            Outcome::UpToDate => fresh += 1,
            Outcome::Failed(e) => failures.push(e),
        }
    }
    let ratio = if before > 0 {
        format!(" ({:.3})", after as f64 / before as f64)
    } else {
        String::new()
    };
    eprintln!(
        "{} shaders into {}: {written} written, {fresh} up to date (--force replaces them), {} failed; instructions {before} → {after}{ratio}; {:.2} s on {workers} threads",
        jobs.len(),
        out.display(),
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\nerror: "))
    }
}

/// The progress bar on standard error: `[#####     ] 512/1240, 3 failed`.
fn bar(done: usize, total: usize, failed: usize) {
    const WIDTH: usize = 30;
    let filled = done * WIDTH / total.max(1);
    let failed = if failed > 0 {
        format!(", {failed} failed")
    } else {
        String::new()
    };
    eprint!(
        "\r[{}{}] {done}/{total}{failed}",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled)
    );
    let _ = std::io::stderr().flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_mirror_the_tree_and_keep_stems_apart() {
        let dir = std::env::temp_dir().join(format!("shaderstep-plan-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for f in ["a.comp", "sub/lit.vert", "sub/lit.frag", "notes.txt"] {
            std::fs::write(dir.join(f), "x").unwrap();
        }
        let out = Path::new("/out");
        let mut jobs = plan(&[dir.clone(), PathBuf::from("x/one.spv")], out, Emit::Spv);
        jobs.sort_by(|a, b| a.output.cmp(&b.output));
        let outputs: Vec<String> = jobs
            .iter()
            .map(|j| j.output.display().to_string())
            .collect();
        assert_eq!(
            outputs,
            [
                "/out/a.spv",
                "/out/one.spv",
                "/out/sub/lit.frag.spv",
                "/out/sub/lit.vert.spv"
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
