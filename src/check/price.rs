//! Pricing the chains `fallcost check` judges: a gateway endpoint priced from the table and
//! the config's own prices ([`price_endpoint`]), a chain step as a [`Side`] (its models, their
//! traffic shares, the mix), a whole config's chains ([`price_config`]).

use std::collections::{BTreeSet, HashMap};

use crate::error::InputError;
use crate::input::gateway::endpoint::EndpointPrice;
use crate::input::gateway::{Config, Endpoint, Group};
use crate::model::{PriceTable, Request};
use crate::report::check::{Finding, PricedModel, Side};

/// A fallback of a chain ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedLink {
    /// The fallback, priced.
    pub fallback: Side,
    /// The file the link is declared in.
    pub file: String,
    /// Line of the link.
    pub line: usize,
    /// The steps passed through to reach it (empty for a direct link).
    pub via: Vec<String>,
}

/// A chain ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedChain {
    /// The file the chain is declared in, as named on the command line (or as a LiteLLM
    /// `include` names it).
    pub file: String,
    /// The chain's name.
    pub name: String,
    /// Line of the chain's declaration.
    pub line: usize,
    /// The primary.
    pub primary: Side,
    /// The fallbacks.
    pub links: Vec<PricedLink>,
}

/// Price one gateway endpoint for `request` ([`crate::input::gateway::endpoint::price`]), at
/// the long-context tier the request's prompt falls in, standard service tier. Returns the
/// priced model and the note on its price source, if any.
///
/// Errors: [`crate::error::InputErrorKind::UnknownModel`] when the table has no price for the
/// model and the config does not set both input and output prices (an unknown price is never
/// taken as zero).
pub fn price_endpoint(
    file: &str,
    ep: &Endpoint,
    table: &PriceTable,
    request: &Request,
) -> Result<(PricedModel, Option<String>), InputError> {
    let EndpointPrice {
        price,
        priced_as,
        provider,
        note,
    } = crate::input::gateway::endpoint::price(file, ep, table)?;
    let billed = request
        .billed(&price, &crate::model::Billing::default())
        .unwrap_or(price);
    Ok((
        PricedModel::priced(ep.model.clone(), priced_as, provider, request, &billed),
        note,
    ))
}

/// Price a gateway config's chains with `table` and `request`.
///
/// Returns the chains that could be priced, the notes on price sources, and an input error for
/// every model with no known price (a step that cannot be fully priced is left out of its chain,
/// and the run exits 2). Each group is priced once, however many chains reach it.
pub fn price_config(
    file: &str,
    config: &Config,
    table: &PriceTable,
    request: &Request,
) -> (Vec<PricedChain>, Vec<Finding>, Vec<InputError>) {
    let mut notes = Vec::new();
    let mut errors: Vec<InputError> = Vec::new();
    // An unknown model is one error at its first place, naming the other lines it is at.
    let mut unknown: HashMap<(String, String), (usize, Vec<usize>)> = HashMap::new();
    let mut noted = BTreeSet::new();
    // A group is its label and where its models are named.
    type Key = (String, Vec<(Option<String>, usize, usize)>);
    let mut priced: HashMap<Key, Option<Side>> = HashMap::new();
    let mut side = |group: &Group| -> Option<Side> {
        if group.endpoints.is_empty() {
            return None;
        }
        let key: Key = (
            group.label.clone(),
            group
                .endpoints
                .iter()
                .map(|e| (e.file.clone(), e.line, e.col))
                .collect(),
        );
        if let Some(s) = priced.get(&key) {
            return s.clone();
        }
        let mut models = Vec::new();
        let mut ok = true;
        for ep in &group.endpoints {
            match price_endpoint(file, ep, table, request) {
                Ok((m, note)) => {
                    let at = (ep.file.clone(), ep.line);
                    if let Some(message) = note
                        && noted.insert(at)
                    {
                        notes.push(Finding::PriceSource {
                            file: ep.file.as_deref().unwrap_or(file).to_string(),
                            line: ep.line,
                            message,
                        });
                    }
                    models.push(m);
                }
                Err(e) => {
                    let key = (e.file.clone(), ep.model.clone());
                    let line = e.location.map_or(0, |l| l.line);
                    match unknown.get_mut(&key) {
                        Some((_, lines))
                            if e.kind == crate::error::InputErrorKind::UnknownModel =>
                        {
                            if !lines.contains(&line) {
                                lines.push(line);
                            }
                        }
                        _ => {
                            if !errors.contains(&e) {
                                unknown.insert(key, (errors.len(), vec![line]));
                                errors.push(e);
                            }
                        }
                    }
                    ok = false;
                }
            }
        }
        let s = ok.then(|| match (&group.shares, &group.mix) {
            (Some(shares), Some(basis)) if shares.len() == models.len() => {
                Side::mixed(group.label.clone(), models, shares, basis.clone())
            }
            _ => Side::new(group.label.clone(), models),
        });
        priced.insert(key, s.clone());
        s
    };
    let mut chains = Vec::new();
    for chain in &config.chains {
        let primary = side(&chain.primary);
        let links: Vec<PricedLink> = chain
            .links
            .iter()
            .filter_map(|l| {
                side(&l.fallback).map(|s| PricedLink {
                    fallback: s,
                    file: l.at.file_or(file).to_string(),
                    line: l.at.line,
                    via: l.via.clone(),
                })
            })
            .collect();
        if let Some(primary) = primary {
            chains.push(PricedChain {
                file: chain.at.file_or(file).to_string(),
                name: chain.name.clone(),
                line: chain.at.line,
                primary,
                links,
            });
        }
    }
    for (i, lines) in unknown.into_values() {
        let mut lines = lines;
        lines.sort_unstable();
        if lines.len() > 1 {
            let first = errors[i].location.map_or(0, |l| l.line);
            let others: Vec<String> = lines
                .iter()
                .filter(|l| **l != first)
                .map(|l| l.to_string())
                .collect();
            if !others.is_empty() {
                errors[i].message.push_str(&format!(
                    " (also named at line{} {})",
                    if others.len() == 1 { "" } else { "s" },
                    others.join(", ")
                ));
            }
        }
    }
    // In the order of the file, whatever order the chains reached the models in.
    errors.sort_by_key(|e| (e.file.clone(), e.location.map(|l| (l.line, l.col))));
    (chains, notes, errors)
}
