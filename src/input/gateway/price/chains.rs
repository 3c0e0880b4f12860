//! One gateway route written as scenario chains: one chain per combination of deployments
//! (with each combination's share of the traffic), its policy, and the provenance of every
//! value taken from the config.

use super::{Provenance, quoted, table_id};
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Endpoint};
use crate::model::PriceTable;

/// One deployment a step of a chain may send to: its price-table id, its share of the step's
/// traffic, the deployment.
pub(super) struct Pick<'a> {
    pub(super) id: String,
    /// Set when the config prices the deployment itself: what the provenance says of it.
    pub(super) own_price: Option<String>,
    pub(super) share: f64,
    pub(super) ep: &'a Endpoint,
}

/// The most chains one config chain becomes (one per combination of deployments); beyond it,
/// a fallback group is priced as its largest-share deployment.
pub(super) const MAX_COMBINATIONS: usize = 64;

/// What the routes of the configs become as they are written: the scenario's chains (names,
/// TOML text), the provenance of every value taken, and the deployments with no price.
#[derive(Default)]
pub(super) struct WrittenChains {
    /// The chain names given so far (each unique).
    pub(super) names: Vec<String>,
    /// The scenario's chains, in order.
    pub(super) chains: Vec<Emitted>,
    /// The routes read so far (the chains of one route share its number).
    pub(super) routes: usize,
    /// Every value taken from the configs, in chain order.
    pub(super) provenance: Vec<Provenance>,
    /// Each deployment the price table has no price for (once, however many routes reach it):
    /// its error and its model, so that all of them are reported together, in line order.
    pub(super) unknown: Vec<(InputError, String)>,
    /// The prices the configs set themselves, by scenario id (added to the scenario's table).
    pub(super) prices: Vec<crate::model::ModelPrice>,
    /// The traffic each chain serves, in chain order.
    pub(super) served: Vec<super::Served>,
}

/// One scenario chain a route became.
pub(super) struct Emitted {
    /// Its name (unique).
    pub(super) name: String,
    /// Its models' price-table ids, primary first.
    pub(super) models: Vec<String>,
    /// Its `policy = { ... }` entries.
    pub(super) policy: Vec<String>,
    /// Its `link_timeouts_s` entries: (model id, seconds), where a link's own timeout is not
    /// the policy's.
    pub(super) link_timeouts: Vec<(String, f64)>,
    /// Its `max_output_tokens` entries: (model id, tokens).
    pub(super) caps: Vec<(String, u64)>,
    /// Its links' rate limits read as their quotas (model id, limit): a deployment alone in
    /// its group with `rpm`/`tpm` ([`crate::input::gateway::Endpoint::limit`]).
    pub(super) limits: Vec<(String, crate::model::fit::RateLimit)>,
    /// Its share of its route's requests: the primary deployment's share times, when a fallback
    /// group is split, the fallback deployment's (1 for a route that is one chain).
    pub(super) share: f64,
    /// The route it comes from (numbered from 1 in reading order).
    pub(super) route: usize,
    /// The config the route was read from.
    pub(super) config: String,
    /// The config's names for its links.
    pub(super) names: crate::model::provenance::ConfigChain,
}

