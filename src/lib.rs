pub mod app;
pub mod ir;
pub mod pipeline;
