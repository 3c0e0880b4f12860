//! [`emit`]: one gateway route written as the scenario chains it becomes, one per combination
//! of deployments, each with its policy and the provenance of every value taken from the config
//! (split out of `chains`: the name, the steps, the retries, the timeouts, the output caps and
//! the breaker each in its own function).

use super::chains::{Emitted, MAX_COMBINATIONS, Pick, WrittenChains, own, picks};
use super::policy::{ConfigPolicy, litellm_class_retries};
use super::portkey_policy::{list, statuses};
use super::{Provenance, quoted};
use crate::error::InputError;
use crate::input::gateway::{self, Route};
use crate::model::PriceTable;
use crate::model::provenance::{ConfigChain, ConfigLink};
use crate::number::{Digits, percent};

/// The fallback steps of a route that have a priced deployment, each with its deployments.
type Links<'a, 'p> = [(&'a gateway::RouteLink, Vec<Pick<'p>>)];

/// A provenance line: what, its file and line.
type Rec<'r> = dyn FnMut(String, &str, usize) + 'r;

/// One chain being written: its route, policy, primary deployment and the deployment chosen
/// at each fallback step (`choice[i]` of `links[i]`).
struct At<'a, 'p> {
    file: &'a str,
    chain: &'a Route,
    policy: &'a ConfigPolicy,
    pick: &'a Pick<'p>,
    links: &'a Links<'a, 'p>,
    choice: &'a [usize],
}

