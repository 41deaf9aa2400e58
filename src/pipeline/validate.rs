//! One step's module through `spirv-val`, for `--validate-each` and `:bisect`. A step in the
//! shaderstep dialect (bit-vector values, untyped pointers) is not SPIR-V: a copy of it is
//! lifted first — `qptr-analyze`, `qptr-lift` and `assign-types`, the passes that leave the
//! dialect, then `lift` — and that copy is validated. A step whose copy still uses the dialect is skipped,
//! saying so; it is never reported as invalid for being in the dialect.

use std::sync::Arc;

use super::external::{spirv_val, target_env, ValMessage, Validation};
use super::pass::PassCx;
use super::registry;
use crate::ir::ops;
use crate::ir::spirv::write;
use crate::ir::Module;

/// The passes that take a module out of the dialect, in order.
const OUT_OF_DIALECT: [&str; 3] = ["qptr-analyze", "qptr-lift", "assign-types"];

pub enum StepCheck {
    Valid {
        /// How the step was made SPIR-V first, when it had to be.
        lifted: Option<String>,
    },
    Invalid {
        env: String,
        messages: Vec<ValMessage>,
        lifted: Option<String>,
    },
    /// In the dialect, and lifting a copy left dialect ops (named).
    Skipped(String),
}

/// A copy of `module` run through `passes`, then `lift` (which drops the dialect's import,
/// unused by then); or why it is not SPIR-V.
fn lifted_copy(module: &Module, passes: &[&str]) -> Result<Module, String> {
    let mut copy = module.clone();
    let mut cx = PassCx::new(Arc::new(Vec::new()));
    for name in passes {
        let pass = registry::pass(name).expect("the dialect's passes are registered");
        pass.run(&mut copy, &mut cx)
            .map_err(|e| format!("{name} failed on a copy: {}", e.0))?;
    }
    let left = ops::dialect_ops(&copy);
    if !left.is_empty() {
        let names: Vec<&str> = left.iter().map(|o| o.name.as_str()).collect();
        return Err(format!(
            "a copy lifted by {} still uses {}",
            passes.join(", "),
            names.join(", ")
        ));
    }
    let lift = registry::pass("lift").expect("lift is registered");
    lift.run(&mut copy, &mut cx)
        .map_err(|e| format!("lift failed on a copy: {}", e.0))?;
    Ok(copy)
}

/// A step's module as SPIR-V.
pub struct AsSpirv {
    pub words: Vec<u32>,
    /// How it was lifted out of the dialect, when it had to be.
    pub lifted: Option<String>,
    /// The lifted copy, when there is one.
    pub copy: Option<Module>,
}

/// A step's module as SPIR-V: written as it is, or, in the dialect, a copy lifted out of it
/// first. Err: why it is not SPIR-V (a copy lifted still uses the dialect).
pub fn spirv_of(module: &Module) -> Result<AsSpirv, String> {
    if !module.preamble().iter().any(ops::is_dialect_import) {
        return Ok(AsSpirv {
            words: write::write_words(module),
            lifted: None,
            copy: None,
        });
    }
    let dialect = ops::dialect_ops(module);
    let names: Vec<&str> = dialect.iter().map(|o| o.name.as_str()).collect();
    // Out of the dialect but for its import, only `lift` is needed.
    let passes: &[&str] = if dialect.is_empty() {
        &[]
    } else {
        &OUT_OF_DIALECT
    };
    match lifted_copy(module, passes) {
        Ok(copy) => {
            let how = (!dialect.is_empty()).then(|| {
                format!(
                    "in the shaderstep dialect ({}): a copy lifted by {}",
                    names.join(", "),
                    OUT_OF_DIALECT.join(", ")
                )
            });
            Ok(AsSpirv {
                words: write::write_words(&copy),
                lifted: how,
                copy: Some(copy),
            })
        }
        Err(why) => Err(format!(
            "the module is in the shaderstep dialect ({}) and {why}",
            names.join(", ")
        )),
    }
}

/// Validates `module` with `spirv-val` (its target environment from `target_env`); `Err` when
/// spirv-val cannot run.
pub fn check_step(module: &Module) -> Result<StepCheck, String> {
    let AsSpirv {
        words,
        lifted,
        copy,
    } = match spirv_of(module) {
        Ok(x) => x,
        Err(why) => return Ok(StepCheck::Skipped(format!("not validated: {why}"))),
    };
    let env = target_env(copy.as_ref().unwrap_or(module));
    // Said as before: what was validated.
    let lifted = lifted.map(|how| how.replace(": a copy lifted", ": validated a copy lifted"));
    Ok(match spirv_val(&words, &env)? {
        Validation::Valid => StepCheck::Valid { lifted },
        Validation::Invalid(messages) => StepCheck::Invalid {
            env,
            messages,
            lifted,
        },
    })
}

/// What `:bisect` found: the first step spirv-val rejects, if one is.
pub struct FirstInvalid {
    /// (step, its diagnostics: how it was lifted and spirv-val's messages, the first message).
    pub first: Option<(usize, Vec<super::Diagnostic>, String)>,
    /// Steps validated, and those in the dialect that could not be lifted (skipped).
    pub passes: usize,
    pub skipped: usize,
}

/// Validates each step of `run` with spirv-val, in order, and stops at the first that fails:
/// what bisecting would find, without assuming a later pass cannot repair the module. `Err`
/// when spirv-val cannot run.
pub fn first_invalid(run: &super::Run) -> Result<FirstInvalid, String> {
    use super::{Diagnostic, Severity};
    let mut out = FirstInvalid {
        first: None,
        passes: 0,
        skipped: 0,
    };
    // The source step's module is the input, which the first pass shows too.
    for (i, step) in run
        .steps
        .iter()
        .enumerate()
        .filter(|(_, st)| !st.is_source())
    {
        out.passes += 1;
        match check_step(&step.module)? {
            StepCheck::Valid { .. } => {}
            StepCheck::Skipped(_) => out.skipped += 1,
            StepCheck::Invalid {
                messages, lifted, ..
            } => {
                let first = messages.first().map_or(String::new(), |m| m.text.clone());
                let diags = lifted
                    .map(|l| Diagnostic::new(Severity::Note, l))
                    .into_iter()
                    .chain(messages.into_iter().map(|m| Diagnostic {
                        severity: Severity::Error,
                        message: format!("spirv-val: {}", m.text),
                        function: None,
                        at: m.id,
                        place: None,
                    }))
                    .collect();
                out.first = Some((i, diags, first));
                return Ok(out);
            }
        }
    }
    Ok(out)
}
