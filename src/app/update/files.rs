//! Inputs on disk and their runs: asking for runs (each request with a token, so only the newest
//! answer counts), what the runs and other background work answered, what the watcher saw
//! change, reloading, and writing a step's SPIR-V.

use super::Effect;
use crate::app::action::{Action, Answered};
use crate::app::state::State;
use crate::app::worker::Job;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Answer(answer) => match answer.take() {
            Some(Answered::Outcome(o)) => outcome(s, o),
            Some(Answered::Step(step)) => crate::app::answer::step(s, step),
            Some(Answered::Run(done)) => crate::app::answer::run(s, done),
            Some(Answered::Compared(done)) => crate::app::answer::compared_run(s, done),
            Some(Answered::Bisect { key, result }) => {
                s.jobs.retain(|j| *j != "bisect");
                crate::app::answer::bisect(s, key, result)
            }
            Some(Answered::BisectRun { docs, result }) => {
                s.jobs.retain(|j| *j != "bisect run");
                crate::app::answer::bisect_run(s, &docs, result)
            }
            Some(Answered::ExecRunning { key, took }) => super::exec::running(s, key, took),
            Some(Answered::Executed { key, result }) => {
                super::exec::executed(s, key, result);
            }
            Some(Answered::DriverCode { hash, result }) => {
                super::driver::answered(s, hash, result);
            }
            Some(Answered::Decompiled { hash, lang, result }) => {
                super::decompile::answered(s, hash, lang, result);
            }
            Some(Answered::Highlighted(lines)) => {
                let styles = &mut s.cache.styles;
                if styles.len() + lines.len() > crate::app::derive::MAX_STYLED_LINES {
                    styles.clear();
                }
                styles.extend(lines);
                let styles = &s.cache.styles;
                s.cache
                    .highlight_wanted
                    .retain(|l| !styles.contains_key(&l.key));
            }
            Some(Answered::FirstDifference { key, other, result }) => {
                super::exec::first_difference_found(s, key, &other, result);
            }
            Some(Answered::Reducing(line)) => {
                s.bisect.reducing = Some(line.clone());
                s.show_progress(line);
            }
            Some(Answered::Reduced(result)) => {
                s.jobs.retain(|j| *j != "reduce");
                s.bisect.reducing = None;
                match result {
                    Ok((original, path, stamp, summary)) => {
                        // The reduced shader opens as an input of its own, with its own steps.
                        let abs = crate::app::watch::absolute(&path);
                        let i = match s.docs.iter().position(|d| d.abs == abs) {
                            Some(i) => i,
                            None => {
                                s.docs.push(crate::app::state::Doc::new(abs, None));
                                s.docs.len() - 1
                            }
                        };
                        s.docs[i].reduced_from = Some(original);
                        s.docs[i].own_write = stamp;
                        super::browser::select_doc(s, i);
                        let effect = load(s, i);
                        s.set_message(format!(
                            "{summary} (:diff-input: its steps against the original's)"
                        ));
                        return vec![effect];
                    }
                    Err(e) => s.set_error(format!("reduce: {e}")),
                }
            }
            Some(Answered::StepsCommand(Ok(said))) => {
                // The dumps are in place: every input reads them again, kept where it was.
                let effects = handle(s, Action::Reload);
                let said = format!("--steps-cmd ran again, {said}");
                s.set_message(said.clone());
                s.reload_cause = Some(said);
                return effects;
            }
            Some(Answered::StepsCommand(Err(e))) => {
                s.set_error(format!("{e} (the steps before stay)"));
            }
            Some(Answered::Settings(Err(e))) => {
                s.set_error(format!("{e} (the settings before stay)"));
            }
            Some(Answered::Settings(Ok(settings))) => {
                s.source.paths = settings.source_paths;
                // The compilers and source paths change what the inputs show: they run again.
                let effects = handle(s, Action::Reload);
                let mut said = format!("{} reloaded", settings.name);
                let mut errors = settings.key_errors;
                match settings.driver {
                    Some(Ok(driver)) => {
                        super::driver::switched(s);
                        said.push_str(&format!(", shaders now run on {driver}"));
                    }
                    Some(Err(e)) => errors.push(format!("{e} (the driver before stays)")),
                    None => {}
                }
                if errors.is_empty() {
                    s.set_message(said);
                } else {
                    s.set_error(format!("{}: {}", settings.name, errors.join("; ")));
                }
                return effects;
            }
            None => {}
        },
        Action::Disk(facts) => return crate::app::disk::apply(s, facts),
        Action::Reload if s.batched => return vec![load(s, 0)],
        Action::Reload => return load_all(s),
        Action::Write(path, force) => {
            let Some(run) = s.run() else {
                s.set_error("nothing loaded to write");
                return Vec::new();
            };
            let module = &run.steps[s.step.min(run.steps.len() - 1)].module;
            // A step in the shaderstep dialect is written lifted out of it: SPIR-V that
            // spirv-val and drivers take.
            let (bytes, note) = match crate::pipeline::validate::spirv_of(module) {
                Ok(spirv) => (
                    spirv.words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                    spirv.lifted.map_or(String::new(), |_| {
                        " (lifted out of the dialect)".to_string()
                    }),
                ),
                Err(why) => {
                    s.set_error(format!(
                        "this step is in the shaderstep dialect and cannot be written as SPIR-V: {why}"
                    ));
                    return Vec::new();
                }
            };
            // A broken step is worth writing (to hand to spirv-val or a bug report), but the
            // message says so: nothing is written unverified.
            let mut errors = crate::ir::verify::verify(module);
            errors.retain(|e| e.level == crate::ir::verify::Level::Error);
            let note = match errors.first() {
                None => note,
                Some(first) => format!(
                    "{note}, which the verifier rejects ({} error{}: {})",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" },
                    first.message
                ),
            };
            let inputs = s.docs.iter().map(|d| d.abs.clone()).collect();
            return vec![Effect::Write {
                path: expand_home(&path),
                bytes,
                force,
                inputs,
                note,
            }];
        }
        other => unreachable!("not an action of files: {other:?}"),
    }
    Vec::new()
}