/// Write `chain` as scenario chains into `written`: one per combination of one deployment per
/// step (or, beyond [`MAX_COMBINATIONS`], each fallback group as its largest-share deployment),
/// with the policy `policy` gives it and the provenance of every value. A deployment with no
/// price is recorded in `written.unknown` and left out.
///
/// Errors: a price lookup that fails otherwise.
pub(super) fn emit(
    file: &str,
    chain: &Route,
    policy: &ConfigPolicy,
    prices: &PriceTable,
    written: &mut WrittenChains,
) -> Result<(), InputError> {
    if chain.primary.endpoints.is_empty() {
        return Ok(());
    }
    written.routes += 1;
    let route = written.routes;
    let WrittenChains {
        names,
        chains: out,
        provenance,
        unknown,
        prices: extra,
        served,
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
    let (choices, split) = choices_of(primary.len(), &links);
    let n = primary.len();
    let multi_fallback = links.iter().any(|(_, p)| p.len() > 1);
    for pick in &primary {
        for choice in &choices {
            let (name, share) = chain_name(names, chain, pick, &links, choice, (n, split));
            let at = At {
                file,
                chain,
                policy,
                pick,
                links: &links,
                choice,
            };
            let mut rec = |what: String, f: &str, line: usize| {
                provenance.push(Provenance {
                    chain: name.clone(),
                    what,
                    file: f.to_string(),
                    line,
                    config: file.to_string(),
                });
            };
            steps(&at, (n, split, multi_fallback, share), &mut rec);
            let mut policy_text = Vec::new();
            let retries = retries(&at, &mut rec, &mut policy_text);
            let link_timeouts = timeouts(&at, &mut rec, &mut policy_text);
            let caps = caps(&at, &mut rec);
            let limits = limits(&at, n, &mut rec);
            fallback_retry_notes(&at, &mut rec);
            let models = models_of(&at);
            breaker_and_cap(&at, models.len(), retries, &mut rec, &mut policy_text);
            served.push(served_of(&at, &name, share));
            out.push(Emitted {
                names: config_chain(&at, &name),
                name,
                models,
                policy: policy_text,
                link_timeouts,
                caps,
                limits,
                share,
                route,
                config: file.to_string(),
            });
        }
    }
    Ok(())
}

/// What chain `name` serves (its route, group and primary deployment) and its `share` of the
/// route's requests.
fn served_of(at: &At, name: &str, share: f64) -> super::Served {
    super::Served {
        chain: name.to_string(),
        route: at.chain.name.clone(),
        group: at.chain.primary.label.clone(),
        primary: at.pick.ep.model.clone(),
        share,
        config: at.file.to_string(),
        line: at.pick.ep.line,
    }
}

/// The chain's models: the primary deployment's, then the one chosen at each fallback step.
fn models_of(at: &At) -> Vec<String> {
    let mut models = vec![at.pick.id.clone()];
    models.extend(
        at.links
            .iter()
            .zip(at.choice)
            .map(|((_, p), &c)| p[c].id.clone()),
    );
    models
}

/// The names behind chain `name`: its gateway and, for each link, the model, the group and
/// the deployment the config names.
fn config_chain(at: &At, name: &str) -> ConfigChain {
    let At {
        file,
        chain,
        pick,
        links,
        choice,
        ..
    } = *at;
    let mut links_named = vec![ConfigLink {
        model: pick.id.clone(),
        group: chain.primary.label.clone(),
        deployment: pick.ep.model.clone(),
    }];
    links_named.extend(links.iter().zip(choice).map(|((l, p), &c)| ConfigLink {
        model: p[c].id.clone(),
        group: l.fallback.label.clone(),
        deployment: p[c].ep.model.clone(),
    }));
    let gateway = if pick.ep.deployment.is_some() {
        "litellm"
    } else if pick.ep.served.is_some() {
        "portkey"
    } else {
        "openrouter"
    };
    ConfigChain {
        chain: name.to_string(),
        gateway,
        config: file.to_string(),
        links: links_named,
    }
}

/// Every combination of one deployment per fallback step (the indices into each step's
/// deployments), and whether the groups are split (at most [`MAX_COMBINATIONS`] chains with
/// `primaries` primary deployments); else each step as its main deployment.
fn choices_of(primaries: usize, links: &Links) -> (Vec<Vec<usize>>, bool) {
    // Every combination of one deployment per step, or (too many) each fallback group as its
    // main deployment: the largest share, the first on ties.
    let combos: usize = links
        .iter()
        .fold(primaries, |acc, (_, p)| acc.saturating_mul(p.len()));
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
    for (_, p) in links {
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
    (choices, split)
}

/// The chain's unique name (the route's, with the deployments of split groups and a `#k` when
/// taken) and its share of the route's requests; the name is added to `names`.
fn chain_name(
    names: &mut Vec<String>,
    chain: &Route,
    pick: &Pick,
    links: &Links,
    choice: &[usize],
    (n, split): (usize, bool),
) -> (String, f64) {
    let mut base = if n > 1 {
        format!(
            "{} [{}, {}]",
            chain.name,
            pick.id,
            percent(pick.share, Digits::Fixed(0), false)
        )
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
                percent(p[c].share, Digits::AtMost(2), false)
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
    (name, share)
}

/// The provenance of the chain's steps: its primary and share of the group, each fallback (its
/// deployment and share), the product of the shares, the routing strategy.
fn steps(at: &At, (n, split, multi_fallback, share): (usize, bool, bool, f64), rec: &mut Rec) {
    let At {
        file,
        chain,
        policy,
        pick,
        links,
        choice,
    } = *at;
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
                "{} of `{}`'s traffic ({})",
                percent(pick.share, Digits::Fixed(0), false),
                chain.primary.label,
                chain.primary.mix.as_deref().unwrap_or("equal shares")
            ),
            ep_file,
            ep.line,
        );
    }
    for ((link, p), &c) in links.iter().zip(choice) {
        rec(fallback_step(link, p, c, split), file, link.at.line);
    }
    if multi_fallback && split {
        rec(
            format!(
                "{} of the requests for `{}` (the product of the shares)",
                percent(share, Digits::AtMost(2), false),
                chain.primary.label
            ),
            file,
            chain.at.line,
        );
    }
    if n > 1 || multi_fallback {
        routing_note(policy, rec);
    }
}

