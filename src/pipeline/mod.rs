//! The compiler core's driver: inputs, passes, pipelines and the steps they record. It knows
//! the IR and nothing of terminals.

pub mod cfg;
pub mod columns;
pub mod compile;
pub mod cost;
pub mod decompile;
pub mod diff;
pub mod driver_code;
pub mod dumps;
pub mod exec;
pub mod external;
pub mod gpu;
pub mod history;
pub mod input;
pub mod link;
pub mod manager;
pub mod oracle;
pub mod pass;
pub mod passes;
pub mod reduce;
pub mod registry;
pub mod semantic;
pub mod step_values;
pub mod validate;

pub use link::run::{StageInput, StageLink};
pub use manager::{Checks, Pipeline, Run, Step};
pub use pass::{Changed, Diagnostic, Pass, PassCx, PassError, Severity};
