//! One file per pass.

pub mod assign_types;
pub mod compact_ids;
pub mod dce;
pub mod fold;
pub mod lift;
pub mod link;
pub mod lower;
pub mod qptr_analyze;
pub mod qptr_lift;
pub mod qptr_lower;
pub mod simplify;
pub mod strip_debug;
pub mod untype;
pub mod verify;
