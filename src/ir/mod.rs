//! The IR: a SPIR-V module split into typed sections, with functions as structured control-flow
//! graphs whose instructions live in an arena apart from their order. It knows nothing of
//! passes, pipelines or terminals.

pub mod analysis;
pub mod build;
pub mod consts;
pub mod debug;
pub mod exec;
pub mod ext_sets;
pub mod func;
pub mod fxhash;
pub mod idmap;
pub mod inst;
pub mod listing;
pub mod loc;
pub mod markers;
pub mod module;
pub mod names;
pub mod number;
pub mod ops;
pub mod parse;
pub mod print;
pub mod qptr;
pub mod rewrite;
pub mod spirv;
pub mod strings;
pub mod types;
pub mod typing;
pub mod usage;
pub mod verify;

pub use func::{Block, Function, InstId, Merge};
pub use inst::{Id, Inst, Opd};
pub use module::Module;
