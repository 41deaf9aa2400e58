//! `lift`: IR → SPIR-V. Writes the module as a binary (keeping the input's generator word) and
//! reads it back, so the step shows exactly what leaves the pipeline and an encoding fault is
//! caught here rather than by a driver. A module still in the IR's dialect (bit-vectors,
//! untyped pointers) is not SPIR-V a driver takes: lifting it fails and names the ops left.
//! When nobody looks at the steps (a build that wants only the output), it only writes: the
//! read-back is what the step shows, and the `verify` before it has checked the module.

use crate::ir::ops;
use crate::ir::rewrite;
use crate::ir::spirv::{read, write};
use crate::ir::Module;
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct Lift;

impl Pass for Lift {
    fn name(&self) -> &'static str {
        "lift"
    }
    fn description(&self) -> &'static str {
        "write the IR as a SPIR-V binary and read it back"
    }
    fn run(&self, module: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let left = ops::dialect_ops(module);
        if !left.is_empty() {
            let names: Vec<&str> = left.iter().map(|o| o.name.as_str()).collect();
            return Err(PassError(format!(
                "the module still uses the shaderstep dialect ({}): run qptr-lift and assign-types \
                 before lift",
                names.join(", ")
            )));
        }
        // An import of the dialect nothing uses any more.
        let before = module.preamble().len();
        rewrite::retain_preamble(module, |i| !ops::is_dialect_import(i));
        let words = write::write_words(module);
        if !cx.shown {
            cx.output = Some(words);
            return Ok((module.preamble().len() != before).into());
        }
        let back = read::read_words(&words)
            .map_err(|e| PassError(format!("lifted SPIR-V does not read back: {e}")))?;
        // Writing what was read back gives the same words unless lifting lost something;
        // comparing encodings is much cheaper than comparing modules.
        let changed = module.preamble().len() != before || write::write_words(&back) != words;
        *module = back;
        cx.output = Some(words);
        Ok(changed.into())
    }
}
