//! One gateway route written as scenario chains: one chain per combination of deployments
//! (with each combination's share of the traffic), its policy, and the provenance of every
//! value taken from the config.

use super::policy::{Policy, litellm_class_retries};
use super::portkey_policy::{list, statuses};
use super::{Provenance, quoted, table_id};
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Endpoint, Route};
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
pub(super) struct Written {
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
    /// Its share of its route's requests: the primary deployment's share times, when a fallback
    /// group is split, the fallback deployment's (1 for a route that is one chain).
    pub(super) share: f64,
    /// The route it comes from (numbered from 1 in reading order).
    pub(super) route: usize,
    /// The config the route was read from.
    pub(super) config: String,
}

impl Written {
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
                notes.push(Provenance {
                    chain: c.name.clone(),
                    what: format!(
                        "no traffic_share, no blended row: the scenario has {} routes and the configs do not say how the traffic splits between them",
                        routes.len()
                    ),
                    file: c.config.clone(),
                    line: self
                        .provenance
                        .iter()
                        .find(|p| p.chain == c.name)
                        .map_or(1, |p| p.line),
                    config: c.config.clone(),
                });
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
            let text = format!(
                " (the config's own prices: ${} input, ${} output per MTok)",
                crate::number::trim(p.input, 6),
                crate::number::trim(p.output, 6)
            );
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
fn own<'a>(
    list: &'a [(super::policy::ModelPlace, super::policy::Setting, String)],
    e: &Endpoint,
) -> Option<(&'a super::policy::Setting, &'a str)> {
    list.iter()
        .find(|((f, l, c), _, _)| *f == e.file && *l == e.line && *c == e.col)
        .map(|(_, s, from)| (s, from.as_str()))
}