impl WrittenChains {
    /// The `[[chain]]` tables, as TOML. When the scenario is one route split into several chains
    /// (a group of several deployments: one chain per deployment combination), each chain gets
    /// its share as `traffic_share` (they add up to 1), so the report has the blended row of
    /// the route's traffic mix. With several routes the configs do not say how the traffic
    /// splits between them: no `traffic_share` (the blend needs one for every chain of the
    /// scenario, adding up to 1), and each split route's chains say so in the provenance.
    pub(super) fn write_chains(&mut self) -> String {
        let routes = self.routes_with_chains();
        let split = |r: usize| self.chains.iter().filter(|c| c.route == r).count() > 1;
        let sum: f64 = self.chains.iter().map(|c| c.share).sum();
        let shared = routes.len() == 1 && split(routes[0]) && (sum - 1.0).abs() <= 1e-9;
        if routes.len() > 1 {
            let mut notes = Vec::new();
            for c in self.chains.iter().filter(|c| split(c.route)) {
                notes.push(self.chain_note(
                    c,
                    format!(
                        "no traffic_share, no blended row: the scenario has {} routes and the configs do not say how the traffic splits between them",
                        routes.len()
                    ),
                ));
            }
            // each chain's note after its own entries
            for n in notes {
                let at = self
                    .provenance
                    .iter()
                    .rposition(|p| p.chain == n.chain)
                    .map_or(self.provenance.len(), |i| i + 1);
                self.provenance.insert(at, n);
            }
        }
        let mut out = String::new();
        for c in &self.chains {
            out.push_str("[[chain]]\n");
            out.push_str(&format!("name = {}\n", quoted(&c.name)));
            out.push_str(&format!(
                "models = [{}]\n",
                c.models
                    .iter()
                    .map(|m| quoted(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if shared {
                out.push_str(&format!("traffic_share = {}\n", c.share));
            }
            if !c.policy.is_empty() {
                out.push_str(&format!("policy = {{ {} }}\n", c.policy.join(", ")));
            }
            let table = |entries: Vec<String>| format!("{{ {} }}", entries.join(", "));
            if !c.link_timeouts.is_empty() {
                out.push_str(&format!(
                    "link_timeouts_s = {}\n",
                    table(
                        c.link_timeouts
                            .iter()
                            .map(|(m, t)| format!("{} = {t}", quoted(m)))
                            .collect()
                    )
                ));
            }
            if !c.caps.is_empty() {
                out.push_str(&format!(
                    "max_output_tokens = {}\n",
                    table(
                        c.caps
                            .iter()
                            .map(|(m, t)| format!("{} = {t}", quoted(m)))
                            .collect()
                    )
                ));
            }
            out.push('\n');
        }
        out
    }

    /// The routes that became chains, in order.
    /// The `[capacity."MODEL"]` tables of the chains' rate limits ([`Emitted::limits`]), as TOML,
    /// but for the models the scenario gives a `[capacity]` itself (`declared`: its own wins,
    /// with its `background_rpm`) and those the configs give two different limits (one per
    /// model in a scenario: listed, not priced). A model more than one route falls back to
    /// keeps its quota, and each route's chain is given all of it: said in its provenance.
    pub(super) fn capacity_text(&mut self, declared: &[String]) -> String {
        let mut by_id: Vec<(String, Option<crate::model::fit::RateLimit>, Vec<usize>)> = Vec::new();
        for (i, c) in self.chains.iter().enumerate() {
            for (id, limit) in &c.limits {
                match by_id.iter_mut().find(|(m, _, _)| m == id) {
                    Some((_, l, chains)) => {
                        if *l != Some(*limit) {
                            *l = None;
                        }
                        chains.push(i);
                    }
                    None => by_id.push((id.clone(), Some(*limit), vec![i])),
                }
            }
        }
        let mut out = String::new();
        let mut notes: Vec<(usize, String)> = Vec::new();
        for (id, limit, chains) in by_id {
            let first = chains[0];
            if declared.contains(&id) {
                notes.push((
                    first,
                    format!("`{id}`: the scenario's own [capacity] entry is priced, not the config's rate limit"),
                ));
                continue;
            }
            let Some(limit) = limit else {
                notes.push((
                    first,
                    format!("`{id}`: rate limit not priced: the configs give it different limits, and a scenario's [capacity] is one per model"),
                ));
                continue;
            };
            let mut routes: Vec<usize> = chains.iter().map(|&i| self.chains[i].route).collect();
            routes.dedup();
            if routes.len() > 1 {
                notes.push((
                    first,
                    format!("`{id}`: {} routes fall back to it; each route's chain is priced with the whole quota, so together they would be refused more", routes.len()),
                ));
            }
            out.push_str(&format!("[capacity.{}]\n", quoted(&id)));
            if let Some(r) = limit.rpm {
                out.push_str(&format!("rpm = {r}\n"));
            }
            if let Some(t) = limit.tpm {
                out.push_str(&format!("tpm = {t}\n"));
            }
            out.push('\n');
        }
        for (i, what) in notes {
            let note = self.chain_note(&self.chains[i], what);
            self.provenance.push(note);
        }
        out
    }

    /// A note `what` on chain `c` as a provenance line: its config, at the line of the chain's
    /// first value taken.
    fn chain_note(&self, c: &Emitted, what: String) -> Provenance {
        Provenance {
            chain: c.name.clone(),
            what,
            file: c.config.clone(),
            line: self
                .provenance
                .iter()
                .find(|p| p.chain == c.name)
                .map_or(1, |p| p.line),
            config: c.config.clone(),
        }
    }

    fn routes_with_chains(&self) -> Vec<usize> {
        let mut routes: Vec<usize> = self.chains.iter().map(|c| c.route).collect();
        routes.dedup();
        routes
    }
}

/// The deployments of `g` that take traffic (a share of 0, e.g. OpenRouter's later
/// `provider.order` entries, takes none in steady state), with their shares (equal without).
/// A deployment with no price is left out and recorded in `unknown` (the caller fails on it
/// once every route is read).
///
/// Errors: a price lookup that fails otherwise.
pub(super) fn picks<'a>(
    file: &str,
    g: &'a gateway::Group,
    prices: &PriceTable,
    unknown: &mut Vec<(InputError, String)>,
    extra: &mut Vec<crate::model::ModelPrice>,
) -> Result<Vec<Pick<'a>>, InputError> {
    let taking: Vec<usize> = (0..g.endpoints.len())
        .filter(|&d| {
            g.shares
                .as_ref()
                .and_then(|s| s.get(d))
                .is_none_or(|s| *s > 0.0)
        })
        .collect();
    let n = taking.len();
    let mut out = Vec::new();
    for d in taking {
        let ep = &g.endpoints[d];
        let (id, own) = match table_id(file, ep, prices, extra) {
            Ok(x) => x,
            Err(e) if e.kind == InputErrorKind::UnknownModel => {
                if !unknown
                    .iter()
                    .any(|(u, _)| u.file == e.file && u.location == e.location)
                {
                    unknown.push((e, ep.model.clone()));
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        let own_price = own.map(|p| {
            let text = match crate::input::gateway::endpoint::free_model(ep) {
                Some((_, why)) if p.input == 0.0 && p.output == 0.0 => format!(" ({why})"),
                _ => format!(
                    " (the config's own prices: ${} input, ${} output per MTok)",
                    crate::number::trim(p.input, 6),
                    crate::number::trim(p.output, 6)
                ),
            };
            if !extra.iter().any(|x| x.id == p.id) {
                extra.push(p);
            }
            text
        });
        out.push(Pick {
            id,
            own_price,
            share: g
                .shares
                .as_ref()
                .and_then(|s| s.get(d).copied())
                .unwrap_or(1.0 / n as f64),
            ep,
        });
    }
    Ok(out)
}

/// One error for every deployment with no price (`unknown`, not empty): the first in line
/// order (file, line, column) with its advice, then, when there are more, each model with its
/// `file:line:col`, in line order.
pub(super) fn unknown_models(mut unknown: Vec<(InputError, String)>) -> InputError {
    unknown.sort_by_key(|(e, _)| (e.file.clone(), e.location.map(|l| (l.line, l.col))));
    let mut first = unknown[0].0.clone();
    if unknown.len() > 1 {
        let all: Vec<String> = unknown
            .iter()
            .map(|(e, model)| {
                let at = e
                    .location
                    .map_or(String::new(), |l| format!(":{}:{}", l.line, l.col));
                format!("`{model}` ({}{at})", e.file)
            })
            .collect();
        first.message.push_str(&format!(
            "; {} models in the config have no price, in line order: {}",
            unknown.len(),
            all.join(", ")
        ));
    }
    first
}

/// A deployment's own value in `list` (a timeout or an output cap, keyed by where its model
/// is), with where it comes from.
pub(super) fn own<'a>(
    list: &'a [(super::policy::ModelPlace, super::policy::Setting, String)],
    e: &Endpoint,
) -> Option<(&'a super::policy::Setting, &'a str)> {
    list.iter()
        .find(|((f, l, c), _, _)| *f == e.file && *l == e.line && *c == e.col)
        .map(|(_, s, from)| (s, from.as_str()))
}
