//! Linking: several modules into one (module linking, `spirv-link`'s job).

pub mod module;

pub use module::{link, LinkInput, LinkOptions, LinkReport};
