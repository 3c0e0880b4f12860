//! Why a model id did not resolve, for an error message ([`PriceTable::lookup_hint`]): the same
//! model of the same provider first (a separator or case apart, a dated snapshot, a typo),
//! then its bare or dated form (an author's own entry, named as that provider's price, never
//! as this one's), then the provider's own nearest priced ids, said to be other models. A
//! reseller's entry (`gmi/…` for `groq/…`) is never offered.

use super::{PriceTable, provider_family};

/// How many of a provider's nearest priced ids a hint names.
const NEAREST: usize = 3;

impl PriceTable {
    /// Why `id` did not resolve, for an error message: `" (several providers have it: a/x,
    /// b/x; name one)"` for an ambiguous bare id; `" (did you mean `y`?)"` for the same model
    /// of the same provider (a separator or case apart, a dated snapshot, a typo); for a
    /// `provider/model` id without one, the model's bare or dated form when an entry has it
    /// (`" (not priced for bedrock; `claude-sonnet-4-5` is anthropic's price, not
    /// bedrock's)"`), else the provider's nearest priced ids (`" (not priced for anthropic;
    /// anthropic's nearest priced ids, other models: …)"`); for a bare id, the nearest bare
    /// ids; or nothing. Another provider's `provider/…` entry is never named.
    pub fn lookup_hint(&self, id: &str) -> String {
        if !id.contains('/') {
            let all: Vec<&str> = self.suffixed(id).map(|p| p.id.as_str()).collect();
            if all.len() > 1 {
                let shown = all.iter().take(8).copied().collect::<Vec<_>>().join(", ");
                let more = if all.len() > 8 {
                    format!(" and {} more", all.len() - 8)
                } else {
                    String::new()
                };
                return format!(" (several providers have it: {shown}{more}; name one)");
            }
        }
        match id.split_once('/') {
            Some((pr, bare)) => self.provider_hint(pr, bare),
            None => self.bare_hint(id),
        }
    }

    /// [`PriceTable::lookup_hint`] for `provider/bare`.
    fn provider_hint(&self, pr: &str, bare: &str) -> String {
        // Compare like with like: the bare part with the keys of that provider's own entries
        // (its family: `bedrock_converse` is Bedrock's), without the provider's prefix
        // (`anthropic/claude-sonnet-4.5` -> `claude-sonnet-4-5`).
        let prefix = format!("{pr}/");
        let own: Vec<&str> = self
            .models
            .iter()
            .filter(|(_, p)| provider_family(&p.provider) == provider_family(pr))
            .map(|(k, _)| k.strip_prefix(&prefix).unwrap_or(k))
            .collect();
        if let Some(n) = same_model(bare, own.iter().copied()) {
            return format!(" (did you mean `{pr}/{n}`?)");
        }
        // The model's bare or dated form: an entry keyed without a provider (LiteLLM keys an
        // author's own models bare), named as its provider's price, never as this one's.
        let bare_keys = self
            .models
            .keys()
            .map(String::as_str)
            .filter(|k| !k.contains('/'));
        if let Some(n) = same_model(bare, bare_keys) {
            let other = self
                .models
                .get(n)
                .map_or("another provider", |p| p.provider.as_str());
            return format!(" (not priced for {pr}; `{n}` is {other}'s price, not {pr}'s)");
        }
        let near = nearest_ids(bare, own.iter().copied());
        if near.is_empty() {
            return String::new();
        }
        let near: Vec<String> = near.iter().map(|n| format!("`{pr}/{n}`")).collect();
        format!(
            " (not priced for {pr}; {pr}'s nearest priced ids, other models: {})",
            near.join(", ")
        )
    }

    /// [`PriceTable::lookup_hint`] for a bare id: the same model (a separator or case apart, a
    /// dated snapshot, a typo), else the nearest bare ids (other models).
    fn bare_hint(&self, id: &str) -> String {
        let keys = self.models.keys().map(String::as_str);
        if let Some(n) = same_model(id, keys.clone()) {
            return format!(" (did you mean `{n}`?)");
        }
        let near = nearest_ids(id, keys.filter(|k| !k.contains('/')));
        if near.is_empty() {
            return String::new();
        }
        let near: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
        format!(" (nearest priced ids, other models: {})", near.join(", "))
    }
}

