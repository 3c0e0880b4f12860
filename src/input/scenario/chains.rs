//! `[latency]` and `[[chain]]`: each chain's models priced and billed, its steady parameters
//! and policy resolved, and the chain built ([`ChainDraft::build`] derives the trip rates and
//! w from the latency models); then the checks across chains (latency entries used, traffic
//! shares adding up to 1).

use std::collections::{BTreeMap, BTreeSet};

use super::super::document::{Document, PathSegment};
use super::super::{check_name, show};
use super::file::{ChainSpec, ScenarioFile};
use super::policy::resolve_policy;
use super::replaced::Replaced;
use super::steady::resolve_steady;
use super::{broad_hint, key};
use crate::error::{InputError, InputErrorKind};
use crate::model::fit::Capacity;
use crate::model::latency::Latency;
use crate::model::{
    Billing, Chain, ChainDraft, LinkDraft, ModelPrice, PriceTable, Request, ServiceTier,
};

/// Each chain's service tier per link, primary first, by chain name
/// ([`crate::model::ScenarioBilling::service_tiers`]).
type ChainTiers = Vec<(String, Vec<ServiceTier>)>;

/// Where a link's service tier is written ([`ChainInput::link_tier`]), for the error of a tier
/// (or cache TTL) its model does not offer.
#[derive(Clone, Copy)]
enum TierAt {
    /// The chain's `service_tiers`, at this position (of the chain as written, where a `--set`
    /// replaced its models).
    List(usize),
    /// The chain's `service_tier`.
    Chain,
    /// The scenario's `service_tier`, or none (standard).
    Scenario,
}

/// Each link's own timeout and output cap from a chain's `link_timeouts_s` and
/// `max_output_tokens` (keyed by model as written in `models`; every link of that model),
/// primary first. On a chain whose models a `--set` replaced (`replaced`), the file's keys are
/// the chain's models as written: each applies to the links of its model now (by resolved id),
/// and one whose model the chain no longer has applies to nothing ([`LinkMap::link_map`]).
///
/// Errors: a key that is none of the chain's models (as written, for the file's keys of a
/// replaced chain); a timeout that is not a number of seconds in (0, 1e6]; a cap of 0 tokens;
/// a primary timeout at or below the policy's `hedge_delay_s`.
#[allow(clippy::type_complexity)]
fn resolve_link_values(
    doc: &Document,
    spec: &super::file::ChainSpec,
    ci: usize,
    policy: &crate::model::Policy,
    replaced: Option<&Replaced>,
) -> Result<(Vec<Option<f64>>, Vec<Option<u64>>), InputError> {
    let at = |field: &str, model: &str| {
        vec![key("chain"), PathSegment::Index(ci), key(field), key(model)]
    };
    let invalid =
        |path: Vec<PathSegment>, msg: String| doc.error_at(InputErrorKind::Invalid, &path, msg);
    let links = LinkMap {
        doc,
        spec,
        ci,
        replaced,
    };
    let timeouts = links.link_map("link_timeouts_s", spec.link_timeouts_s.as_ref(), |m, t| {
        if t.is_finite() && t > 0.0 && t <= 1e6 {
            Ok(())
        } else {
            Err(invalid(
                at("link_timeouts_s", m),
                format!(
                    "must be a number of seconds > 0 and at most 1e6; got {}",
                    show(t)
                ),
            ))
        }
    })?;
    if let (Some(d), Some((t0, model))) = (policy.hedge_delay_s, timeouts[0])
        && d >= t0
    {
        return Err(invalid(
            at("link_timeouts_s", model),
            format!(
                "a hedge sent after {} s (policy.hedge_delay_s) never races a primary that times out at {} s; give the primary a timeout above the delay",
                show(d),
                show(t0)
            ),
        ));
    }
    let caps = links.link_map(
        "max_output_tokens",
        spec.max_output_tokens.as_ref(),
        |m, cap| {
            if cap == 0 {
                Err(invalid(
                    at("max_output_tokens", m),
                    "must be a number of output tokens >= 1; got 0".into(),
                ))
            } else {
                Ok(())
            }
        },
    )?;
    Ok((values(timeouts), values(caps)))
}

