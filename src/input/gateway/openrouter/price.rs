//! Prices for an OpenRouter step whose request names no provider for the model, as its router
//! picks one ([`super`]'s module docs):
//! - default routing: OpenRouter's own price for the model, the price table's `openrouter/`
//!   row (LiteLLM keys OpenRouter's ids so, `openrouter/anthropic/claude-sonnet-4.5`), else the
//!   author's own entry (`openai/gpt-4o`, as written; or its dotted version as the provider
//!   spells it, `anthropic/claude-sonnet-4.5` as `claude-sonnet-4-5`: OpenRouter bills the
//!   provider's price), each said in the price's note; else unknown, never another provider's;
//! - `:floor` (`provider.sort: "price"`): the providers sorted by price, the cheapest first: a
//!   proprietary model's hosts ([`super::HOSTS`]) the table prices it for, the cheapest one;
//! - `:nitro` (`provider.sort: "throughput"`, or `"latency"`): the fastest provider first,
//!   which the table does not say: the model over its hosts the table prices, judged by their
//!   range (worst case);
//! - an open-weights model under `:floor` or `:nitro` with no provider named: its providers
//!   are not the table's to say, so it is unknown (the error says how to name them).

use super::HOSTS;
use crate::input::gateway::Endpoint;
use crate::input::gateway::endpoint::{EndpointPrice, price};
use crate::model::prices::provider_family;
use crate::model::{ModelPrice, PriceTable};

/// How a request sorts a model's providers: `provider.sort`, or the `:floor` / `:nitro`
/// variant of the model id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sort {
    /// By price, the cheapest first (`:floor`, `"price"`).
    Price,
    /// By throughput, the fastest first (`:nitro`, `"throughput"`).
    Throughput,
    /// By latency, the quickest to answer first (`"latency"`).
    Latency,
}

impl Sort {
    /// The `provider.sort` value (`price`, `throughput`, `latency`), if it is one.
    pub(super) fn parse(by: &str) -> Option<Sort> {
        match by {
            "price" => Some(Sort::Price),
            "throughput" => Some(Sort::Throughput),
            "latency" => Some(Sort::Latency),
            _ => None,
        }
    }

    /// How it sorts, for notes.
    pub(super) fn how(self) -> &'static str {
        match self {
            Sort::Price => "sorts its providers by price, the cheapest first",
            Sort::Throughput => "sorts its providers by throughput, the fastest first",
            Sort::Latency => "sorts its providers by latency, the quickest first",
        }
    }
}

/// A model id and the sort its variant asks for: `m:floor` is `m` by price, `m:nitro` `m` by
/// throughput; any other id (`:free` is a model of its own, billed $0) as written.
pub(super) fn split_variant(m: &str) -> (&str, Option<Sort>) {
    if let Some(base) = m.strip_suffix(":floor") {
        (base, Some(Sort::Price))
    } else if let Some(base) = m.strip_suffix(":nitro") {
        (base, Some(Sort::Throughput))
    } else {
        (m, None)
    }
}

/// `id` as compared across spellings of one id: lower-case, `.` and `_` as `-`.
fn same_id(id: &str) -> String {
    id.to_lowercase().replace(['.', '_'], "-")
}

/// The entry of `table` keyed `key` but for case and separators, of provider family `family`.
fn spelled<'t>(table: &'t PriceTable, key: &str, family: &str) -> Option<&'t ModelPrice> {
    table.models.get(key).or_else(|| {
        let want = same_id(key);
        table
            .models
            .iter()
            .find(|(k, e)| same_id(k) == want && provider_family(&e.provider) == family)
            .map(|(_, e)| e)
    })
}

