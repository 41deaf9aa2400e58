//! Runs a pipeline and records a `Step` after every pass: the IR snapshot, whether the pass
//! changed it, instruction count, time and diagnostics. Snapshots of passes that changed
//! nothing share the previous one; step text is rendered on first use and cached.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::pass::{Changed, Diagnostic, Pass, PassCx, Preserves, Severity};
use super::registry;
use crate::ir::debug::{self, Coverage};
use crate::ir::listing::Listing;
use crate::ir::module::Replacement;
use crate::ir::spirv::asm::{assemble_sharing, SharedNames};
use crate::ir::spirv::disasm::{listing, DisasmOptions};
use crate::ir::spirv::write;
use crate::ir::{print, Module};

/// Fills `mine` with `theirs` when only `theirs` holds a value.
fn adopt<T: Clone>(mine: &OnceLock<T>, theirs: &OnceLock<T>) {
    if let Some(v) = theirs.get() {
        let _ = mine.set(v.clone());
    }
}

/// The name of the step that shows the source text (see `Run::prepend_source`).
pub const SOURCE_STEP: &str = "source";

/// Cloning a step shares its module and whatever text of it was printed already.
#[derive(Clone)]
pub struct Step {
    pub pass: &'static str,
    pub module: Arc<Module>,
    pub changed: bool,
    pub inst_count: usize,
    pub duration: Duration,
    /// `duration` is what a tool reported, to this resolution (`None`: measured here).
    pub resolution: Option<Duration>,
    pub diagnostics: Vec<Diagnostic>,
    /// The pass failed with this error; the module is the one it was given.
    pub error: Option<String>,
    /// The module uses experimental ops (a *preview* module): their names.
    pub preview: Vec<&'static str>,
    /// Values the pass replaced by others (`old → new`), for a value's history.
    pub replacements: Vec<Replacement>,
    /// Made outside our passes (spirv-opt's, another compiler's dumps): it records no
    /// replacements, so a value gone is followed by its name, its users or its place.
    pub outside: bool,
    ir_listing: OnceLock<Arc<Listing>>,
    spirv_listing: OnceLock<Arc<Listing>>,
    ir_text: OnceLock<Arc<str>>,
    spirv_text: OnceLock<Arc<str>>,
    coverage: OnceLock<Arc<Coverage>>,
    /// Source lines and described variables lost against the step before (`audit`).
    losses: OnceLock<(usize, usize)>,
    /// Shared by the step's clones: a worker that sends a step before costing it (so the first
    /// frame does not wait) fills the cell the receiver reads.
    cost: Arc<OnceLock<Arc<super::cost::Cost>>>,
}

impl Step {
    /// Computes the debug-info audit of this step: its coverage and, given the coverage of
    /// the step before, what it lost of it. Returns the coverage, for the step after.
    pub fn audit(&self, before: Option<&Coverage>) -> Arc<Coverage> {
        let coverage = self.coverage();
        if let Some(before) = before {
            let _ = self.losses.set(before.losses(&coverage));
        }
        coverage
    }

    /// Source lines and described variables this step lost, once `audit` said so.
    pub fn known_losses(&self) -> Option<(usize, usize)> {
        self.losses.get().copied()
    }

    /// What this step costs the GPU: register pressure and instruction mix (computed once).
    pub fn cost(&self) -> Arc<super::cost::Cost> {
        self.cost
            .get_or_init(|| Arc::new(super::cost::Cost::of(&self.module)))
            .clone()
    }

    /// The cost, when it was computed already.
    pub fn known_cost(&self) -> Option<&Arc<super::cost::Cost>> {
        self.cost.get()
    }

    /// The cost, taken from the step `before` when this step left its module as it was (the
    /// same module, shared), else computed.
    pub fn cost_after(&self, before: Option<&Step>) -> Arc<super::cost::Cost> {
        if let Some(c) = before
            .filter(|b| Arc::ptr_eq(&b.module, &self.module))
            .and_then(|b| b.cost.get())
        {
            let _ = self.cost.set(c.clone());
        }
        self.cost()
    }

    /// The debug info this step's module still carries (source lines, described variables).
    pub fn coverage(&self) -> Arc<Coverage> {
        self.coverage
            .get_or_init(|| Arc::new(debug::coverage(&self.module)))
            .clone()
    }

    /// The IR text form of this step's module.
    pub fn ir_text(&self) -> Arc<str> {
        self.ir_text
            .get_or_init(|| self.ir_listing().text().into())
            .clone()
    }

    /// The `spirv-dis` style disassembly of this step's module.
    pub fn spirv_text(&self) -> Arc<str> {
        self.spirv_text
            .get_or_init(|| self.spirv_listing().text().into())
            .clone()
    }

