//! fallcost's integration tests, built as one binary: one link instead of one per file, and
//! `cargo test` spreads every file's tests over all cores at once (separate binaries run one
//! after another). Each module is one area; `common` runs the built `fallcost` binary from the
//! repository root. Run one area with `cargo test --test it cli::` (a module path prefix).

mod common;

mod action;
mod agreement;
mod bad_inputs;
mod calibrate;
mod calibrate_dirty;
mod calibrate_real;
mod capacity;
mod check;
mod check_fit;
mod cli;
mod cli_ux;
mod compare_config;
mod conflict_markers;
mod csv_headers;
mod diff;
mod diff_cases;
mod docs_commands;
mod gateways;
mod history;
mod issue10;
mod issue33;
mod issue38;
mod json_contract;
mod layout;
mod long_history;
mod mc;
mod parity;
mod policies_mc;
mod posts;
mod properties;
mod readme;
mod real_prices;
mod reconcile;
mod report_fixes;
mod rng_pinned;
mod schemas;
mod snapshots;
mod sparse;
mod sweep;
mod timeline_agreement;
mod timeline_analytic;
mod timeline_mc;
mod timeline_regressions;
mod tune;
mod width80;