/// What a step of model `m` under OpenRouter's default routing is priced as: the id to price,
/// the note saying whose price it is (`None`: `m` as written, the author's own entry), and the
/// failure domain when the entry's provider is not it (OpenRouter's row: the author's
/// provider). `make(host)` is `m`'s endpoint on a host of it, to find the host's own entry of
/// a dotted id.
pub(super) fn default_price(
    m: &str,
    table: &PriceTable,
    make: &dyn Fn(&str) -> Endpoint,
) -> (String, Option<String>, Option<String>) {
    if let Some(e) = spelled(table, &format!("openrouter/{m}"), "openrouter") {
        let author = m.split_once('/').map(|(a, _)| super::provider_name(a));
        let domain = author_hosts(m).into_iter().next().or(author);
        return (
            e.id.clone(),
            Some(format!(
                "`{m}` through OpenRouter's default routing: OpenRouter's own price for it"
            )),
            domain,
        );
    }
    if table.get(m).is_some() {
        return (m.to_string(), None, None);
    }
    for host in author_hosts(m) {
        if let Ok(p) = price("", &make(&host), table) {
            return (
                p.priced_as,
                Some(format!(
                    "`{m}` through OpenRouter's default routing: the table has no openrouter/ row for it, so the provider's own price, which OpenRouter bills as the provider does"
                )),
                None,
            );
        }
    }
    (m.to_string(), None, None)
}

/// The providers of an author's models OpenRouter routes to ([`super::HOSTS`]); empty for an
/// open-weights author, whose providers are any.
pub(super) fn author_hosts(m: &str) -> Vec<String> {
    let author = m.split_once('/').map_or("", |(a, _)| a);
    HOSTS
        .iter()
        .find(|(a, _)| *a == author)
        .map(|(_, hosts)| hosts.iter().map(|h| h.to_string()).collect())
        .unwrap_or_default()
}

/// The hosts of proprietary model `m` the table prices it for, each with its endpoint
/// (`make(host)`) and price, in [`super::HOSTS`]' order; a host the table does not price the
/// model for is left out (never priced from another's entry).
pub(super) fn priced_hosts(
    file: &str,
    m: &str,
    table: &PriceTable,
    make: &dyn Fn(&str) -> Endpoint,
) -> Vec<(String, Endpoint, EndpointPrice)> {
    author_hosts(m)
        .into_iter()
        .filter_map(|h| {
            let ep = make(&h);
            let p = price(file, &ep, table).ok()?;
            Some((h, ep, p))
        })
        .collect()
}

/// The list price a provider is sorted by under `:floor`: USD per input plus output token.
pub(super) fn list_price(p: &EndpointPrice) -> f64 {
    p.price.input + p.price.output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_default_prices() {
        assert_eq!(
            split_variant("openai/gpt-4o:floor"),
            ("openai/gpt-4o", Some(Sort::Price))
        );
        assert_eq!(
            split_variant("openai/gpt-4o:nitro"),
            ("openai/gpt-4o", Some(Sort::Throughput))
        );
        assert_eq!(split_variant("a/b:free"), ("a/b:free", None));
        let t = crate::input::pricing::bundled("litellm-1.110.2").unwrap();
        let on =
            |m: &'static str| move |h: &str| super::super::endpoint(m, 1, 1, Some(h.to_string()));
        // No openrouter/ row in the snapshot: the author's own entry, dotted as it spells it.
        let m = "anthropic/claude-sonnet-4.5";
        let (id, note, _) = default_price(m, &t, &on(m));
        assert_eq!(id, "claude-sonnet-4-5");
        assert!(note.unwrap().contains("the table has no openrouter/ row"));
        let m = "openai/gpt-4o";
        assert_eq!(default_price(m, &t, &on(m)), (m.into(), None, None));
        // An open-weights model: no author's entry to take; as written (unknown).
        let m = "meta-llama/llama-3.3-70b-instruct";
        let (id, note, _) = default_price(m, &t, &on(m));
        assert_eq!(
            (id.as_str(), note),
            ("meta-llama/llama-3.3-70b-instruct", None)
        );
    }
}
