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
    /// Which requests the fallbacks take when only some do (`context_window_fallbacks`,
    /// `content_policy_fallbacks`); `None`: every failure.
    pub condition: Option<crate::model::condition::Condition>,
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
    let mut m = PricedModel::priced(ep.model.clone(), priced_as, provider, request, &billed);
    m.fit = table
        .fit_of(&m.priced_as)
        .or_else(|| table.fit_of(&ep.model))
        .cloned();
    m.limit = ep.limit;
    m.line = ep.line;
    Ok((m, note))
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
    let mut p = Pricer {
        file,
        table,
        request,
        notes: Vec::new(),
        errors: Vec::new(),
        unknown: HashMap::new(),
        noted: BTreeSet::new(),
        priced: HashMap::new(),
    };
    let mut chains = Vec::new();
    for chain in &config.chains {
        let primary = p.side(&chain.primary);
        let links: Vec<PricedLink> = chain
            .links
            .iter()
            .filter_map(|l| {
                p.side(&l.fallback).map(|s| PricedLink {
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
                condition: chain.condition,
            });
        }
    }
    let Pricer {
        notes,
        mut errors,
        unknown,
        ..
    } = p;
    name_other_lines(&mut errors, unknown);
    // In the order of the file, whatever order the chains reached the models in.
    errors.sort_by_key(|e| (e.file.clone(), e.location.map(|l| (l.line, l.col))));
    (chains, notes, errors)
}

/// A group: its label and where its models are named.
type GroupKey = (String, Vec<(Option<String>, usize, usize)>);

/// The state of pricing one config's groups ([`price_config`]).
struct Pricer<'a> {
    file: &'a str,
    table: &'a PriceTable,
    request: &'a Request,
    /// The notes on price sources, once per place.
    notes: Vec<Finding>,
    /// The input errors, one per unknown model (at its first place).
    errors: Vec<InputError>,
    /// An unknown model (file, model) → its error's index and the lines it is named at.
    unknown: HashMap<(String, String), (usize, Vec<usize>)>,
    /// The places a note was given for.
    noted: BTreeSet<(Option<String>, usize)>,
    /// Each group priced so far (`None`: not fully priced).
    priced: HashMap<GroupKey, Option<Side>>,
}

impl Pricer<'_> {
    /// `group` priced (once), or `None` when it is empty or a model of it has no price.
    fn side(&mut self, group: &Group) -> Option<Side> {
        if group.endpoints.is_empty() {
            return None;
        }
        let key: GroupKey = (
            group.label.clone(),
            group
                .endpoints
                .iter()
                .map(|e| (e.file.clone(), e.line, e.col))
                .collect(),
        );
        if let Some(s) = self.priced.get(&key) {
            return s.clone();
        }
        let mut models = Vec::new();
        let mut ok = true;
        for ep in &group.endpoints {
            match price_endpoint(self.file, ep, self.table, self.request) {
                Ok((m, note)) => {
                    let at = (ep.file.clone(), ep.line);
                    if let Some(message) = note
                        && self.noted.insert(at)
                    {
                        self.notes.push(Finding::PriceSource {
                            file: ep.file.as_deref().unwrap_or(self.file).to_string(),
                            line: ep.line,
                            message,
                        });
                    }
                    models.push(m);
                }
                Err(e) => {
                    self.failed(ep, e);
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
        self.priced.insert(key, s.clone());
        s
    }

    /// Record `e`, the error pricing `ep`: an unknown model once, at its first place, with the
    /// other lines it is named at; any other error once.
    fn failed(&mut self, ep: &Endpoint, e: InputError) {
        let key = (e.file.clone(), ep.model.clone());
        let line = e.location.map_or(0, |l| l.line);
        match self.unknown.get_mut(&key) {
            Some((_, lines)) if e.kind == crate::error::InputErrorKind::UnknownModel => {
                if !lines.contains(&line) {
                    lines.push(line);
                }
            }
            _ => {
                if !self.errors.contains(&e) {
                    self.unknown.insert(key, (self.errors.len(), vec![line]));
                    self.errors.push(e);
                }
            }
        }
    }
}

/// Add to each unknown model's error the other lines it is named at (`(also named at lines
/// 15, 104)`).
fn name_other_lines(
    errors: &mut [InputError],
    unknown: HashMap<(String, String), (usize, Vec<usize>)>,
) {
    for (i, mut lines) in unknown.into_values() {
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
}
