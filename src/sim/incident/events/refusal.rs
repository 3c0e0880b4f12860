//! The requests whose route passes over a fallback that cannot serve them (its context window,
//! a capability; MODEL.md §11, "Refused by the context window or a capability"): the walk
//! never reaches such a link (`model::policy::allowed_links`), so the simulator counts them
//! where they go past it, as the closed forms do (`model::policy::PolicyOutcome::refused_hits`).

use crate::model::{Chain, Pattern};
use crate::sim::incident::fast::IncidentLink;

use super::{Flight, Run, Window};

/// Per window position of `links` (and one past the last), whether a request sent there has
/// passed over a link of `chain` that cannot serve it, as the closed forms count
/// (`model::policy::evaluate_plan`, `model::hedge`): in sequence, any such link before the
/// position's; in a hedge, one before the backup once the backup is sent or the request goes
/// past the legs, else (the backup is link 1) one after the backup before the position's;
/// never under `no-fallback`.
pub(super) fn passes_refusal(chain: &Chain, pattern: Pattern, links: &[IncidentLink]) -> Vec<bool> {
    let index = |p: usize| links.get(p).map_or(chain.links.len(), |l| l.role.index);
    let refused = |from: usize, to: usize| (from..to).any(|j| chain.links[j].refusal.is_some());
    (0..=links.len())
        .map(|p| match pattern {
            _ if p == 0 => false,
            Pattern::NoFallback => false,
            Pattern::Sequential => refused(1, index(p)),
            _ if index(1) > 1 => refused(1, index(1)),
            _ => refused(1, index(p)),
        })
        .collect()
}

impl Window<'_> {
    /// Request `f` is sent to window position `pos` (one past the last: it failed over past
    /// every link): counted once if its route passed over a link that cannot serve it.
    pub(super) fn reach(&self, pos: usize, f: &mut Flight, run: &mut Run) {
        if !f.passed && self.passes_refusal.get(pos).copied().unwrap_or(false) {
            f.passed = true;
            run.base.refused += 1.0;
        }
    }
}
