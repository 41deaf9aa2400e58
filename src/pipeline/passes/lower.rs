//! `lower`: SPIR-V → IR. Reads the pipeline's input binary into a module, replacing whatever
//! the module held. It does not change any instruction: every pass after it sees the input
//! exactly as it came, in structured form. Input that uses experimental ops is rejected unless
//! the pipeline runs with `--experimental`. Debug info the core does not understand (another
//! `NonSemantic.*` set, a record its grammar does not have) gets one warning.

use crate::ir::ops;
use crate::ir::spirv::read;
use crate::ir::Module;
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Severity};

pub struct Lower;

impl Pass for Lower {
    fn name(&self) -> &'static str {
        "lower"
    }
    fn description(&self) -> &'static str {
        "read the input SPIR-V into the IR: sections, interned types and constants, structured CFGs"
    }
    fn run(&self, module: &mut Module, cx: &mut PassCx) -> Result<Changed, PassError> {
        *module = match cx.decoded.take() {
            Some((m, time)) => {
                cx.earlier_time = time;
                m
            }
            None => read::read_words(&cx.input).map_err(|e| PassError(e.to_string()))?,
        };
        if !cx.experimental {
            let found = ops::experimental_ops(module);
            if !found.is_empty() {
                return Err(PassError(format!(
                    "the input uses experimental op{} {}: pass --experimental to accept {}",
                    if found.len() == 1 { "" } else { "s" },
                    ops::describe_experimental(&found),
                    if found.len() == 1 { "it" } else { "them" }
                )));
            }
        }
        // Debug info the core does not understand is kept as it was; the run says so once.
        let unknown = crate::ir::debug::not_understood(module);
        if !unknown.is_empty() {
            cx.diag(
                Severity::Warning,
                format!(
                    "debug info not understood, kept as it was: {}",
                    unknown.join(", ")
                ),
            );
        }
        Ok(Changed::Yes)
    }
}
