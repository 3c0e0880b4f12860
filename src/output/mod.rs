//! Outputs: tables, CSV, JSON and Markdown.
pub mod number;
