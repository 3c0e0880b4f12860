//! Operations: what the commands compute, as a library (results, no rendering).

pub mod compare;
