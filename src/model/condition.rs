//! Fallbacks that take only some requests: LiteLLM's `context_window_fallbacks` take a request
//! only when its primary raises `ContextWindowExceededError` (the request overflows the
//! primary's context window), `content_policy_fallbacks` only when it raises
//! `ContentPolicyViolationError` (the primary refuses the content). Its router
//! (`async_function_with_fallbacks_common_utils`) sends every other failure to `fallbacks`, and
//! does not retry such an error on the primary (`should_retry_this_error` raises it at once):
//! the share of requests such a link takes is the share that overflow or are refused, a
//! property of the traffic, not of an outage.

/// Which requests a conditional fallback takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Condition {
    /// `context_window_fallbacks`: the requests that overflow the primary's context window.
    ContextWindow,
    /// `content_policy_fallbacks`: the requests the primary refuses under its content policy.
    ContentPolicy,
}

impl Condition {
    /// The condition of a LiteLLM fallback list, by its key (`context_window_fallbacks`, or a
    /// field ending in it, `router_settings.context_window_fallbacks`); `None` for `fallbacks`.
    pub fn of_field(field: &str) -> Option<Condition> {
        if field.ends_with("context_window_fallbacks") {
            Some(Condition::ContextWindow)
        } else if field.ends_with("content_policy_fallbacks") {
            Some(Condition::ContentPolicy)
        } else {
            None
        }
    }

    /// The fallback list's key: `context_window_fallbacks` or `content_policy_fallbacks`.
    pub fn key(self) -> &'static str {
        match self {
            Condition::ContextWindow => "context_window_fallbacks",
            Condition::ContentPolicy => "content_policy_fallbacks",
        }
    }

    /// fallcost.toml's `[usage]` key that states the share of requests it takes.
    pub fn share_key(self) -> &'static str {
        match self {
            Condition::ContextWindow => "context_window_share",
            Condition::ContentPolicy => "content_policy_share",
        }
    }

    /// The requests it takes, for messages.
    pub fn takes(self) -> &'static str {
        match self {
            Condition::ContextWindow => {
                "the requests that overflow the primary's context window (LiteLLM's ContextWindowExceededError)"
            }
            Condition::ContentPolicy => {
                "the requests the primary refuses under its content policy (LiteLLM's ContentPolicyViolationError)"
            }
        }
    }
}

/// A share of requests a conditional fallback takes, as stated, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct StatedShare {
    /// The share, 0 to 1.
    pub share: f64,
    /// Where it is stated: `fallcost.toml [usage] context_window_share`.
    pub from: String,
}

/// The shares of requests the conditional fallbacks take, where a request profile states them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConditionalShares {
    /// The share of requests that overflow the primary's context window.
    pub context_window: Option<StatedShare>,
    /// The share of requests the primary refuses under its content policy.
    pub content_policy: Option<StatedShare>,
}

impl ConditionalShares {
    /// The share stated for `condition`, if any.
    pub fn of(&self, condition: Condition) -> Option<&StatedShare> {
        match condition {
            Condition::ContextWindow => self.context_window.as_ref(),
            Condition::ContentPolicy => self.content_policy.as_ref(),
        }
    }
}

/// What a chain whose fallback takes `share` of its requests costs over its primary alone, when
/// the fallback costs `ratio` times the primary per request: `(1 - share) + share × ratio`
/// (a refused or overflowing request is billed nothing on the primary: it fails before the
/// model runs, and is not retried there).
pub fn chain_ratio(share: f64, ratio: f64) -> f64 {
    (1.0 - share) + share * ratio
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_by_field_and_the_chains_cost() {
        assert_eq!(
            Condition::of_field("router_settings.context_window_fallbacks"),
            Some(Condition::ContextWindow)
        );
        assert_eq!(
            Condition::of_field("litellm_settings.content_policy_fallbacks"),
            Some(Condition::ContentPolicy)
        );
        assert_eq!(Condition::of_field("router_settings.fallbacks"), None);
        // A 37.5x link taking 2% of requests: 0.98 + 0.75 = 1.73x the primary alone.
        assert!((chain_ratio(0.02, 37.5) - 1.73).abs() < 1e-12);
        assert_eq!(chain_ratio(0.0, 37.5), 1.0);
        assert_eq!(chain_ratio(1.0, 37.5), 37.5);
    }
}
