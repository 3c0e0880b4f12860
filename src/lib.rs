//! fallcost: prices the resilience decisions teams make around LLM APIs.
pub mod error;
pub mod input;
pub mod model;
pub mod output;
