//! Runs a pipeline and records a `Step` after every pass: the IR snapshot, whether the pass
//! changed it, instruction count, time and diagnostics. Snapshots of passes that changed
//! nothing share the previous one; step text is rendered on first use and cached.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::pass::{Changed, Diagnostic, Pass, PassCx, Severity};
use super::registry;
use crate::ir::spirv::disasm::{disassemble, DisasmOptions};
use crate::ir::spirv::write;
use crate::ir::{print, Module};

/// The name of the step that shows the source text (see `Run::prepend_source`).
pub const SOURCE_STEP: &str = "source";

pub struct Step {
    pub pass: &'static str,
    pub module: Arc<Module>,
    pub changed: bool,
    pub inst_count: usize,
    pub duration: Duration,
    pub diagnostics: Vec<Diagnostic>,
    /// The pass failed with this error; the module is the one it was given.
    pub error: Option<String>,
    /// The module uses experimental ops (a *preview* module): their names.
    pub preview: Vec<&'static str>,
    ir_text: OnceLock<Arc<str>>,
    spirv_text: OnceLock<Arc<str>>,
}

impl Step {
    /// The IR text form of this step's module.
    pub fn ir_text(&self) -> Arc<str> {
        self.ir_text
            .get_or_init(|| print::print(&self.module).into())
            .clone()
    }

    /// The `spirv-dis` style disassembly of this step's module.
    pub fn spirv_text(&self) -> Arc<str> {
        self.spirv_text
            .get_or_init(|| disassemble(&self.module, &DisasmOptions::default()).into())
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

    /// Puts the shader's source text in front of the passes as a step of its own, named
    /// `source`: its module is the compiled input and its text is the source.
    pub fn prepend_source(&mut self, text: Arc<str>) {
        let Some(first) = self.steps.first() else {
            return;
        };
        let step = Step {
            pass: SOURCE_STEP,
            module: first.module.clone(),
            changed: false,
            inst_count: first.inst_count,
            duration: Duration::ZERO,
            diagnostics: Vec::new(),
            error: None,
            preview: first.preview.clone(),
            ir_text: OnceLock::from(text.clone()),
            spirv_text: OnceLock::from(text),
        };
        self.steps.insert(0, step);
        if let Some(f) = &mut self.failed {
            *f += 1;
        }
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
}

impl Pipeline {
    /// A pipeline from pass names; `lower` is put first when the list does not start with it,
    /// because every other pass works on the IR.
    pub fn from_names(names: &[&str]) -> Result<Self, String> {
        let mut passes = Vec::new();
        if names.first() != Some(&"lower") {
            passes.push(registry::pass("lower").expect("lower exists"));
        }
        for n in names {
            passes.push(registry::pass(n).ok_or_else(|| {
                format!("unknown pass '{n}' (run `shaderstep passes` for the list)")
            })?);
        }
        Ok(Pipeline {
            passes,
            checks: Checks::default(),
            experimental: false,
            keep_exports: false,
        })
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
        self.run_with(input, decoded, Vec::new(), cancelled)
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
        self.run_with(input, decoded, link_inputs, &|| false)
            .expect("a run that is never cancelled finishes")
    }

    fn run_with(
        &self,
        input: Arc<Vec<u32>>,
        decoded: Option<(Module, Duration)>,
        link_inputs: Vec<super::link::LinkInput>,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<Run> {
        let mut cx = PassCx::new(input);
        cx.decoded = decoded;
        cx.experimental = self.experimental;
        cx.link_inputs = link_inputs;
        cx.keep_exports = self.keep_exports;
        let mut module = Module::default();
        let mut snapshot = Arc::new(module.clone());
        let mut steps: Vec<Step> = Vec::with_capacity(self.passes.len());
        let mut failed = None;
        for (i, pass) in self.passes.iter().enumerate() {
            if cancelled() {
                return None;
            }
            let start = Instant::now();
            let result = pass.run(&mut module, &mut cx);
            let duration = start.elapsed() + std::mem::take(&mut cx.earlier_time);
            let mut diagnostics = std::mem::take(&mut cx.diagnostics);
            let (changed, error) = match result {
                Ok(c) => (c == Changed::Yes, None),
                Err(e) => {
                    diagnostics.push(Diagnostic::new(Severity::Error, e.0.clone()));
                    (false, Some(e.0))
                }
            };
            let error = match error {
                None => self.check(pass.name(), &module, &mut diagnostics),
                e => e,
            };
            let preview = if changed || steps.is_empty() {
                snapshot = Arc::new(module.clone());
                crate::ir::ops::experimental_ops(&snapshot)
                    .iter()
                    .map(|o| o.name.as_str())
                    .collect()
            } else {
                steps.last().map(|s| s.preview.clone()).unwrap_or_default()
            };
            steps.push(Step {
                pass: pass.name(),
                module: snapshot.clone(),
                changed,
                inst_count: snapshot.inst_count(),
                duration,
                diagnostics,
                error: error.clone(),
                preview,
                ir_text: OnceLock::new(),
                spirv_text: OnceLock::new(),
            });
            if error.is_some() {
                failed = Some(i);
                break;
            }
        }
        Some(Run {
            steps,
            failed,
            output: cx.output.take(),
        })
    }

    /// The `--verify-each` / `--validate-each` checks after `pass`; the error names the pass.
    fn check(
        &self,
        pass: &str,
        module: &Module,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        if self.checks.verify_each && pass != "verify" {
            let options = crate::ir::verify::Options {
                experimental: self.experimental,
            };
            let errors = crate::ir::verify::verify_with(module, &options);
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
        if self.checks.validate_each {
            let dialect = crate::ir::ops::dialect_ops(module);
            if !dialect.is_empty() {
                let names: Vec<&str> = dialect.iter().map(|o| o.name.as_str()).collect();
                diagnostics.push(Diagnostic::new(
                    Severity::Note,
                    format!(
                        "not validated with spirv-val: the module is in the shaderstep dialect ({})",
                        names.join(", ")
                    ),
                ));
                return None;
            }
            let words = write::write_words(module);
            let env = super::external::target_env(module);
            let msg = match super::external::spirv_val(&words, &env) {
                Ok(super::external::Validation::Valid) => return None,
                Ok(super::external::Validation::Invalid(messages)) => {
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
                Err(e) => format!("--validate-each: {e}"),
            };
            diagnostics.push(Diagnostic::new(Severity::Error, msg.clone()));
            return Some(msg);
        }
        None
    }
}
