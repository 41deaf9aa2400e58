//! One file per pass.

pub mod adce;
pub mod assign_types;
pub mod block_merge;
pub mod compact_ids;
pub mod copy_prop;
pub mod dce;
pub mod eliminate_dead_functions;
pub mod fold;
pub mod gvn;
pub mod inline;
pub mod lift;
pub mod link;
pub mod local_redundant_load;
pub mod lower;
pub mod mem2reg;
pub mod merge_return;
pub mod private_to_local;
pub mod qptr_analyze;
pub mod qptr_lift;
pub mod qptr_lower;
pub mod simplify;
pub mod sroa;
pub mod strip_debug;
pub mod untype;
pub mod verify;