/// What a fallback step is priced as: its one deployment, the chosen one of a split group
/// (`split`) with its share, or the group's main deployment `p[c]`.
fn fallback_step(link: &gateway::RouteLink, p: &[Pick], c: usize, split: bool) -> String {
    if p.len() == 1 {
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
            percent(p[c].share, Digits::AtMost(2), false),
            link.fallback.mix.as_deref().unwrap_or("equal shares")
        )
    } else {
        format!(
            "fallback `{}` priced as its main deployment `{}` (its {} deployments make more than {MAX_COMBINATIONS} chains)",
            link.fallback.label,
            p[c].id,
            p.len()
        )
    }
}

/// The routing strategy, when set, and how it prices a group of several deployments.
fn routing_note(policy: &ConfigPolicy, rec: &mut Rec) {
    if let Some((strategy, f, line)) = &policy.routing_strategy {
        let how = if strategy == "simple-shuffle" {
            "groups priced by their weights (litellm_params.weight, else rpm, else tpm)".to_string()
        } else {
            format!(
                "groups priced as equal shares of their deployments (assumed: `{strategy}` picks by live state, not weights)"
            )
        };
        rec(format!("routing_strategy `{strategy}`: {how}"), f, *line);
    }
}

/// The chain's retries (LiteLLM's retry_policy and num_retries, Portkey's retry), written to
/// `policy_text` and said; the most retries a class gets, when set.
fn retries(at: &At, rec: &mut Rec, policy_text: &mut Vec<String>) -> Option<u64> {
    let At { chain, policy, .. } = *at;
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
    if let Some(by_class) = litellm_class_retries(retry_policy, &source, policy.retries.as_ref()) {
        policy_text.extend(by_class.text);
        for (what, f, line) in by_class.lines {
            rec(what, &f, line);
        }
        Some(by_class.most)
    } else if let (Some(s), Some((codes, listed))) = (&policy.retries, &policy.retry_codes) {
        portkey_retries(s, codes, *listed, rec, policy_text)
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
    }
}

