//! The operations behind the subcommands, as a library: each takes resolved inputs and returns
//! a result type (no parsing of flags, no rendering); `cmd` calls them and `output` renders
//! what they return.

pub mod check;
pub mod compare;
pub mod diff;
pub mod error;
pub mod history;
pub mod inputs;
pub mod prices;
pub mod reconcile;
pub mod sweep;
pub mod tune;

pub use error::{OpsError, OpsResult};
