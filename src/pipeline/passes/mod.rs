//! One file per pass.

pub mod assign_types;
pub mod compact_ids;
pub mod dce;
pub mod fold;
pub mod lift;
pub mod lower;
pub mod strip_debug;
pub mod untype;
pub mod verify;
