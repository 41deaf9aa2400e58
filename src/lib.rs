pub mod app;
pub mod ir;
pub mod pipeline;
pub mod views;