/// The candidate that is the model `id` names, for a did-you-mean: one equal to it but for case
/// and separators (`claude-sonnet-4.5`, `claude-sonnet-4-5`); else the shortest that extends it
/// by a date or a word, never a version (`llama-3.3-70b-instruct` -> `…-instruct-turbo`,
/// `claude-sonnet-4` -> `claude-sonnet-4-20250514`, not `claude-sonnet-4-5`); else a near miss
/// ([`crate::suggest::nearest`]) with the same numbers (`gtp-4o` -> `gpt-4o`, never
/// `claude-sonnet-4` -> `claude-sonnet-5`: another model, another price).
fn same_model<'c>(id: &str, candidates: impl Iterator<Item = &'c str> + Clone) -> Option<&'c str> {
    let id = &printable(id);
    let word = normalise(id);
    if let Some(c) = candidates.clone().find(|c| normalise(c) == word) {
        return Some(c);
    }
    let extends = |c: &str| {
        let Some(rest) = normalise(c).strip_prefix(&word).map(str::to_string) else {
            return false;
        };
        let Some(rest) = rest.strip_prefix('-') else {
            return false;
        };
        let head: String = rest
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        // `-5` (a version) is another model; `-20250514` (a date), `-turbo`, `-v1:0` are not.
        !(head.chars().all(|ch| ch.is_ascii_digit()) && head.len() < 6)
    };
    if let Some(c) = candidates
        .clone()
        .filter(|c| extends(c))
        .min_by_key(|c| (c.len(), *c))
    {
        return Some(c);
    }
    let numbers = digits(id);
    crate::suggest::nearest(id, candidates.filter(|c| digits(c) == numbers))
}

