//! The incident Monte Carlo engines (MODEL.md §6, §9): K repeated outage windows per chain and
//! pattern, in time, with sessions and per-session cache state.
//!
//! - [`fast`]: the fast simulator, for the default client policy;
//! - [`events`]: the event simulator, for any other policy (dead time, attempts on the dead
//!   provider) and the only engine for a circuit breaker;
//! - [`circuit`]: the circuit breaker's state machine (closed, open, half-open), one per
//!   provider in [`events`];
//! - `drawn`: a window's arrival times, its first draws, shared between the simulations that
//!   draw the same window (`fallcost tune`'s candidates on the fixed-seed stream);
//! - `clock`: an incident timeline (issue 14) as [`events`] reads it in time: each link's
//!   state at a request's time, the runs in which the primary answers nothing.
//!
//! The closed forms are in [`crate::model::incident`]; [`super::Engine::for_chain`] picks the
//! engines per chain ([`super::IncidentEngine`]).

pub mod circuit;
mod clock;
mod drawn;
pub mod events;
pub mod fast;
