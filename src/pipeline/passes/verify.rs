//! `verify`: checks the IR invariants listed in `ir::verify` and reports every violation as a
//! diagnostic on its function and instruction. It changes nothing; it fails when it finds an
//! error, so the pipeline stops at the first broken module. What it finds by its own reading of
//! SPIR-V's typing, capability and version rules is a warning: `spirv-val` is the reference,
//! and a module it accepts must get through.

use crate::ir::{verify, Module};
use crate::pipeline::pass::{Changed, Diagnostic, Pass, PassCx, PassError, Preserves};

pub struct Verify;

impl Pass for Verify {
    fn name(&self) -> &'static str {
        "verify"
    }
    fn description(&self) -> &'static str {
        "check IR invariants: ids, dominance, SSA, structured control flow, operand types"
    }
    fn preserves(&self) -> Preserves {
        Preserves::All
    }
    fn run(&self, module: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        let errors = verify::verify_with(module, &cx.verify_options());
        let n = errors
            .iter()
            .filter(|e| e.level == verify::Level::Error)
            .count();
        for e in errors {
            cx.diagnostics.push(Diagnostic::from(e));
        }
        if n > 0 {
            return Err(PassError(format!(
                "the IR is invalid ({n} error{})",
                if n == 1 { "" } else { "s" }
            )));
        }
        Ok(Changed::No)
    }
}