/// A percentage as the report names shares: `75%`, `37.5%`.
pub(super) fn pct(share: f64) -> String {
    let x = 100.0 * share;
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}%")
    } else {
        format!("{}%", (x * 100.0).round() / 100.0)
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn emit(
    file: &str,
    chain: &Route,
    policy: &Policy,
    prices: &PriceTable,
    written: &mut Written,
) -> Result<(), InputError> {
    if chain.primary.endpoints.is_empty() {
        return Ok(());
    }
    written.routes += 1;
    let route = written.routes;
    let Written {
        names,
        chains: out,
        provenance,
        unknown,
        prices: extra,
        ..
    } = written;
    let primary = picks(file, &chain.primary, prices, unknown, extra)?;
    let mut links: Vec<(&gateway::RouteLink, Vec<Pick>)> = Vec::new();
    for link in &chain.links {
        let p = picks(file, &link.fallback, prices, unknown, extra)?;
        if !p.is_empty() {
            links.push((link, p));
        }
    }
    // Every combination of one deployment per step, or (too many) each fallback group as its
    // main deployment: the largest share, the first on ties.
    let combos: usize = links
        .iter()
        .fold(primary.len(), |acc, (_, p)| acc.saturating_mul(p.len()));
    let split = combos <= MAX_COMBINATIONS;
    let main_of = |p: &[Pick]| -> usize {
        let mut best = 0;
        for (i, x) in p.iter().enumerate() {
            if x.share > p[best].share {
                best = i;
            }
        }
        best
    };
    let mut choices: Vec<Vec<usize>> = vec![Vec::new()];
    for (_, p) in &links {
        let options: Vec<usize> = if split {
            (0..p.len()).collect()
        } else {
            vec![main_of(p)]
        };
        choices = choices
            .into_iter()
            .flat_map(|c| {
                options.iter().map(move |&o| {
                    let mut c = c.clone();
                    c.push(o);
                    c
                })
            })
            .collect();
    }
    let n = primary.len();
    let multi_fallback = links.iter().any(|(_, p)| p.len() > 1);
    for pick in &primary {
        for choice in &choices {
            let mut base = if n > 1 {
                format!("{} [{}, {:.0}%]", chain.name, pick.id, 100.0 * pick.share)
            } else {
                chain.name.clone()
            };
            let mut share = pick.share;
            for ((link, p), &c) in links.iter().zip(choice) {
                if p.len() > 1 && split {
                    base.push_str(&format!(
                        " -> {} [{}, {}]",
                        link.fallback.label,
                        p[c].id,
                        pct(p[c].share)
                    ));
                    share *= p[c].share;
                }
            }
            let mut name = base.clone();
            let mut k = 2;
            while names.contains(&name) {
                name = format!("{base} #{k}");
                k += 1;
            }
            names.push(name.clone());
            let mut models = vec![pick.id.clone()];
            models.extend(links.iter().zip(choice).map(|((_, p), &c)| p[c].id.clone()));
            let mut rec = |what: String, f: &str, line: usize| {
                provenance.push(Provenance {
                    chain: name.clone(),
                    what,
                    file: f.to_string(),
                    line,
                    config: file.to_string(),
                });
            };
            let ep = pick.ep;
            let ep_file = ep.file.as_deref().unwrap_or(file);
            rec(
                format!(
                    "primary `{}` = `{}`{}",
                    chain.primary.label,
                    pick.id,
                    pick.own_price.as_deref().unwrap_or("")
                ),
                ep_file,
                ep.line,
            );
            if n > 1 {
                rec(
                    format!(
                        "{:.0}% of `{}`'s traffic ({})",
                        100.0 * pick.share,
                        chain.primary.label,
                        chain.primary.mix.as_deref().unwrap_or("equal shares")
                    ),
                    ep_file,
                    ep.line,
                );
            }
            for ((link, p), &c) in links.iter().zip(choice) {
                let what = if p.len() == 1 {
                    format!(
                        "fallback `{}` = `{}`{}",
                        link.fallback.label,
                        p[c].id,
                        p[c].own_price.as_deref().unwrap_or("")
                    )
                } else if split {
                    format!(
                        "fallback `{}` = `{}`, {} of its traffic ({})",
                        link.fallback.label,
                        p[c].id,
                        pct(p[c].share),
                        link.fallback.mix.as_deref().unwrap_or("equal shares")
                    )
                } else {
                    format!(
                        "fallback `{}` priced as its main deployment `{}` (its {} deployments make more than {MAX_COMBINATIONS} chains)",
                        link.fallback.label,
                        p[c].id,
                        p.len()
                    )
                };
                rec(what, file, link.at.line);
            }
            if multi_fallback && split {
                rec(
                    format!(
                        "{} of the requests for `{}` (the product of the shares)",
                        pct(share),
                        chain.primary.label
                    ),
                    file,
                    chain.at.line,
                );
            }
            if let Some((strategy, f, line)) = &policy.routing_strategy
                && (n > 1 || multi_fallback)
            {
                let how = if strategy == "simple-shuffle" {
                    "groups priced by their weights (litellm_params.weight, else rpm, else tpm)"
                        .to_string()
                } else {
                    format!(
                        "groups priced as equal shares of their deployments (assumed: `{strategy}` picks by live state, not weights)"
                    )
                };
                rec(format!("routing_strategy `{strategy}`: {how}"), f, *line);
            }
            let mut policy_text = Vec::new();
            // Retries: each class at its retry_policy count, else num_retries (LiteLLM's router:
            // a class's count replaces num_retries). A group in
            // model_group_retry_policy has its own policy instead of retry_policy
            // (get_num_retries_from_retry_policy, litellm/router_utils/get_retry_from_policy.py).
            let group_policy = policy
                .group_retry_policy
                .iter()
                .find(|(g, _, _)| *g == chain.primary.label);
            let (retry_policy, source) = match group_policy {
                Some((g, counts, _)) => (counts, format!("model_group_retry_policy.{g}")),
                None => (&policy.retry_policy, "retry_policy".to_string()),
            };
            if let Some((g, _, at)) = group_policy {
                let mut what = format!(
                    "`{g}`'s retries from model_group_retry_policy.{g} (LiteLLM's policy for the group"
                );
                if !policy.retry_policy.is_empty() {
                    what.push_str(", instead of retry_policy, not merged with it");
                }
                what.push(')');
                rec(what, &at.file, at.line);
            }
            let retries = if let Some(by_class) =
                litellm_class_retries(retry_policy, &source, policy.retries.as_ref())
            {
                policy_text.extend(by_class.text);
                for (what, f, line) in by_class.lines {
                    rec(what, &f, line);
                }
                Some(by_class.most)
            } else if let (Some(s), Some((codes, listed))) = (&policy.retries, &policy.retry_codes)
            {
                // Portkey retries only the statuses retry.on_status_codes lists (its default
                // without them): each class whose statuses are listed gets retry.attempts, the
                // others none (retries_by_class, exact for a mixed error profile).
                let attempts = s.value.round() as u64;
                let from = if *listed {
                    format!("retry.on_status_codes {}", list(codes))
                } else {
                    format!("Portkey's default on_status_codes {}", list(codes))
                };
                let retried: Vec<crate::model::policy::ErrorClass> =
                    crate::model::policy::ErrorClass::PROVIDER
                        .into_iter()
                        .filter(|c| statuses(*c).iter().any(|x| codes.contains(x)))
                        .collect();
                let names = |cs: &[crate::model::policy::ErrorClass]| {
                    cs.iter()
                        .map(|c| format!("{} ({})", c.as_str(), list(statuses(*c))))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let left: Vec<crate::model::policy::ErrorClass> =
                    crate::model::policy::ErrorClass::PROVIDER
                        .into_iter()
                        .filter(|c| !retried.contains(c))
                        .collect();
                let what = if left.is_empty() || retried.is_empty() || attempts == 0 {
                    let r = if retried.is_empty() { 0 } else { attempts };
                    policy_text.push(format!("retries = {r}"));
                    if retried.is_empty() {
                        format!(
                            "retries 0 (retry.attempts {attempts}, but {from} list no status of a class fallcost retries)"
                        )
                    } else {
                        format!("retries {r} for every class (retry.attempts; {from})")
                    }
                } else {
                    policy_text.push("retries = 0".to_string());
                    policy_text.push(format!(
                        "retries_by_class = {{ {} }}",
                        crate::model::policy::ErrorClass::PROVIDER
                            .iter()
                            .map(|c| format!(
                                "{} = {}",
                                c.as_str(),
                                if retried.contains(c) { attempts } else { 0 }
                            ))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                    format!(
                        "retries {attempts} for {} failures, 0 for {} (retry.attempts; {from}: Portkey retries a listed status only)",
                        names(&retried),
                        names(&left)
                    )
                };
                rec(what, &s.file, s.line);
                Some(if retried.is_empty() { 0 } else { attempts })
            } else if let Some(s) = &policy.retries {
                let r = s.value.round() as u64;
                policy_text.push(format!("retries = {r}"));
                let what = if retry_policy.is_empty() && group_policy.is_none() {
                    format!("retries {r}")
                } else {
                    format!(
                        "retries {r} (num_retries: {source} sets no count for a class fallcost retries)"
                    )
                };
                rec(what, &s.file, s.line);
                Some(r)
            } else {
                None
            };
            // Timeout: the primary deployment's own litellm_params.timeout wins over the
            // router's (LiteLLM passes a deployment's timeout to its call).
            let own_timeout = |e: &Endpoint| own(&policy.deployment_timeouts, e).map(|x| x.0);
            if let Some(s) = own_timeout(ep) {
                policy_text.push(format!("timeout_s = {}", s.value));
                let over = policy.timeout_s.as_ref().map_or(String::new(), |(r, key)| {
                    format!(", over the router's {key} {} s", r.value)
                });
                rec(
                    format!(
                        "timeout {} s (`{}`'s litellm_params.timeout{over})",
                        s.value, pick.id
                    ),
                    &s.file,
                    s.line,
                );
            } else if let Some((s, key)) = &policy.timeout_s {
                policy_text.push(format!("timeout_s = {}", s.value));
                let from = if *key == "timeout" {
                    String::new()
                } else {
                    format!(" ({key})")
                };
                rec(format!("timeout {} s{from}", s.value), &s.file, s.line);
            }
            // Each fallback link's own timeout (LiteLLM's litellm_params.timeout, else the
            // router's; Portkey's target request_timeout), priced on that link
            // (`link_timeouts_s`) where it is not the policy's (the primary's).
            let router_t = policy.timeout_s.as_ref().map(|(s, _)| s.value);
            let primary_t = own_timeout(ep).map(|s| s.value).or(router_t);
            let mut wants: Vec<(String, Option<f64>)> = vec![(pick.id.clone(), primary_t)];
            let mut notes: Vec<(String, String, usize)> = Vec::new();
            for ((link, p), &c) in links.iter().zip(choice) {
                let d = &p[c];
                let t = match own(&policy.deployment_timeouts, d.ep) {
                    Some((s, from)) => {
                        notes.push((
                            format!(
                                "fallback `{}` (`{}`): timeout {} s ({from}), on that link",
                                link.fallback.label, d.id, s.value
                            ),
                            s.file.clone(),
                            s.line,
                        ));
                        Some(s.value)
                    }
                    None if primary_t != router_t => {
                        let (what, at) = match &policy.timeout_s {
                            Some((s, key)) => (
                                format!(
                                    "fallback `{}` (`{}`): the router's {key} {} s, on that link (it has no timeout of its own)",
                                    link.fallback.label, d.id, s.value
                                ),
                                (s.file.clone(), s.line),
                            ),
                            None => (
                                format!(
                                    "fallback `{}` (`{}`) has no timeout in the config: priced at the primary's",
                                    link.fallback.label, d.id
                                ),
                                (file.to_string(), link.at.line),
                            ),
                        };
                        notes.push((what, at.0, at.1));
                        router_t
                    }
                    None => None,
                };
                wants.push((d.id.clone(), t.or(primary_t)));
            }
            let mut link_timeouts: Vec<(String, f64)> = Vec::new();
            for (i, (id, t)) in wants.iter().enumerate() {
                if wants[..i].iter().any(|(m, _)| m == id) {
                    continue;
                }
                let same: Vec<Option<f64>> = wants
                    .iter()
                    .filter(|(m, _)| m == id)
                    .map(|(_, t)| *t)
                    .collect();
                if same.iter().any(|x| x != t) {
                    notes.push((
                        format!(
                            "`{id}`'s timeouts not priced per link: the chain lists it more than once with different timeouts, and a scenario keys link_timeouts_s by model; priced at the primary's"
                        ),
                        file.to_string(),
                        chain.at.line,
                    ));
                } else if let Some(t) = t
                    && Some(*t) != primary_t
                {
                    link_timeouts.push((id.clone(), *t));
                }
            }
            for (what, f, line) in notes {
                rec(what, &f, line);
            }
            // Each link's output cap (LiteLLM's litellm_params.max_tokens, Portkey's
            // override_params.max_tokens): the link bills at most that many output tokens.
            let mut caps_at: Vec<(String, Option<u64>)> = Vec::new();
            let mut cap_notes: Vec<(String, String, usize)> = Vec::new();
            let steps = std::iter::once((chain.primary.label.as_str(), pick)).chain(
                links
                    .iter()
                    .zip(choice)
                    .map(|((link, p), &c)| (link.fallback.label.as_str(), &p[c])),
            );
            for (k, (label, d)) in steps.enumerate() {
                let cap = own(&policy.deployment_caps, d.ep).map(|(s, from)| {
                    let n = s.value.round() as u64;
                    let role = if k == 0 { "primary" } else { "fallback" };
                    let unless = if from.starts_with("litellm_params") {
                        " (a deployment's litellm_params are its calls' defaults: a request's own max_tokens wins, as Router._completion passes the request's kwargs last)"
                    } else {
                        ""
                    };
                    cap_notes.push((
                        format!(
                            "{role} `{label}` (`{}`): at most {n} output tokens billed ({from}){unless}",
                            d.id
                        ),
                        s.file.clone(),
                        s.line,
                    ));
                    n
                });
                caps_at.push((d.id.clone(), cap));
            }
            let mut caps: Vec<(String, u64)> = Vec::new();
            for (i, (id, cap)) in caps_at.iter().enumerate() {
                if caps_at[..i].iter().any(|(m, _)| m == id) {
                    continue;
                }
                let same: Vec<Option<u64>> = caps_at
                    .iter()
                    .filter(|(m, _)| m == id)
                    .map(|(_, c)| *c)
                    .collect();
                if same.iter().any(|x| x != cap) {
                    cap_notes.push((
                        format!(
                            "`{id}`'s output caps not priced: the chain lists it more than once with different caps, and a scenario keys max_output_tokens by model"
                        ),
                        file.to_string(),
                        chain.at.line,
                    ));
                } else if let Some(n) = cap {
                    caps.push((id.clone(), *n));
                }
            }
            for (what, f, line) in cap_notes {
                rec(what, &f, line);
            }
            // A fallback group retries by its own model_group_retry_policy entry (else
            // retry_policy): listed when that is not the primary's, not priced.
            for ((link, _), _) in links.iter().zip(choice) {
                let own = policy
                    .group_retry_policy
                    .iter()
                    .find(|(g, _, _)| *g == link.fallback.label);
                match (own, group_policy) {
                    (Some((g, _, at)), _) if *g != chain.primary.label => rec(
                        format!(
                            "fallback `{g}`'s model_group_retry_policy.{g} not priced: a fallcost chain retries every link alike, as its primary"
                        ),
                        &at.file,
                        at.line,
                    ),
                    (None, Some((g, _, at))) => rec(
                        format!(
                            "fallback `{}` retries by {}, not by model_group_retry_policy.{g}: not priced, a fallcost chain retries every link alike, as its primary",
                            link.fallback.label,
                            if policy.retry_policy.is_empty() {
                                "num_retries"
                            } else {
                                "retry_policy"
                            }
                        ),
                        &at.file,
                        at.line,
                    ),
                    _ => {}
                }
            }
            for (what, f, line) in &policy.notes {
                rec(what.clone(), f, *line);
            }
            if let Some((classes, what, f, line)) = &policy.failover_on {
                policy_text.push(format!(
                    "failover_on = [{}]",
                    classes
                        .iter()
                        .map(|c| quoted(c.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                rec(what.clone(), f, *line);
            }
            if let Some((threshold, cooldown, what, f, line)) = &policy.cb {
                policy_text.push(format!(
                    "breaker = {{ threshold = {threshold}, cooldown_s = {cooldown} }}"
                ));
                rec(what.clone(), f, *line);
            }
            if policy.allowed_fails.is_some() || policy.cooldown_s.is_some() {
                let threshold = policy
                    .allowed_fails
                    .as_ref()
                    .map_or(3.0, |s| s.value)
                    .round() as u64
                    + 1;
                let cooldown = policy.cooldown_s.as_ref().map_or(5.0, |s| s.value);
                policy_text.push(format!(
                    "breaker = {{ threshold = {threshold}, cooldown_s = {cooldown} }}"
                ));
                let at = policy
                    .allowed_fails
                    .as_ref()
                    .or(policy.cooldown_s.as_ref())
                    .expect("one is set");
                rec(
                    format!(
                        "breaker: {threshold} failures (allowed_fails + 1), cooldown {cooldown} s (cooldown_time); LiteLLM cools one deployment down, fallcost's breaker opens on the whole provider"
                    ),
                    &at.file,
                    at.line,
                );
            }
            if let Some(s) = &policy.max_fallbacks {
                let steps = models.len() as u64;
                let mf = s.value.round() as u64;
                if mf + 1 < steps {
                    let cap = (1 + retries.unwrap_or(0)) * (1 + mf);
                    policy_text.push(format!("max_attempts = {cap}"));
                    rec(
                        format!(
                            "call cap {cap} attempts ((1 + retries) x (1 + max_fallbacks {mf}))"
                        ),
                        &s.file,
                        s.line,
                    );
                }
            }
            out.push(Emitted {
                name: name.clone(),
                models,
                policy: policy_text,
                link_timeouts,
                caps,
                share,
                route,
                config: file.to_string(),
            });
        }
    }
    Ok(())
}