/// `~/…` as the shell expands it.
fn expand_home(path: &std::path::Path) -> std::path::PathBuf {
    match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => std::path::PathBuf::from(home).join(rest),
        _ => path.to_path_buf(),
    }
}

/// Asks for input `i` to run again (every input, when they run together), and the compared
/// pipeline with it: each request's token grows, and only the answer to the newest counts.
/// It goes before the runs queued (a save, the shader selected).
pub(in crate::app) fn load(s: &mut State, i: usize) -> Effect {
    let docs: Vec<usize> = if s.batched {
        (0..s.docs.len()).collect()
    } else {
        vec![i]
    };
    let jobs = docs.into_iter().map(|n| job(s, n, true)).collect();
    let compared = (!s.batched && s.compare.spec.is_some()).then(|| compare_job(s, i));
    Effect::Load { jobs, compared }
}

/// Asks for every input to run again (the batch, when they run together): the selected one
/// first, the rest after whatever is queued, in the order the browser lists them. Shaders
/// nobody looks at bring back their summaries only; those that keep their steps run the
/// compared pipeline too, when one is compared.
pub(in crate::app) fn load_all(s: &mut State) -> Vec<Effect> {
    if s.batched {
        return vec![load(s, 0)];
    }
    let mut order = s.listed_docs();
    order.extend((0..s.docs.len()).filter(|i| !s.docs[*i].present));
    let mut jobs = Vec::with_capacity(order.len());
    if s.doc < s.docs.len() {
        jobs.push(job(s, s.doc, true));
    }
    for &i in &order {
        if i != s.doc {
            jobs.push(job(s, i, false));
        }
    }
    let mut effects = vec![Effect::Load {
        jobs,
        compared: s.compare.spec.is_some().then(|| compare_job(s, s.doc)),
    }];
    if s.compare.spec.is_some() {
        for i in order {
            if i != s.doc && s.keeps_steps(i) {
                effects.push(Effect::Load {
                    jobs: Vec::new(),
                    compared: Some(compare_job(s, i)),
                });
            }
        }
    }
    effects
}

/// The selected shader's steps, when they were dropped (or never asked for): its run again,
/// showing steps as they come as a first run does.
pub(super) fn steps_wanted(s: &mut State) -> Option<Effect> {
    let d = s.docs.get(s.doc)?;
    if s.batched || d.run.is_some() || d.steps_token != 0 || !d.present {
        return None;
    }
    let job = job(s, s.doc, true);
    let compared = s.compare.spec.is_some().then(|| compare_job(s, s.doc));
    Some(Effect::Load {
        jobs: vec![job],
        compared,
    })
}

/// A request of the compared pipeline's run on input `i`.
pub(super) fn compare_job(s: &mut State, i: usize) -> Job {
    let doc = &mut s.docs[i];
    doc.compare_requested += 1;
    Job::steps(i, doc.compare_requested, doc.path.clone())
}

/// A request for input `i`, with the next token: it keeps the steps when the browser keeps
/// them for `i`.
fn job(s: &mut State, i: usize, urgent: bool) -> Job {
    let steps = s.keeps_steps(i);
    let doc = &mut s.docs[i];
    doc.requested += 1;
    if steps {
        doc.steps_token = doc.requested;
    }
    Job {
        doc: i,
        token: doc.requested,
        path: doc.path.clone(),
        steps,
        urgent,
    }
}

/// Applies what carrying out an effect gave.
fn outcome(s: &mut State, o: crate::app::action::Outcome) {
    use crate::app::action::Outcome;
    match o {
        Outcome::Failed(e) => s.set_error(e),
        Outcome::Done(m) => s.set_message(m),
        Outcome::CompareFailed(e) => {
            // Its runs will not come.
            for d in &mut s.docs {
                d.compare_answered = d.compare_requested;
            }
            s.set_error(e);
        }
        Outcome::Comparing(spec) => {
            // The outputs against each other first, once the compared run is there.
            s.compare.base = Some(usize::MAX);
            s.set_message(format!("comparing with {spec}…"));
            s.compare.spec = Some(spec);
        }
        Outcome::Started { job, said } => {
            if !s.jobs.contains(&job) {
                s.jobs.push(job);
            }
            if job == "reduce" {
                s.bisect.reducing = Some(said.clone());
            }
            s.set_message(said);
        }
    }
}
