//! Linking: several modules into one (module linking, `spirv-link`'s job), and the stages of a
//! graphics pipeline against each other (pipeline linking).

pub mod glue;
pub mod module;
pub mod run;
pub mod stages;
pub mod state;

pub use module::{link, LinkInput, LinkOptions, LinkReport};
pub use stages::LinkOrder;
