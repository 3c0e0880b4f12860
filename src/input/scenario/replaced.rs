//! A chain whose models a `--set chain.NAME.models=[..]` replaced (`tune --candidate`, a sweep
//! of chains): every per-link setting of the file belongs to its model (MODEL.md §10). A
//! positional list (`failure_rates`, `timeout_trip_rates`, `service_tiers`) gives one value per
//! model of the chain as written, and each link of the chain now takes its model's; a map keyed
//! by model (`link_timeouts_s`, `max_output_tokens`) applies to the links of its model, and its
//! entries for models the chain no longer has apply to nothing. What a `--set` states itself is
//! the user's, for the chain as it is now.

/// A chain whose models a `--set` replaced: its models as the file writes them and as they are
/// now, each with the id it resolves to, and the keys `--set` gave.
pub(super) struct Replaced<'a> {
    /// The chain's name.
    pub(super) chain: &'a str,
    /// The models as the file writes them, each with the id it resolves to.
    pub(super) written: Vec<(&'a str, String)>,
    /// The chain's models now, primary first, each with the id it resolves to.
    pub(super) now: Vec<(&'a str, String)>,
    /// The keys `--set` gave, split at their dots: a setting a `--set` states is the user's,
    /// for the chain as it is now.
    pub(super) set_keys: &'a [Vec<String>],
}

impl Replaced<'_> {
    /// Whether a `--set` gave exactly the key `key` (split at its dots).
    pub(super) fn set_exactly(&self, key: &[&str]) -> bool {
        self.set_keys
            .iter()
            .any(|k| k.len() == key.len() && k.iter().zip(key).all(|(a, b)| a == b))
    }

    /// Whether a `--set` gave the chain's own `field` (`chain.NAME.FIELD`) whole.
    pub(super) fn set_in_chain(&self, field: &str) -> bool {
        self.set_exactly(&["chain", self.chain, field])
    }

    /// The models of the chain as written, for messages: `` `A`, `B`, `C` ``.
    pub(super) fn written_list(&self) -> String {
        self.written
            .iter()
            .map(|(m, _)| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The positions on the chain as written of link `i`'s model now (by resolved id, so
    /// `gpt-4o` and `openai/gpt-4o` of a LiteLLM table are one model); none for a model not
    /// on it.
    pub(super) fn written_positions(&self, i: usize) -> Vec<usize> {
        let id = &self.now[i].1;
        self.written
            .iter()
            .enumerate()
            .filter(|(_, (_, w))| w == id)
            .map(|(p, _)| p)
            .collect()
    }

    /// The id that `model`, written on the chain as written, resolves to (`None`: the chain
    /// as written does not list it).
    pub(super) fn written_id(&self, model: &str) -> Option<&str> {
        self.written
            .iter()
            .find(|(m, _)| *m == model)
            .map(|(_, id)| id.as_str())
    }
}