    /// The IR text form, with what each line holds.
    pub fn ir_listing(&self) -> Arc<Listing> {
        self.ir_listing
            .get_or_init(|| Arc::new(print::listing(&self.module)))
            .clone()
    }

    /// The disassembly, with what each line holds.
    pub fn spirv_listing(&self) -> Arc<Listing> {
        self.spirv_listing
            .get_or_init(|| Arc::new(listing(&self.module, &DisasmOptions::default())))
            .clone()
    }

    pub fn is_source(&self) -> bool {
        self.pass == SOURCE_STEP
    }

    pub fn has_errors(&self) -> bool {
        self.error.is_some()
            || self
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
    }
}

#[derive(Clone, Default)]
pub struct Run {
    pub steps: Vec<Step>,
    /// Index of the step that failed, if one did; no steps follow it.
    pub failed: Option<usize>,
    /// The SPIR-V the pipeline produced (written by `lift`, else by the last step's module).
    output: Option<Vec<u32>>,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.failed.is_none()
    }

    /// The step that failed, and `pass NAME failed: WHY`.
    pub fn failure(&self) -> Option<(usize, String)> {
        let f = self.failed?;
        let st = &self.steps[f];
        Some((
            f,
            format!(
                "pass {} failed: {}",
                st.pass,
                st.error.clone().unwrap_or_default()
            ),
        ))
    }

    pub fn final_module(&self) -> Option<&Arc<Module>> {
        self.steps.last().map(|s| &s.module)
    }

    /// The output binary: what `lift` wrote, or the final module written now.
    pub fn output_words(&self) -> Option<Vec<u32>> {
        if self.failed.is_some() {
            return None;
        }
        self.output
            .clone()
            .or_else(|| self.final_module().map(|m| write::write_words(m)))
    }

    /// Whether the verifier has seen the final module: a `verify` step after which nothing
    /// changed, or every step under `--verify-each`.
    fn final_module_verified(&self, checks: Checks) -> bool {
        if checks.verify_each {
            return true;
        }
        match self.steps.iter().rposition(|s| s.pass == "verify") {
            Some(i) => self.steps[i + 1..].iter().all(|s| !s.changed),
            None => false,
        }
    }

    /// What the run would write, checked: `Err` with the verifier's errors when the final
    /// module is broken. Runs the verifier only when no step has verified the final module,
    /// so no command writes an output the verifier has not passed.
    pub fn check_output(&self, checks: Checks, experimental: bool) -> Result<(), String> {
        if self.failed.is_some() {
            return Err("the run failed".into());
        }
        if self.final_module_verified(checks) {
            return Ok(());
        }
        let Some(module) = self.final_module() else {
            return Err("the run has no steps".into());
        };
        let options = crate::ir::verify::Options { experimental };
        let errors: Vec<String> = crate::ir::verify::verify_with(module, &options)
            .into_iter()
            .filter(|e| e.level == crate::ir::verify::Level::Error)
            .map(|e| Diagnostic::from(e).to_string())
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        let last = self.steps.last().map_or("", |s| s.pass);
        Err(format!(
            "the result after '{last}' does not pass the verifier, so nothing is written ({} error{}):\n  {}",
            errors.len(),
            if errors.len() == 1 { "" } else { "s" },
            errors.join("\n  ")
        ))
    }

    /// Puts the shader's source text in front of the passes as a step of its own, named
    /// `source`: its module is the compiled input and its text is the source.
    pub fn prepend_source(&mut self, text: Arc<str>) {
        let Some(first) = self.steps.first() else {
            return;
        };
        let plain = Arc::new(Listing::plain(&text));
        let step = Step {
            pass: SOURCE_STEP,
            module: first.module.clone(),
            changed: false,
            inst_count: first.inst_count,
            duration: Duration::ZERO,
            resolution: None,
            diagnostics: Vec::new(),
            error: None,
            preview: first.preview.clone(),
            replacements: Vec::new(),
            outside: false,
            ir_listing: OnceLock::from(plain.clone()),
            spirv_listing: OnceLock::from(plain),
            ir_text: OnceLock::from(text.clone()),
            spirv_text: OnceLock::from(text),
            coverage: OnceLock::new(),
            losses: OnceLock::new(),
            cost: Arc::default(),
        };
        self.steps.insert(0, step);
        if let Some(f) = &mut self.failed {
            *f += 1;
        }
    }

    /// Takes the texts already printed for `earlier`'s steps where this run has the same step
    /// (same pass, same module): what a viewer printed while the run was streaming is not
    /// printed again when the whole run arrives.
    pub fn adopt_texts(&mut self, earlier: &Run) {
        for (mine, theirs) in self.steps.iter_mut().zip(&earlier.steps) {
            if mine.pass != theirs.pass || !Arc::ptr_eq(&mine.module, &theirs.module) {
                continue;
            }
            adopt(&mine.ir_listing, &theirs.ir_listing);
            adopt(&mine.spirv_listing, &theirs.spirv_listing);
            adopt(&mine.ir_text, &theirs.ir_text);
            adopt(&mine.spirv_text, &theirs.spirv_text);
        }
    }

    /// The last step's time is what spirv-opt's `--time-report` said (`reported`), to its
    /// resolution.
    fn reported_time(&mut self, reported: bool) {
        if let Some(last) = self.steps.last_mut() {
            last.resolution = reported.then_some(super::external::TIME_REPORT_RESOLUTION);
        }
    }

    /// `push_step` for a step made outside our passes (`Step::outside`).
    pub fn push_outside_step(
        &mut self,
        pass: &'static str,
        module: Arc<Module>,
        changed: bool,
        duration: Duration,
        diagnostics: Vec<Diagnostic>,
    ) {
        self.push_step(pass, module, changed, duration, diagnostics);
        if let Some(step) = self.steps.last_mut() {
            step.outside = true;
        }
    }

    /// Appends a step made outside any pass (a link step across stages).
    pub fn push_step(
        &mut self,
        pass: &'static str,
        mut module: Arc<Module>,
        changed: bool,
        duration: Duration,
        diagnostics: Vec<Diagnostic>,
    ) {
        let replacements = if module.replacements.is_empty() {
            Vec::new()
        } else {
            std::mem::take(&mut Arc::make_mut(&mut module).replacements)
        };
        let error = diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .map(|d| d.message.clone());
        if error.is_some() && self.failed.is_none() {
            self.failed = Some(self.steps.len());
        }
        self.steps.push(Step {
            pass,
            inst_count: module.inst_count(),
            preview: crate::ir::ops::experimental_ops(&module)
                .iter()
                .map(|o| o.name.as_str())
                .collect(),
            module,
            changed,
            duration,
            resolution: None,
            diagnostics,
            error,
            replacements,
            outside: false,
            ir_listing: OnceLock::new(),
            spirv_listing: OnceLock::new(),
            ir_text: OnceLock::new(),
            spirv_text: OnceLock::new(),
            coverage: OnceLock::new(),
            losses: OnceLock::new(),
            cost: Arc::default(),
        });
    }

    /// Appends the steps of `rest`, a run that continued from this one's module (its `lower`
    /// step, which only took the module over, is left out), and takes its output.
    pub fn append(&mut self, rest: Run) {
        let offset = self.steps.len();
        // A `lower` that failed (`--verify-each` found the module it took over broken) stays,
        // so the failure is in the run and says where it was found.
        let skip = usize::from(rest.failed != Some(0));
        self.failed = self.failed.or(rest.failed.map(|f| f + offset - skip));
        self.steps.extend(rest.steps.into_iter().skip(skip));
        self.output = rest.output;
    }

    pub fn total_time(&self) -> Duration {
        self.steps.iter().map(|s| s.duration).sum()
    }
}

