//! The steady-state Monte Carlo engines (MODEL.md §9): N requests per chain, the long-run mean.
//!
//! - [`fast`]: the fast path, for the default client policy (one attempt per link, no caps, no
//!   hedge delay, no breaker): all four patterns on the same draws;
//! - [`policy`]: the policy path, for any other policy (retries, backoff, caps, hedge delay,
//!   breaker): request by request, with attempts, dead time, attribution and cap hits (§8).
//!
//! [`super::Engine::for_chain`] picks one per chain ([`super::SteadyEngine`]).

pub mod fast;
pub mod policy;
