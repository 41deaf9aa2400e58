//! `link`: merges the pipeline's other inputs into the module (module linking, see
//! `pipeline::link::module`): imports resolved against exports with a type check, equal types
//! and constants merged, exports nobody imported unexported (unless `--keep-exports`), the
//! `Linkage` capability removed when nothing is left to link. It needs at least two inputs.

use crate::pipeline::link::{link, LinkInput, LinkOptions};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Severity};

pub struct Link;

impl Pass for Link {
    fn name(&self) -> &'static str {
        "link"
    }
    fn description(&self) -> &'static str {
        "merge the other inputs in: resolve imports against exports, merge equal types"
    }
    fn run(&self, module: &mut crate::ir::Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        // The first entry stands for the module itself (`Pipeline::run_linked`).
        if cx.link_inputs.len() < 2 {
            return Err(PassError(
                "link needs the modules to link: give several inputs (shaderstep run a.spv b.spv --preset link)".into(),
            ));
        }
        let mut inputs: Vec<LinkInput> = std::mem::take(&mut cx.link_inputs);
        inputs[0].module = std::mem::take(module);
        let (linked, report) = link(
            inputs,
            LinkOptions {
                keep_exports: cx.keep_exports,
            },
        )
        .map_err(PassError)?;
        *module = linked;
        cx.diag(
            Severity::Note,
            format!(
                "resolved {} import{} ({}); merged {} equal types and constants; {}",
                report.resolved.len(),
                if report.resolved.len() == 1 { "" } else { "s" },
                report.resolved.join(", "),
                report.merged_types_and_constants,
                if report.dropped_exports.is_empty() {
                    "no export linkage dropped".to_string()
                } else {
                    format!(
                        "export linkage dropped: {}",
                        report.dropped_exports.join(", ")
                    )
                }
            ),
        );
        Ok(Changed::Yes)
    }
}