/// Checks run after every pass, to find the first pass that breaks the module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// Run the IR verifier after every pass.
    pub verify_each: bool,
    /// Write every step as SPIR-V and run `spirv-val` on it.
    pub validate_each: bool,
}

pub struct Pipeline {
    pub passes: Vec<Box<dyn Pass>>,
    pub checks: Checks,
    /// Accept experimental ops and let passes emit them (`--experimental`).
    pub experimental: bool,
    /// `link` keeps `Export` linkage on exports nobody imported (`--keep-exports`).
    pub keep_exports: bool,
    /// Keep the module after every step (the app, `--print-after-all`, `--stats`). Without it,
    /// a step holds only its figures and the last one the final module: a build that wants
    /// only the output does not copy the module after every pass.
    pub snapshots: bool,
    /// Run this tool instead of the passes; its passes become the steps (`--external`).
    pub external: Option<super::external::ExternalTool>,
    /// Modules another compiler dumped after its passes, read as the steps after the input
    /// instead of running passes (`--steps`).
    pub dumps: Option<Arc<super::dumps::Dumps>>,
}

impl Pipeline {
    /// A pipeline from pass names; `lower` is put first when the list does not start with it,
    /// because every other pass works on the IR.
    pub fn from_names(names: &[&str]) -> Result<Self, String> {
        // Each pass made once, taken from the list of all; a pass named again is made again.
        let mut all: Vec<Option<Box<dyn Pass>>> =
            registry::all_passes().into_iter().map(Some).collect();
        let mut take = |n: &str| {
            all.iter_mut()
                .find(|p| p.as_ref().is_some_and(|p| p.name() == n))
                .and_then(Option::take)
                .or_else(|| registry::pass(n))
        };
        let mut passes = Vec::new();
        if names.first() != Some(&"lower") {
            passes.push(take("lower").expect("lower exists"));
        }
        for n in names {
            passes.push(take(n).ok_or_else(|| {
                format!("unknown pass '{n}' (run `shaderstep passes` for the list)")
            })?);
        }
        Ok(Pipeline {
            passes,
            checks: Checks::default(),
            experimental: false,
            keep_exports: false,
            snapshots: true,
            external: None,
            dumps: None,
        })
    }