/// `id` without terminal escape sequences (`ESC [ … letter`) and other control characters,
/// which no price table's id holds: a pasted `gpt\n-6-sol\x1b[2J` is still `gpt-6-sol`.
fn printable(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    let mut chars = id.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // parameters and intermediates, then one final byte in '@'..='~'
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// `id` lower-cased with `.`, `_` and spaces as `-`, for comparing ids.
fn normalise(id: &str) -> String {
    id.to_lowercase()
        .chars()
        .map(|c| if matches!(c, '.' | '_' | ' ') { '-' } else { c })
        .collect()
}

/// The numbers in `id`, in order (`gpt-4o-2024-08-06`: 4, 2024, 08, 06).
fn digits(id: &str) -> Vec<String> {
    id.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The words of an id, lower-cased (`meta-llama/Llama-3.3-70B` -> meta, llama, 3, 70b), each
/// once.
fn words(id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in normalise(id).split(['-', '/', ':', '@']) {
        if !w.is_empty() && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// The candidates nearest `id` that are other models (for a hint that names them as such), at
/// most [`NEAREST`]: those sharing at least half of its words, one of them a name of three or
/// more letters (`sonnet`, not `4`), the most shared words first, then the fewest edits.
fn nearest_ids<'c>(id: &str, candidates: impl Iterator<Item = &'c str>) -> Vec<&'c str> {
    let id = printable(id);
    let mine = words(&id);
    let mut scored: Vec<(usize, usize, &str)> = candidates
        .filter_map(|c| {
            let theirs = words(c);
            let shared: Vec<&String> = mine.iter().filter(|w| theirs.contains(w)).collect();
            let named = shared
                .iter()
                .any(|w| w.len() >= 3 && w.chars().all(|ch| ch.is_ascii_alphabetic()));
            (named && shared.len() * 2 >= mine.len()).then(|| {
                let edits = crate::suggest::levenshtein(&normalise(&id), &normalise(c));
                (shared.len(), edits, c)
            })
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2)));
    scored
        .into_iter()
        .take(NEAREST)
        .map(|(_, _, c)| c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::prices::tests::price;
    use std::collections::BTreeMap;

    #[test]
    fn escapes_and_control_characters_are_not_part_of_an_id() {
        assert_eq!(printable("openai/gpt\n-6-sol\u{1b}[2J"), "openai/gpt-6-sol");
        assert_eq!(printable("gpt-4o\u{1b}[1;31m\t"), "gpt-4o");
    }

    /// A table of real ids: Anthropic's dated and undated Sonnets, Bedrock's and Vertex's
    /// entries of them, Together's and GMI's Llamas, Groq's own.
    fn table() -> PriceTable {
        let mut models = BTreeMap::new();
        for (id, provider) in [
            ("claude-sonnet-4-5", "anthropic"),
            ("claude-sonnet-5", "anthropic"),
            ("claude-sonnet-4-20250514", "anthropic"),
            (
                "anthropic.claude-sonnet-4-5-20250929-v1:0",
                "bedrock_converse",
            ),
            ("bedrock/us-east-1/claude-x", "bedrock"),
            (
                "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
                "together_ai",
            ),
            (
                "together_ai/meta-llama/Llama-3.1-405B-Instruct",
                "together_ai",
            ),
            (
                "vertex_ai/claude-sonnet-4-6@default",
                "vertex_ai-anthropic_models",
            ),
            ("gmi/meta-llama/Llama-3.3-70B-Instruct", "gmi"),
            ("groq/llama-3.1-8b-instant", "groq"),
            ("groq/llama-3.3-70b-versatile", "groq"),
        ] {
            let mut p = price(id);
            p.provider = provider.into();
            models.insert(id.to_string(), p);
        }
        PriceTable {
            name: "t".into(),
            verified: None,
            source: None,
            models,
            fit: BTreeMap::new(),
        }
    }

    #[test]
    fn suggestions_name_the_same_model_of_the_same_provider_or_say_whose_they_are() {
        let t = table();
        // The same id but for separators: the provider's own entry.
        assert_eq!(
            t.lookup_hint("anthropic/claude-sonnet-4.5"),
            " (did you mean `anthropic/claude-sonnet-4-5`?)"
        );
        // A dated snapshot extends the id; a version number (`-5`, `-6@default`) does not.
        assert_eq!(
            t.lookup_hint("anthropic/claude-sonnet-4"),
            " (did you mean `anthropic/claude-sonnet-4-20250514`?)"
        );
        // (Vertex's `claude-sonnet-4-6@default` is another version: Anthropic's dated
        // snapshot is named as Anthropic's.)
        assert_eq!(
            t.lookup_hint("vertex_ai/claude-sonnet-4"),
            " (not priced for vertex_ai; `claude-sonnet-4-20250514` is anthropic's price, not vertex_ai's)"
        );
        // `-Turbo` is a word: the same model on the same provider; the 405B is another model.
        assert_eq!(
            t.lookup_hint("together_ai/meta-llama/llama-3.3-70b-instruct"),
            " (did you mean `together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo`?)"
        );
        // A typo with the same numbers is suggested.
        assert_eq!(
            t.lookup_hint("anthropic/claude-sonet-4-5"),
            " (did you mean `anthropic/claude-sonnet-4-5`?)"
        );
    }

    #[test]
    fn other_providers_rows_are_named_as_theirs_and_resellers_never() {
        let t = table();
        // One edit to a version number is another model, never "the same model": the
        // provider's nearest ids, said to be other models.
        assert_eq!(
            t.lookup_hint("anthropic/claude-sonnet-6"),
            " (not priced for anthropic; anthropic's nearest priced ids, other models: `anthropic/claude-sonnet-5`, `anthropic/claude-sonnet-4-5`, `anthropic/claude-sonnet-4-20250514`)"
        );
        // Only another provider has it: said so, never offered as this provider's.
        assert_eq!(
            t.lookup_hint("bedrock/claude-sonnet-4-5"),
            " (not priced for bedrock; `claude-sonnet-4-5` is anthropic's price, not bedrock's)"
        );
        // A reseller's entry of the same model (gmi's) is never offered for another provider:
        // the provider's own nearest ids (sharing most words; `llama-3.1-8b-instant` does
        // not), said to be other models.
        assert_eq!(
            t.lookup_hint("groq/meta-llama/Llama-3.3-70B-Instruct"),
            " (not priced for groq; groq's nearest priced ids, other models: `groq/llama-3.3-70b-versatile`)"
        );
        // A prefix that is no provider (OpenRouter's author slug): no reseller's entry either.
        assert_eq!(t.lookup_hint("meta-llama/llama-3.3-70b-instruct"), "");
        // A bare id: its dated snapshot, else the nearest bare ids.
        assert_eq!(
            t.lookup_hint("claude-sonnet-4"),
            " (did you mean `claude-sonnet-4-20250514`?)"
        );
        assert_eq!(
            t.lookup_hint("claude-sonnet-6"),
            " (nearest priced ids, other models: `claude-sonnet-5`, `claude-sonnet-4-5`, `claude-sonnet-4-20250514`)"
        );
    }
}