/// Each link's value, without the key it is written under.
fn values<T>(links: Vec<Option<(T, &str)>>) -> Vec<Option<T>> {
    links.into_iter().map(|e| e.map(|(v, _)| v)).collect()
}

/// Chain number `ci` (`spec`), for its maps keyed by model ([`LinkMap::link_map`]).
struct LinkMap<'a> {
    doc: &'a Document<'a>,
    spec: &'a ChainSpec,
    ci: usize,
    replaced: Option<&'a Replaced<'a>>,
}

impl<'a> LinkMap<'a> {
    /// Each link's value in the chain's map `field` (`link_timeouts_s`, `max_output_tokens`),
    /// with the key it is written under, primary first; `check` validates each value.
    ///
    /// A key is a model as written in `models`, and applies to every link of that model. On a
    /// chain whose models a `--set` replaced, the file's keys are models of the chain as
    /// written: each applies to the links of its model now (by resolved id, as the per-link
    /// lists are read), and one whose model the replaced chain dropped applies to nothing (as
    /// `[latency]` and `[capacity]` entries do then); an entry the user's own `--set` gives
    /// (`chain.NAME.FIELD."MODEL"`) is one for the chain as it is now, and wins.
    ///
    /// Errors, in key order: a key that is none of the chain's models (as written, for the
    /// file's keys of a replaced chain); `check`'s.
    fn link_map<T: Copy>(
        &self,
        field: &str,
        map: Option<&'a BTreeMap<String, T>>,
        check: impl Fn(&str, T) -> Result<(), InputError>,
    ) -> Result<Vec<Option<(T, &'a str)>>, InputError> {
        let spec = self.spec;
        let mut out = vec![None; spec.models.len()];
        let Some(map) = map else {
            return Ok(out);
        };
        // The ids of the models a key of the file names on a replaced chain; `None`: the key
        // is the chain's own (not replaced) or the user's, and names models as they are now.
        let file_id = |k: &str| {
            self.replaced
                .filter(|r| !r.set_exactly(&["chain", r.chain, field, k]))
                .map(|r| (r, r.written_id(k)))
        };
        for (k, v) in map {
            match file_id(k) {
                Some((_, Some(_))) => {}
                Some((r, None)) => {
                    let written = r.written.iter().map(|(m, _)| *m);
                    return Err(self.not_listed(field, k, written, true));
                }
                None if spec.models.contains(k) => {}
                None => {
                    let models = spec.models.iter().map(String::as_str);
                    return Err(self.not_listed(field, k, models, false));
                }
            }
            check(k, *v)?;
        }
        // The file's keys first, so that the user's own entries win.
        for (k, v) in map {
            if let Some((r, Some(id))) = file_id(k) {
                for (i, (_, now)) in r.now.iter().enumerate() {
                    if now == id {
                        out[i] = Some((*v, k.as_str()));
                    }
                }
            }
        }
        for (k, v) in map {
            if file_id(k).is_none() {
                for (i, m) in spec.models.iter().enumerate() {
                    if m == k {
                        out[i] = Some((*v, k.as_str()));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Key `model` of the chain's map `field` is none of `models` (the chain's, or its models
    /// `as_written` where a `--set` replaced them).
    fn not_listed<'m>(
        &self,
        field: &str,
        model: &str,
        models: impl Iterator<Item = &'m str>,
        as_written: bool,
    ) -> InputError {
        let path = vec![
            key("chain"),
            PathSegment::Index(self.ci),
            key(field),
            key(model),
        ];
        self.doc.error_at(
            InputErrorKind::Invalid,
            &path,
            format!(
                "`{model}` is not one of this chain's models{} ({}); key {field} by a model as written in `models`",
                if as_written { " as written" } else { "" },
                models.map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
            ),
        )
    }
}

/// What every chain of a scenario is resolved against: the document (for errors), the file,
/// the price table, and the request billed with the scenario's `cache_ttl_s`.
struct ChainInput<'a> {
    doc: &'a Document<'a>,
    file: &'a ScenarioFile,
    prices: &'a PriceTable,
    request: &'a Request,
    cache_ttl_s: Option<f64>,
}

/// The `[latency]` table: each model's latency by resolved id, and the key as written (for
/// errors) by resolved id.
struct LatencyTable<'a> {
    by_id: BTreeMap<String, Latency>,
    written: BTreeMap<String, &'a str>,
}

/// The path of field `rest` in chain number `ci`.
fn chain_path(ci: usize, rest: &[PathSegment]) -> Vec<PathSegment> {
    let mut p = vec![key("chain"), PathSegment::Index(ci)];
    p.extend_from_slice(rest);
    p
}

/// The chains of `file`, in file order, and each chain's service tier per link (by name), for
/// `request` billed with the scenario's `cache_ttl_s`.
///
/// Errors: an unknown model (in a chain or a `[latency]` key), bad latency percentiles, a
/// duplicate or empty chain, service tiers that do not match the models, a steady or policy
/// value out of range, a `[latency]` entry no chain uses, traffic shares that do not add up.
pub(super) fn resolve_chains(
    doc: &Document,
    file: &ScenarioFile,
    prices: &PriceTable,
    request: &Request,
    cache_ttl_s: Option<f64>,
) -> Result<(Vec<Chain>, ChainTiers), InputError> {
    let input = ChainInput {
        doc,
        file,
        prices,
        request,
        cache_ttl_s,
    };
    let latency = input.resolve_latency()?;
    let capacity = super::capacity::resolve(doc, &file.capacity, prices)?;
    if file.chains.is_empty() {
        return Err(input.invalid(
            &[key("chain")],
            "no chains; add at least one [[chain]] with a name and models".into(),
        ));
    }
    let mut names = BTreeSet::new();
    let mut chains = Vec::new();
    let mut service_tiers: ChainTiers = Vec::new();
    for (ci, spec) in file.chains.iter().enumerate() {
        let (chain, tiers) =
            input.resolve_chain(ci, spec, (&latency.by_id, &capacity.by_id), &mut names)?;
        service_tiers.push((spec.name.clone(), tiers));
        chains.push(chain);
    }
    input.check_used("latency", &latency.written, &chains)?;
    input.check_used("capacity", &capacity.written, &chains)?;
    input.check_traffic_shares()?;
    Ok((chains, service_tiers))
}

impl<'a> ChainInput<'a> {
    /// An invalid-value error at `path`.
    fn invalid(&self, path: &[PathSegment], msg: String) -> InputError {
        self.doc.error_at(InputErrorKind::Invalid, path, msg)
    }

    /// The hints for model `id` the price table lacks: near names, and the broad table.
    fn unknown_hint(&self, id: &str) -> String {
        format!(
            "{}{}",
            self.prices.lookup_hint(id),
            broad_hint(self.file, id)
        )
    }

    /// `[latency]`, keyed by the resolved id, exactly as chain models are resolved (a LiteLLM
    /// table takes `openai/gpt-4o-mini` for its `gpt-4o-mini`), with the key as written for
    /// errors.
    ///
    /// Errors: an unknown model, two keys naming one model, percentiles out of range.
    fn resolve_latency(&self) -> Result<LatencyTable<'a>, InputError> {
        let mut latency = BTreeMap::new();
        let mut latency_keys: BTreeMap<String, &'a str> = BTreeMap::new();
        for (id, spec) in &self.file.latency {
            let at = |f: &str| vec![key("latency"), key(id), key(f)];
            let Some(resolved) = self.prices.get(id).map(|p| p.id.clone()) else {
                let hint = self.unknown_hint(id);
                return Err(self.doc.error_at(
                    InputErrorKind::UnknownModel,
                    &[key("latency"), key(id)],
                    format!(
                        "unknown model `{id}`{hint}: price table {} has no price for it",
                        self.prices.name
                    ),
                ));
            };
            if let Some(first) = latency_keys.insert(resolved.clone(), id) {
                return Err(self.invalid(
                    &[key("latency"), key(id)],
                    format!(
                        "`{id}` and `{first}` name the same model `{resolved}`; give it one [latency] entry"
                    ),
                ));
            }
            if !(spec.p50_s.is_finite() && spec.p50_s > 0.0 && spec.p50_s <= 1e6) {
                return Err(self.invalid(
                    &at("p50_s"),
                    format!(
                        "must be a number of seconds > 0 and at most 1e6; got {}",
                        spec.p50_s
                    ),
                ));
            }
            if !(spec.p99_s.is_finite() && spec.p99_s >= spec.p50_s && spec.p99_s <= 1e6) {
                return Err(self.invalid(
                    &at("p99_s"),
                    format!(
                        "must be at least p50_s ({}) and at most 1e6 seconds; got {}",
                        spec.p50_s, spec.p99_s
                    ),
                ));
            }
            latency.insert(
                resolved,
                Latency {
                    p50_s: spec.p50_s,
                    p99_s: spec.p99_s,
                    given: true,
                },
            );
        }
        Ok(LatencyTable {
            by_id: latency,
            written: latency_keys,
        })
    }

    /// Chain number `ci` built, and its service tier per link, each link given its model's
    /// `[latency]` and `[capacity]` entries (by resolved id); `names` holds the names of the
    /// chains before it.
    ///
    /// Errors: a bad or duplicate name, no models, a link that cannot be billed, service tiers
    /// that do not match the models, a steady, policy or link value out of range, a
    /// `traffic_share` outside (0, 1].
    fn resolve_chain(
        &self,
        ci: usize,
        spec: &'a ChainSpec,
        (latency, capacity): (&BTreeMap<String, Latency>, &BTreeMap<String, Capacity>),
        names: &mut BTreeSet<&'a str>,
    ) -> Result<(Chain, Vec<ServiceTier>), InputError> {
        let at = |rest: &[PathSegment]| chain_path(ci, rest);
        check_name(&spec.name).map_err(|m| self.invalid(&at(&[key("name")]), m.to_string()))?;
        if !names.insert(spec.name.as_str()) {
            return Err(self.invalid(
                &at(&[key("name")]),
                format!(
                    "duplicate chain name `{}`; chain names must be unique",
                    spec.name
                ),
            ));
        }
        if spec.models.is_empty() {
            return Err(self.invalid(
                &at(&[key("models")]),
                "empty chain; list at least the primary model".into(),
            ));
        }
        // The steady rates before the prices: a `--set` that puts a model on the chain for
        // which the file's per-link list states no rate is refused for that first.
        let replaced = self.replaced(ci, spec);
        let steady = resolve_steady(
            self.doc,
            (&self.file.steady, &spec.steady),
            spec.models.len(),
            ci,
            replaced.as_ref(),
        )?;
        let (billed, tiers) = self.bill_links(ci, spec, replaced.as_ref())?;
        let policy = resolve_policy(self.doc, &self.file.policy, &spec.policy, ci)?;
        let (timeouts, caps) = resolve_link_values(self.doc, spec, ci, &policy, replaced.as_ref())?;
        let links = billed
            .into_iter()
            .enumerate()
            .map(|(i, price)| LinkDraft {
                latency: latency.get(&price.id).copied().unwrap_or_default(),
                capacity: capacity.get(&price.id).copied(),
                price: match caps[i] {
                    Some(cap) => crate::model::chain::cap_output(price, self.request, cap),
                    None => price,
                },
                failure_rate: steady.failure_rates[i],
                trip_rate: steady.trip_rates.as_ref().map(|t| t[i]),
                timeout_s: timeouts[i],
                max_output_tokens: caps[i],
            })
            .collect();
        if let Some(share) = spec.traffic_share
            && !(share.is_finite() && share > 0.0 && share <= 1.0)
        {
            return Err(self.invalid(
                &at(&[key("traffic_share")]),
                format!("must be in (0, 1]; got {}", show(share)),
            ));
        }
        let mut chain = ChainDraft {
            name: spec.name.clone(),
            links,
            steady: steady.shared,
            primary_win_rate: steady.primary_win_rate,
            policy,
            traffic_share: spec.traffic_share,
        }
        .build();
        let requires = self.file.request.requires.as_deref().unwrap_or_default();
        for l in &mut chain.links {
            l.fit = self.prices.fit_of(&l.price.id).cloned();
            l.refusal = l
                .fit
                .as_ref()
                .and_then(|f| crate::model::fit::refusal(f, self.request, requires));
        }
        Ok((chain, tiers))
    }

    /// Chain number `ci` as [`resolve_steady`] reads the file's per-link lists on it: when a
    /// `--set` replaced its models, its models as the file writes them and as they are now,
    /// each with the id it resolves to (the name itself where the price table lacks it).
    fn replaced(&self, ci: usize, spec: &'a ChainSpec) -> Option<Replaced<'a>> {
        let written = self.file.as_written.models.get(ci)?.as_ref()?;
        if *written == spec.models {
            return None;
        }
        let ids = |models: &'a [String]| {
            models
                .iter()
                .map(|m| {
                    let id = self
                        .prices
                        .get(m)
                        .map_or_else(|| m.clone(), |p| p.id.clone());
                    (m.as_str(), id)
                })
                .collect()
        };
        Some(Replaced {
            chain: &spec.name,
            written: ids(written),
            now: ids(&spec.models),
            set_keys: &self.file.as_written.set_keys,
        })
    }

    /// Chain number `ci`'s models priced and billed (request, service tier, cache TTL), with
    /// each link's service tier, primary first ([`ChainInput::link_tier`]).
    ///
    /// Errors: an unknown model, service tiers that do not match the models, a tier or TTL the
    /// model does not offer.
    fn bill_links(
        &self,
        ci: usize,
        spec: &ChainSpec,
        replaced: Option<&Replaced>,
    ) -> Result<(Vec<ModelPrice>, Vec<ServiceTier>), InputError> {
        let at = |rest: &[PathSegment]| chain_path(ci, rest);
        let r = &self.file.request;
        // A list the file gives a chain whose models a `--set` replaced is read by model; one
        // the user's own `--set` states is one per link of the chain as it is now.
        let replaced = replaced.filter(|r| !r.set_in_chain("service_tiers"));
        let mut links = Vec::new();
        let mut tiers = Vec::with_capacity(spec.models.len());
        for (mi, id) in spec.models.iter().enumerate() {
            let Some(price) = self.prices.get(id) else {
                let hint = self.unknown_hint(id);
                return Err(self.doc.error_at(
                    InputErrorKind::UnknownModel,
                    &at(&[key("models"), PathSegment::Index(mi)]),
                    format!(
                        "unknown model `{id}`{hint}: price table {} has no price for it, and an unknown price is never taken as zero; declare it in fallcost.toml (`[prices.\"{id}\"]` input and output in USD per 1M tokens), or run `fallcost prices --pricing {}` to list its models",
                        self.prices.name, self.prices.name
                    ),
                ));
            };
            let (service, from) = self.link_tier(ci, spec, mi, replaced)?;
            let billing = Billing {
                service,
                cache_ttl_s: self.cache_ttl_s,
                cache_miss: r.cache_miss,
            };
            let billed = self.request.billed(price, &billing).map_err(|m| {
                let field = match from {
                    TierAt::List(p) => at(&[key("service_tiers"), PathSegment::Index(p)]),
                    TierAt::Chain => at(&[key("service_tier")]),
                    TierAt::Scenario if service != ServiceTier::Standard => {
                        vec![key("service_tier")]
                    }
                    TierAt::Scenario if r.cache_ttl.is_some() => {
                        vec![key("request"), key("cache_ttl")]
                    }
                    TierAt::Scenario => at(&[key("models"), PathSegment::Index(mi)]),
                };
                self.invalid(&field, m.to_string())
            })?;
            links.push(billed);
            tiers.push(service);
        }
        if let Some(list) = &spec.service_tiers {
            let models = replaced.map_or(spec.models.len(), |r| r.written.len());
            if list.len() != models {
                return Err(self.tier_count_error(ci, list.len(), models));
            }
        }
        Ok((links, tiers))
    }

    /// Link `mi`'s service tier on chain number `ci`, and where it is written: the chain's
    /// `service_tiers` at the link's position, else the chain's `service_tier`, else the
    /// scenario's, else standard.
    ///
    /// On a chain whose models a `--set` replaced (`replaced`: the list is the file's), the
    /// list gives one tier per model of the chain as written, and the link takes its model's.
    /// A model not on the chain as written is billed at the tier a link the list does not
    /// name gets (the chain's `service_tier`, else the scenario's, else standard): a tier is
    /// a billing choice with a default, not a measured rate (MODEL.md §10), and another
    /// model's tier is never borrowed.
    ///
    /// Errors: a list of the wrong length (one per model as written, on a replaced chain); a
    /// model the chain as written lists twice with two tiers.
    fn link_tier(
        &self,
        ci: usize,
        spec: &ChainSpec,
        mi: usize,
        replaced: Option<&Replaced>,
    ) -> Result<(ServiceTier, TierAt), InputError> {
        let unlisted = || match spec.service_tier {
            Some(s) => (s, TierAt::Chain),
            None => (self.file.service_tier.unwrap_or_default(), TierAt::Scenario),
        };
        let Some(list) = &spec.service_tiers else {
            return Ok(unlisted());
        };
        let Some(r) = replaced else {
            return match list.get(mi) {
                Some(s) => Ok((*s, TierAt::List(mi))),
                None => Err(self.tier_count_error(ci, list.len(), spec.models.len())),
            };
        };
        if list.len() != r.written.len() {
            return Err(self.tier_count_error(ci, list.len(), r.written.len()));
        }
        let positions = r.written_positions(mi);
        let Some(&p) = positions.first() else {
            return Ok(unlisted());
        };
        if let Some(&o) = positions.iter().find(|&&o| list[o] != list[p]) {
            return Err(self.invalid(
                &chain_path(ci, &[key("service_tiers")]),
                format!(
                    "`{}` is on chain `{}` as written ({}) more than once, with tiers {} and {}: the list gives it no one tier; give it one tier, or state the list for the chain as it is now with --set",
                    r.now[mi].0,
                    r.chain,
                    r.written_list(),
                    list[p].as_str(),
                    list[o].as_str()
                ),
            ));
        }
        Ok((list[p], TierAt::List(p)))
    }

    /// Chain number `ci`'s `service_tiers` has `given` tiers, not one per model (of `models`).
    fn tier_count_error(&self, ci: usize, given: usize, models: usize) -> InputError {
        self.invalid(
            &chain_path(ci, &[key("service_tiers")]),
            format!(
                "gives {given} service tiers for {models} models; give one per model, primary first"
            ),
        )
    }

    /// A `[latency]` or `[capacity]` (`table`) entry for a model no chain uses applies to
    /// nothing: a typo or a stale entry. Not checked where a `--set` replaced a chain's models
    /// ([`ScenarioFile::models_overridden`]): the entries it orphans apply to nothing.
    ///
    /// Errors: the first such entry (by resolved id).
    fn check_used(
        &self,
        table: &str,
        written: &BTreeMap<String, &str>,
        chains: &[Chain],
    ) -> Result<(), InputError> {
        if self.file.models_overridden {
            return Ok(());
        }
        for (resolved, written) in written {
            if !chains.iter().any(|c| c.prices().any(|l| &l.id == resolved)) {
                return Err(self.invalid(
                    &[key(table), key(written)],
                    format!(
                        "`{written}` is no chain's model: [{table}] entries apply to the models listed in a [[chain]]'s `models` (remove it, or add the model to a chain)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Traffic shares split the traffic across all the chains, or none.
    ///
    /// Errors: a chain without a share when another has one; shares not adding up to 1.
    fn check_traffic_shares(&self) -> Result<(), InputError> {
        let chains = &self.file.chains;
        let shared = chains.iter().filter(|c| c.traffic_share.is_some()).count();
        if shared > 0 {
            let first_missing = chains.iter().position(|c| c.traffic_share.is_none());
            if let Some(ci) = first_missing {
                return Err(self.invalid(
                    &[key("chain"), PathSegment::Index(ci), key("name")],
                    "other chains give a traffic_share; give one for every chain, adding up to 1"
                        .into(),
                ));
            }
            let sum: f64 = chains.iter().filter_map(|c| c.traffic_share).sum();
            if (sum - 1.0).abs() > 1e-9 {
                return Err(self.invalid(
                    &[key("chain"), PathSegment::Index(0), key("traffic_share")],
                    format!(
                        "the chains' traffic_share values add up to {}; they must add up to 1",
                        show(sum)
                    ),
                ));
            }
        }
        Ok(())
    }
}