    /// A pipeline that runs `tool` (spirv-opt with its flags): a step for the input as read,
    /// then one per pass the tool ran, named `spirv-opt:PASS`.
    pub fn external(tool: super::external::ExternalTool) -> Self {
        Pipeline {
            passes: Vec::new(),
            checks: Checks::default(),
            experimental: false,
            keep_exports: false,
            snapshots: true,
            external: Some(tool),
            dumps: None,
        }
    }

    /// A pipeline whose steps are another compiler's dumps after its passes: modules in
    /// files, each named after its file (`dumps::step_name`), or the modules a log prints after
    /// the first (the input) , named after their passes. The input is what it runs on.
    pub fn dumps(dumps: super::dumps::Dumps) -> Self {
        Pipeline {
            passes: Vec::new(),
            checks: Checks::default(),
            experimental: false,
            keep_exports: false,
            snapshots: true,
            external: None,
            dumps: Some(Arc::new(dumps)),
        }
    }

    pub fn preset(name: &str) -> Result<Self, String> {
        let names = registry::preset(name).ok_or_else(|| {
            format!(
                "unknown preset '{name}'; presets: {}",
                registry::PRESETS
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        Self::from_names(names)
    }

    /// The pipeline the command line asks for: a `--passes` list if given, else the preset.
    pub fn from_flags(passes: Option<&[String]>, preset: &str) -> Result<Self, String> {
        match passes {
            Some(list) => {
                let names: Vec<&str> = list
                    .iter()
                    .map(String::as_str)
                    .filter(|s| !s.is_empty())
                    .collect();
                Self::from_names(&names)
            }
            None => Self::preset(preset),
        }
    }

    pub fn with_checks(mut self, checks: Checks) -> Self {
        self.checks = checks;
        self
    }

    pub fn with_experimental(mut self, experimental: bool) -> Self {
        self.experimental = experimental;
        self
    }

    pub fn with_keep_exports(mut self, keep: bool) -> Self {
        self.keep_exports = keep;
        self
    }

    pub fn with_snapshots(mut self, snapshots: bool) -> Self {
        self.snapshots = snapshots;
        self
    }

    /// Whether the pipeline links several modules (has a `link` pass).
    pub fn links(&self) -> bool {
        self.passes.iter().any(|p| p.name() == "link")
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    pub fn run(&self, input: Arc<Vec<u32>>) -> Run {
        self.run_decoded(input, None)
    }

    /// Runs on `input`, of which `decoded` (if given) is the decoded module.
    pub fn run_decoded(&self, input: Arc<Vec<u32>>, decoded: Option<(Module, Duration)>) -> Run {
        self.run_cancellable(input, decoded, &|| false)
            .expect("a run that is never cancelled finishes")
    }

    /// Like `run_decoded`, but asks `cancelled` before every pass and gives up (`None`) when it
    /// says so: a newer version of the input makes this run's result worthless.
    pub fn run_cancellable(
        &self,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<Run> {
        self.run_with(
            input,
            decoded,
            Vec::new(),
            cancelled,
            &mut |_| {},
            self.snapshots,
        )
    }

    /// Like `run_cancellable`, and hands each step to `on_step` as soon as its pass is done,
    /// so that a viewer can show the first steps of a long run.
    pub fn run_observed(
        &self,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
        cancelled: &dyn Fn() -> bool,
        on_step: &mut dyn FnMut(&Step),
    ) -> Option<Run> {
        self.run_with(
            input,
            decoded,
            Vec::new(),
            cancelled,
            on_step,
            self.snapshots,
        )
    }

    /// Like `run_cancellable`, keeping only the steps' figures and the final module (as
    /// without `snapshots`): what a list of many shaders keeps of each.
    pub fn run_figures(
        &self,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<Run> {
        self.run_with(input, decoded, Vec::new(), cancelled, &mut |_| {}, false)
    }

    /// Runs on `input` (called `name` in messages) with the modules a `link` pass merges
    /// into it.
    pub fn run_linked(
        &self,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
        name: String,
        link_inputs: Vec<super::link::LinkInput>,
    ) -> Run {
        let mut link_inputs = link_inputs;
        // The first entry names the input itself; `link` puts its module there.
        link_inputs.insert(
            0,
            super::link::LinkInput {
                name,
                module: Module::default(),
            },
        );
        self.run_with(
            input,
            decoded,
            link_inputs,
            &|| false,
            &mut |_| {},
            self.snapshots,
        )
        .expect("a run that is never cancelled finishes")
    }

    /// Runs the passes (or the external tool, or reads the dumps), keeping the module after
    /// every step when `snapshots`.
    fn run_with(
        &self,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
        link_inputs: Vec<super::link::LinkInput>,
        cancelled: &dyn Fn() -> bool,
        on_step: &mut dyn FnMut(&Step),
        snapshots: bool,
    ) -> Option<Run> {
        if let Some(tool) = &self.external {
            return Some(self.run_external(tool, input, decoded));
        }
        if let Some(dumps) = &self.dumps {
            return Some(self.run_dumps(dumps, input, decoded));
        }
        let mut cx = PassCx::new(input);
        cx.decoded = decoded;
        cx.experimental = self.experimental;
        cx.link_inputs = link_inputs;
        cx.keep_exports = self.keep_exports;
        cx.shown = snapshots;
        let mut module = Module::default();
        let mut snapshot = Arc::new(module.clone());
        let mut steps: Vec<Step> = Vec::with_capacity(self.passes.len());
        let mut failed = None;
        for (i, pass) in self.passes.iter().enumerate() {
            if cancelled() {
                return None;
            }
            let stamps_before = self.checks.verify_each.then(|| stamps(&module));
            let start = Instant::now();
            let result = pass.run(&mut module, &mut cx);
            // Location markers the pass made need result ids before anything writes or checks.
            let _ = module.settle_markers();
            let duration = start.elapsed() + std::mem::take(&mut cx.earlier_time);
            let mut diagnostics = std::mem::take(&mut cx.diagnostics);
            let replacements = std::mem::take(&mut module.replacements);
            let broken_promise = stamps_before
                .and_then(|before| kept_promise(pass.as_ref(), &before, &module, &mut diagnostics));
            let (changed, error) = match result {
                Ok(c) => (c == Changed::Yes, None),
                Err(e) => {
                    diagnostics.push(Diagnostic::new(Severity::Error, e.0.clone()));
                    (false, Some(e.0))
                }
            };
            let error = match error.or(broken_promise) {
                None => self.check(self.checks, pass.name(), &module, &mut diagnostics),
                e => e,
            };
            let preview = if changed || steps.is_empty() {
                if snapshots {
                    snapshot = Arc::new(module.snapshot(Some(&snapshot)));
                }
                // Only the input, or a pass allowed to emit them, can bring experimental ops.
                if self.experimental || steps.is_empty() {
                    crate::ir::ops::experimental_ops(&module)
                        .iter()
                        .map(|o| o.name.as_str())
                        .collect()
                } else {
                    Vec::new()
                }
            } else {
                steps.last().map(|s| s.preview.clone()).unwrap_or_default()
            };
            steps.push(Step {
                pass: pass.name(),
                module: snapshot.clone(),
                changed,
                inst_count: module.inst_count(),
                duration,
                resolution: None,
                diagnostics,
                error: error.clone(),
                preview,
                replacements,
                outside: false,
                ir_listing: OnceLock::new(),
                spirv_listing: OnceLock::new(),
                ir_text: OnceLock::new(),
                spirv_text: OnceLock::new(),
                coverage: OnceLock::new(),
                losses: OnceLock::new(),
                cost: Arc::default(),
            });
            on_step(steps.last().expect("the step just pushed"));
            if error.is_some() {
                failed = Some(i);
                break;
            }
        }
        if !snapshots {
            if let Some(last) = steps.last_mut() {
                last.module = Arc::new(module);
            }
        }
        Some(Run {
            steps,
            failed,
            output: cx.output.take(),
        })
    }

    /// The steps of an external tool's run: the input as read (`input`), then one step per
    /// pass of the tool with the module its `--print-all` printed after it (assembled by our
    /// assembler), changed when it differs from the one before with ids renumbered, timed by
    /// the tool's `--time-report`. The run's output is the binary the tool wrote.
    fn run_external(
        &self,
        tool: &super::external::ExternalTool,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
    ) -> Run {
        let mut run = match run_from_input(&input, decoded) {
            Ok(run) => run,
            Err(failed) => return failed,
        };
        let label = tool.label();
        let start = Instant::now();
        let out = match super::external::run_external(tool, &input) {
            Ok(out) => out,
            Err(e) => {
                let before = run.steps[0].module.clone();
                let error = Diagnostic::new(Severity::Error, e);
                run.push_outside_step(intern(&label), before, false, start.elapsed(), vec![error]);
                return run;
            }
        };
        let total = start.elapsed();
        let reported: Duration = out.passes.iter().filter_map(|p| p.wall).sum();
        // A name is the same id at every step, so that a value keeps its id across the
        // tool's passes (the tool's own numeric ids are kept as they are).
        let mut names = SharedNames::above_ids_of(
            std::iter::once(out.input_text.as_str())
                .chain(out.passes.iter().map(|p| p.text.as_str())),
        );
        let mut assemble = |text: &str| {
            assemble_sharing(text, &mut names)
                .map_err(|e| format!("line {}: {}", e.line, e.message))
                .and_then(|a| {
                    crate::ir::spirv::read::read_words(&a.words).map_err(|e| e.to_string())
                })
        };
        // The input step shows the module as the tool read it (its print folds repeated
        // OpLines, for one), so that the first pass's change is its own.
        let mut previous = assemble(&out.input_text).ok().map(Arc::new);
        if let Some(m) = &previous {
            run.steps[0].inst_count = m.inst_count();
            run.steps[0].module = m.clone();
        }
        let mut previous_text = out.input_text;
        for pass in out.passes {
            let name = intern(&format!("{label}:{}", pass.name));
            let before = run.steps.last().expect("the input step").module.clone();
            // The same print as before: the same module, nothing to assemble (half of -O's
            // passes change nothing on a typical shader).
            if pass.text == previous_text {
                if let Some(module) = previous.clone() {
                    let diagnostics = self.checked(name, &module);
                    let duration = pass.wall.unwrap_or_default();
                    run.push_outside_step(name, module, false, duration, diagnostics);
                    run.reported_time(pass.wall.is_some());
                    if run.failed.is_some() {
                        return run;
                    }
                    continue;
                }
            }
            let module = match assemble(&pass.text) {
                Ok(m) => m,
                Err(e) => {
                    let error = Diagnostic::new(
                        Severity::Error,
                        format!(
                            "what {label} printed after {} does not assemble: {e}",
                            pass.name
                        ),
                    );
                    run.push_outside_step(name, before, false, Duration::ZERO, vec![error]);
                    return run;
                }
            };
            let changed = !same_module(previous.as_deref().unwrap_or(&before), &module);
            let diagnostics = self.checked(name, &module);
            let duration = pass.wall.unwrap_or_default();
            let module = Arc::new(module);
            previous = Some(module.clone());
            previous_text = pass.text;
            run.push_outside_step(name, module, changed, duration, diagnostics);
            run.reported_time(pass.wall.is_some());
            if run.failed.is_some() {
                return run;
            }
        }
        // The tool reports pass times to 10 ms: say what the whole run took, where it went.
        if let Some(first) = run.steps.get_mut(1) {
            first.diagnostics.push(Diagnostic::new(
                Severity::Note,
                format!(
                    "{} took {:.1} ms in all, printing every step; its passes report {:.0} ms (--time-report, to 10 ms)",
                    tool.describe(),
                    total.as_secs_f64() * 1e3,
                    reported.as_secs_f64() * 1e3
                ),
            ));
        }
        run.output = Some(out.output);
        run
    }

    /// The steps another compiler dumped: the input as read, then one step per file (named
    /// after it) or per module a log prints after the input (named after its pass), changed
    /// when it differs from the step before but for numbering. Assembly shares its names' ids
    /// across the steps, so a value keeps its id. A dump that does not read is a step with its
    /// error (the module of the step before): the steps after it still open.
    fn run_dumps(
        &self,
        dumps: &super::dumps::Dumps,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
    ) -> Run {
        use super::dumps::{read_printed, step_name, Dumps};
        let mut run = match run_from_input(&input, decoded) {
            Ok(run) => run,
            Err(failed) => return failed,
        };
        // (name, where it is said to be, its text when it is text, a file's path)
        let steps: Vec<(String, String, Option<String>, Option<std::path::PathBuf>)> = match dumps {
            Dumps::Files(_) | Dumps::Dir(_) => match super::dumps::step_files(dumps) {
                Ok(files) => files
                    .into_iter()
                    .map(|f| {
                        let assembly = f.extension().is_some_and(|x| x == "spvasm");
                        let text = assembly.then(|| std::fs::read_to_string(&f).ok()).flatten();
                        (step_name(&f), f.display().to_string(), text, Some(f))
                    })
                    .collect(),
                Err(e) => {
                    let before = run.steps[0].module.clone();
                    let error = Diagnostic::new(Severity::Error, e);
                    run.push_outside_step("dumps", before, false, Duration::ZERO, vec![error]);
                    return run;
                }
            },
            Dumps::Log(path) => {
                let printed = super::dumps::log_text(path).and_then(|t| {
                    super::dumps::parse_log(&t)
                        .ok_or_else(|| format!("{}: not a --print-all log", path.display()))
                });
                match printed {
                    Ok(printed) => printed
                        .into_iter()
                        .skip(1)
                        .map(|p| {
                            let at = format!("{}, after {}", path.display(), p.name);
                            (p.name, at, Some(p.text), None)
                        })
                        .collect(),
                    Err(e) => {
                        let before = run.steps[0].module.clone();
                        let error = Diagnostic::new(Severity::Error, e);
                        run.push_outside_step("log", before, false, Duration::ZERO, vec![error]);
                        return run;
                    }
                }
            }
        };
        let mut names =
            SharedNames::above_ids_of(steps.iter().filter_map(|(_, _, t, _)| t.as_deref()));
        for (name, at, text, file) in &steps {
            let start = Instant::now();
            let name = intern(name);
            let before = run.steps.last().expect("the input step").module.clone();
            let read = match (text, file) {
                (Some(text), _) => read_printed(text, &mut names),
                // Loading decodes the module once already.
                (None, Some(file)) => super::input::load(file.as_path())
                    .map(|l| l.module)
                    .map_err(|e| e.message),
                (None, None) => Err("nothing to read".into()),
            };
            let module = match read {
                Ok(m) => m,
                Err(e) => {
                    let error =
                        Diagnostic::new(Severity::Error, format!("{at}: does not read: {e}"));
                    run.push_outside_step(name, before, false, start.elapsed(), vec![error]);
                    continue;
                }
            };
            let changed = !same_module(&before, &module);
            // The step's time is its reading; checking it is ours.
            let took = start.elapsed();
            let diagnostics = if changed {
                self.dump_checked(name, &module)
            } else {
                self.checked(name, &module)
            };
            run.push_outside_step(name, Arc::new(module), changed, took, diagnostics);
        }
        run
    }

    /// The checks' findings on a step made outside our passes, the error among them.
    pub(crate) fn checked(&self, pass: &str, module: &Module) -> Vec<Diagnostic> {
        self.checked_with(self.checks, pass, module)
    }

    /// `checked` with these checks rather than the pipeline's.
    fn checked_with(&self, checks: Checks, pass: &str, module: &Module) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        if let Some(e) = self.check(checks, pass, module, &mut diagnostics) {
            if !diagnostics.iter().any(|d| d.message == e) {
                diagnostics.push(Diagnostic::new(Severity::Error, e));
            }
        }
        diagnostics
    }

    /// The checks on a step another compiler dumped, which is what is under test: validated
    /// whatever the flags say, by spirv-val where it is installed and else by our verifier
    /// (which never rejects what spirv-val accepts).
    fn dump_checked(&self, pass: &str, module: &Module) -> Vec<Diagnostic> {
        let mut diagnostics = self.checked(pass, module);
        if self.checks.validate_each || diagnostics.iter().any(|d| d.severity == Severity::Error) {
            return diagnostics;
        }
        use super::validate::{check_step, StepCheck};
        match check_step(module) {
            Ok(StepCheck::Invalid {
                env,
                messages,
                lifted,
            }) => {
                let e = invalid(pass, &env, messages, lifted, &mut diagnostics);
                diagnostics.push(Diagnostic::new(Severity::Error, e));
            }
            Ok(StepCheck::Valid { .. } | StepCheck::Skipped(_)) => {}
            Err(_) if !self.checks.verify_each => {
                let verify = Checks {
                    verify_each: true,
                    ..self.checks
                };
                diagnostics = self.checked_with(verify, pass, module);
            }
            Err(_) => {}
        }
        diagnostics
    }

    /// The `--verify-each` / `--validate-each` checks after `pass`; the error names the pass.
    fn check(
        &self,
        checks: Checks,
        pass: &str,
        module: &Module,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        if checks.verify_each && pass != "verify" {
            let options = crate::ir::verify::Options {
                experimental: self.experimental,
            };
            let mut errors = crate::ir::verify::verify_with(module, &options);
            errors.retain(|e| e.level == crate::ir::verify::Level::Error);
            if !errors.is_empty() {
                let n = errors.len();
                diagnostics.extend(errors.into_iter().map(Diagnostic::from));
                let msg = format!(
                    "pass '{pass}' broke the IR: {n} verifier error{}",
                    if n == 1 { "" } else { "s" }
                );
                diagnostics.push(Diagnostic::new(Severity::Error, msg.clone()));
                return Some(msg);
            }
        }
        if checks.validate_each {
            use super::validate::{check_step, StepCheck};
            let msg = match check_step(module) {
                Ok(StepCheck::Valid { lifted }) => {
                    diagnostics.extend(lifted.map(|l| Diagnostic::new(Severity::Note, l)));
                    return None;
                }
                Ok(StepCheck::Skipped(why)) => {
                    diagnostics.push(Diagnostic::new(Severity::Note, why));
                    return None;
                }
                Ok(StepCheck::Invalid {
                    env,
                    messages,
                    lifted,
                }) => invalid(pass, &env, messages, lifted, diagnostics),
                Err(e) => format!("--validate-each: {e}"),
            };
            diagnostics.push(Diagnostic::new(Severity::Error, msg.clone()));
            return Some(msg);
        }
        None
    }
}

/// spirv-val's messages on the output of `pass` as diagnostics (after how it was lifted, when
/// it was), and the error that names the pass.
fn invalid(
    pass: &str,
    env: &str,
    messages: Vec<super::external::ValMessage>,
    lifted: Option<String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> String {
    diagnostics.extend(lifted.map(|l| Diagnostic::new(Severity::Note, l)));
    let first = messages.first().map_or(String::new(), |m| m.text.clone());
    diagnostics.extend(messages.into_iter().map(|m| Diagnostic {
        severity: Severity::Error,
        message: format!("spirv-val: {}", m.text),
        function: None,
        at: m.id,
        place: None,
    }));
    format!("the output of pass '{pass}' does not validate ({env}): {first}")
}

/// A run of steps made outside our passes, begun with the step `input` as read (`decoded`
/// where it was already); `Err` with that run where the input does not read, its one step
/// saying why.
fn run_from_input(input: &[u32], decoded: Option<(Module, Duration)>) -> Result<Run, Run> {
    let mut run = Run {
        steps: Vec::new(),
        failed: None,
        output: None,
    };
    let start = Instant::now();
    let module = match decoded {
        Some((m, _)) => Ok(m),
        None => crate::ir::spirv::read::read_words(input).map_err(|e| e.to_string()),
    };
    match module {
        Ok(m) => {
            run.push_step("input", Arc::new(m), true, start.elapsed(), Vec::new());
            Ok(run)
        }
        Err(e) => {
            let error = Diagnostic::new(Severity::Error, e);
            run.push_step("input", Arc::default(), false, start.elapsed(), vec![error]);
            Err(run)
        }
    }
}

/// Whether two modules are the same but for how their ids are numbered.
fn same_module(a: &Module, b: &Module) -> bool {
    if a.inst_count() != b.inst_count() {
        return false;
    }
    let (mut a, mut b) = (a.clone(), b.clone());
    super::passes::compact_ids::compact_ids(&mut a);
    super::passes::compact_ids::compact_ids(&mut b);
    write::write_words(&a) == write::write_words(&b)
}

/// A step name made at run time (an external tool's pass), kept for the program's life: the
/// names come from the tool's fixed set of passes, so the set stays small.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<std::sync::Mutex<std::collections::HashSet<&'static str>>> =
        OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// The analysis stamps of every function, by id.
fn stamps(m: &Module) -> Vec<(crate::ir::Id, crate::ir::func::Stamps)> {
    m.functions().iter().map(|f| (f.id(), f.stamps())).collect()
}

/// Under `--verify-each`: an error when a pass changed what it promised to keep
/// (`Pass::preserves`) — the CFG of a function, or any function body.
fn kept_promise(
    pass: &dyn Pass,
    before: &[(crate::ir::Id, crate::ir::func::Stamps)],
    after: &Module,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<String> {
    let promise = pass.preserves();
    if promise == Preserves::Nothing {
        return None;
    }
    let mut error = None;
    for (id, old) in before {
        let Some(f) = after.function(*id) else {
            continue;
        };
        let new = f.stamps();
        let broken = match promise {
            Preserves::Cfg => new.cfg != old.cfg,
            _ => new != *old,
        };
        if broken {
            let what = if promise == Preserves::Cfg {
                "the control-flow graph"
            } else {
                "every function body"
            };
            let message = format!(
                "pass '{}' promises to keep {what} but changed it",
                pass.name()
            );
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                message: message.clone(),
                function: Some(*id),
                at: None,
                place: None,
            });
            error.get_or_insert(message);
        }
    }
    error
}
