//! The IR: a SPIR-V module split into typed sections, with functions as structured control-flow
//! graphs. It knows nothing of passes, pipelines or terminals.

pub mod build;
pub mod cfg;
pub mod idmap;
pub mod inst;
pub mod module;
pub mod names;
pub mod ops;
pub mod parse;
pub mod print;
pub mod qptr;
pub mod spirv;
pub mod typing;
pub mod verify;

pub use inst::{Id, Inst};
pub use module::{Block, Function, Merge, Module};