/// Portkey's retries: only the statuses `codes` lists (`listed`: retry.on_status_codes, else
/// Portkey's default), written to `policy_text` and said; the retries a retried class gets.
fn portkey_retries(
    s: &super::policy::Setting,
    codes: &[i64],
    listed: bool,
    rec: &mut Rec,
    policy_text: &mut Vec<String>,
) -> Option<u64> {
    // Portkey retries only the statuses retry.on_status_codes lists (its default
    // without them): each class whose statuses are listed gets retry.attempts, the
    // others none (retries_by_class, exact for a mixed error profile).
    let attempts = s.value.round() as u64;
    let from = if listed {
        format!("retry.on_status_codes {}", list(codes))
    } else {
        format!("Portkey's default on_status_codes {}", list(codes))
    };
    let retried: Vec<crate::model::policy::ErrorClass> = crate::model::policy::ErrorClass::PROVIDER
        .into_iter()
        .filter(|c| statuses(*c).iter().any(|x| codes.contains(x)))
        .collect();
    let names = |cs: &[crate::model::policy::ErrorClass]| {
        cs.iter()
            .map(|c| format!("{} ({})", c.as_str(), list(statuses(*c))))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let left: Vec<crate::model::policy::ErrorClass> = crate::model::policy::ErrorClass::PROVIDER
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
}

/// The chain's timeout (the primary's own over the router's, to `policy_text`) and each
/// fallback link's own where it differs (returned: `link_timeouts_s`), said.
fn timeouts(at: &At, rec: &mut Rec, policy_text: &mut Vec<String>) -> Vec<(String, f64)> {
    let At {
        file,
        chain,
        policy,
        pick,
        links,
        choice,
    } = *at;
    let primary_t = primary_timeout(at, rec, policy_text);
    let router_t = policy.timeout_s.as_ref().map(|(s, _)| s.value);
    let mut wants: Vec<(String, Option<f64>)> = vec![(pick.id.clone(), primary_t)];
    let mut notes: Vec<(String, String, usize)> = Vec::new();
    for ((link, p), &c) in links.iter().zip(choice) {
        let d = &p[c];
        let t = link_timeout(file, policy, link, d, (primary_t, router_t), &mut notes);
        wants.push((d.id.clone(), t.or(primary_t)));
    }
    let link_timeouts = per_link(&wants, primary_t, (file, chain.at.line), &mut notes);
    for (what, f, line) in notes {
        rec(what, &f, line);
    }
    link_timeouts
}

/// The chain's timeout: the primary deployment's own litellm_params.timeout, which wins over
/// the router's (LiteLLM passes a deployment's timeout to its call), else the router's;
/// written to `policy_text`, said, and returned (seconds).
fn primary_timeout(at: &At, rec: &mut Rec, policy_text: &mut Vec<String>) -> Option<f64> {
    let At { policy, pick, .. } = *at;
    if let Some((s, _)) = own(&policy.deployment_timeouts, pick.ep) {
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
        return Some(s.value);
    }
    let (s, key) = policy.timeout_s.as_ref()?;
    policy_text.push(format!("timeout_s = {}", s.value));
    let from = if *key == "timeout" {
        String::new()
    } else {
        format!(" ({key})")
    };
    rec(format!("timeout {} s{from}", s.value), &s.file, s.line);
    Some(s.value)
}

/// A fallback link's own timeout (LiteLLM's litellm_params.timeout, else the router's;
/// Portkey's target request_timeout), priced on that link where it is not the primary's
/// (`primary_t`, with the router's `router_t`); where it comes from goes to `notes`.
fn link_timeout(
    file: &str,
    policy: &ConfigPolicy,
    link: &gateway::RouteLink,
    d: &Pick,
    (primary_t, router_t): (Option<f64>, Option<f64>),
    notes: &mut Vec<(String, String, usize)>,
) -> Option<f64> {
    match own(&policy.deployment_timeouts, d.ep) {
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
    }
}

/// The `link_timeouts_s` entries of `wants` (each model's timeout where it is not the
/// primary's `primary_t`); a model listed twice with different timeouts is noted in `notes`
/// (at the chain's `file:line`), not priced per link.
fn per_link(
    wants: &[(String, Option<f64>)],
    primary_t: Option<f64>,
    (file, line): (&str, usize),
    notes: &mut Vec<(String, String, usize)>,
) -> Vec<(String, f64)> {
    let mut link_timeouts: Vec<(String, f64)> = Vec::new();
    for (id, t) in by_model(wants) {
        let Some(t) = t else {
            notes.push((
                format!(
                    "`{id}`'s timeouts not priced per link: the chain lists it more than once with different timeouts, and a scenario keys link_timeouts_s by model; priced at the primary's"
                ),
                file.to_string(),
                line,
            ));
            continue;
        };
        if let Some(t) = t
            && Some(t) != primary_t
        {
            link_timeouts.push((id.to_string(), t));
        }
    }
    link_timeouts
}

/// Each model of `values` once, in the order first listed, with its value: `Some` when every
/// listing of the model agrees, `None` when the chain lists it with different values (a
/// scenario keys such settings by model, so they can't be priced per link).
fn by_model<T: PartialEq + Copy>(values: &[(String, Option<T>)]) -> Vec<(&str, Option<Option<T>>)> {
    let mut out: Vec<(&str, Option<Option<T>>)> = Vec::new();
    for (id, v) in values {
        match out.iter_mut().find(|(m, _)| *m == id.as_str()) {
            None => out.push((id, Some(*v))),
            Some((_, seen)) if *seen != Some(*v) => *seen = None,
            Some(_) => {}
        }
    }
    out
}

/// Each link's output cap (`max_output_tokens`), said.
fn caps(at: &At, rec: &mut Rec) -> Vec<(String, u64)> {
    let At {
        file,
        chain,
        policy,
        pick,
        links,
        choice,
    } = *at;
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
    for (id, cap) in by_model(&caps_at) {
        let Some(cap) = cap else {
            cap_notes.push((
                format!(
                    "`{id}`'s output caps not priced: the chain lists it more than once with different caps, and a scenario keys max_output_tokens by model"
                ),
                file.to_string(),
                chain.at.line,
            ));
            continue;
        };
        if let Some(n) = cap {
            caps.push((id.to_string(), n));
        }
    }
    for (what, f, line) in cap_notes {
        rec(what, &f, line);
    }
    caps
}

/// Each link's rate limit (LiteLLM's `litellm_params.rpm` / `tpm`, [`gateway::Endpoint::limit`]),
/// read as the quota the deployment's provider enforces in the incident (MODEL.md §11, as
/// `check`'s `capacity` reads it), where the link's group is that one deployment (`primaries`:
/// the primary group's deployments); said either way. A group of several deployments shares
/// its traffic among them, which a scenario's `[capacity]` (one per model) cannot say: its
/// limits are listed, not priced.
fn limits(at: &At, primaries: usize, rec: &mut Rec) -> Vec<(String, crate::model::fit::RateLimit)> {
    let At {
        file,
        chain,
        pick,
        links,
        choice,
        ..
    } = *at;
    let steps = std::iter::once((chain.primary.label.as_str(), pick, primaries)).chain(
        links
            .iter()
            .zip(choice)
            .map(|((link, p), &c)| (link.fallback.label.as_str(), &p[c], p.len())),
    );
    let mut out = Vec::new();
    for (k, (label, d, group)) in steps.enumerate() {
        let limit = d.ep.limit;
        let shown: Vec<String> = [("rpm", limit.rpm), ("tpm", limit.tpm)]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| format!("{k} {}", crate::number::trim(v, 3))))
            .collect();
        if shown.is_empty() {
            continue;
        }
        let role = if k == 0 { "primary" } else { "fallback" };
        let at_file = d.ep.file.as_deref().unwrap_or(file);
        let what = format!("{role} `{label}` (`{}`): {}", d.id, shown.join(", "));
        if group > 1 {
            rec(
                format!(
                    "{what} not priced as a quota: its group's {group} deployments share the group's traffic, and a scenario's [capacity] is one per model"
                ),
                at_file,
                d.ep.line,
            );
        } else if [limit.rpm, limit.tpm]
            .into_iter()
            .flatten()
            .any(|v| v < 1.0)
        {
            rec(
                format!("{what} not priced as a quota: below 1 a minute"),
                at_file,
                d.ep.line,
            );
        } else {
            rec(
                format!(
                    "{what}, read as its quota in the incident: attempts over it are refused (429, billed 0; MODEL.md §11)"
                ),
                at_file,
                d.ep.line,
            );
            out.push((d.id.clone(), limit));
        }
    }
    out
}

/// A fallback group's own model_group_retry_policy (or the primary's the fallback lacks):
/// listed, not priced.
fn fallback_retry_notes(at: &At, rec: &mut Rec) {
    let At {
        chain,
        policy,
        links,
        choice,
        ..
    } = *at;
    let group_policy = policy
        .group_retry_policy
        .iter()
        .find(|(g, _, _)| *g == chain.primary.label);
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
}

/// The policy's notes, failover statuses, breaker and call cap (`max_fallbacks`), written to
/// `policy_text` and said.
fn breaker_and_cap(
    at: &At,
    n_models: usize,
    retries: Option<u64>,
    rec: &mut Rec,
    policy_text: &mut Vec<String>,
) {
    let policy = at.policy;
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
        let steps = n_models as u64;
        let mf = s.value.round() as u64;
        if mf + 1 < steps {
            let cap = (1 + retries.unwrap_or(0)) * (1 + mf);
            policy_text.push(format!("max_attempts = {cap}"));
            rec(
                format!("call cap {cap} attempts ((1 + retries) x (1 + max_fallbacks {mf}))"),
                &s.file,
                s.line,
            );
        }
    }
}
