use super::*;
use crate::model::{Caching, ServiceTier, TierPrice};

fn price() -> ModelPrice {
    ModelPrice {
        id: "x/m".into(),
        provider: "x".into(),
        input: 2.0,
        output: 10.0,
        cached_input: Some(0.2),
        cache_write: Some(2.5),
        caching: Caching::Explicit,
        cache_ttl_s: 300.0,
        cache_write_1h: Some(4.0),
        min_cache_prefix: None,
        miss_writes: false,
        tiers: vec![
            TierPrice {
                rate: Rate::Input,
                above_tokens: 200_000,
                service: ServiceTier::Standard,
                price: 4.0,
            },
            TierPrice {
                rate: Rate::Output,
                above_tokens: 200_000,
                service: ServiceTier::Standard,
                price: 15.0,
            },
            TierPrice {
                rate: Rate::Input,
                above_tokens: 0,
                service: ServiceTier::Batch,
                price: 1.0,
            },
            TierPrice {
                rate: Rate::Output,
                above_tokens: 0,
                service: ServiceTier::Batch,
                price: 5.0,
            },
        ],
    }
}

fn line(tier: ServiceTier, long: bool) -> UsageLine {
    UsageLine {
        source: String::new(),
        day: "2026-11-02".into(),
        model: "x/m".into(),
        service_tier: tier,
        long_context: long,
        requests: None,
        uncached_input: 1e6,
        cache_read: 1e6,
        cache_write_5m: 1e6,
        cache_write_1h: 1e6,
        output: 1e6,
        cache_split: true,
    }
}

/// 1M of each: standard 2 + 0.2 + 2.5 + 4 + 10 = 18.7; long context: input 4 and output 15
/// (reads and writes have no long tier: their base) = 4 + 0.2 + 2.5 + 4 + 15 = 25.7; batch:
/// input 1, output 5, the rest standard (as LiteLLM falls back) = 1 + 0.2 + 2.5 + 4 + 5 = 12.7.
#[test]
fn a_line_is_priced_in_its_tier_and_context_window() {
    let p = price();
    assert!((price_line(&p, &line(ServiceTier::Standard, false)).unwrap() - 18.7).abs() < 1e-12);
    assert!((price_line(&p, &line(ServiceTier::Standard, true)).unwrap() - 25.7).abs() < 1e-12);
    assert!((price_line(&p, &line(ServiceTier::Batch, false)).unwrap() - 12.7).abs() < 1e-12);
    let e = price_line(&p, &line(ServiceTier::Priority, false)).unwrap_err();
    assert_eq!(e.to_string(), "the table has no priority price for x/m");
    let mut no_1h = p.clone();
    no_1h.cache_write_1h = None;
    assert!(
        price_line(&no_1h, &line(ServiceTier::Standard, false))
            .unwrap_err()
            .to_string()
            .contains("1-hour")
    );
}

/// A change of input to $3 scales the input tiers by 3/2: long-context input $6, batch $1.50.
#[test]
fn a_price_change_keeps_its_tiers_ratio() {
    let c = crate::input::settings::PriceChange {
        model: "x/m".into(),
        from: "2026-11-02".into(),
        input: Some(3.0),
        output: None,
        cached_input: None,
        cache_write: None,
        cache_write_1h: None,
        source: String::new(),
    };
    let p = changed(&price(), &c);
    assert_eq!(p.input, 3.0);
    assert_eq!(
        p.rate_for(Rate::Input, LONG_CONTEXT_PROMPT, ServiceTier::Standard),
        Some(6.0)
    );
    assert_eq!(p.rate_for(Rate::Input, 0.0, ServiceTier::Batch), Some(1.5));
    assert_eq!(p.output, 10.0);
}

#[test]
fn dated_snapshots_fall_back_to_their_entry() {
    assert_eq!(
        strip_date("anthropic/claude-sonnet-5-20260301"),
        Some("anthropic/claude-sonnet-5")
    );
    assert_eq!(
        strip_date("openai/gpt-6-sol-2026-03-01"),
        Some("openai/gpt-6-sol")
    );
    assert_eq!(strip_date("openai/gpt-6-sol"), None);
    let table = crate::input::pricing::bundled("2026-07").unwrap();
    assert_eq!(
        lookup(&table, "anthropic/claude-sonnet-5-20260301")
            .unwrap()
            .id,
        "anthropic/claude-sonnet-5"
    );
}
