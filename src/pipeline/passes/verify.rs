//! `verify`: checks the IR invariants listed in `ir::verify` and reports every violation as an
//! error diagnostic on its function and instruction. It changes nothing; it fails when it finds
//! anything, so the pipeline stops at the first broken module.

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
        let n = errors.len();
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
