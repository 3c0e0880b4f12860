//! Input formats: price tables and scenarios, parsed strictly with file:line:col errors.
pub mod document;
