//! Issue 33's regression cases, end to end through the binary.
//!
//! Item 1, the inert-breaker rule per breaker scope (docs/MODEL.md §8, "An inert breaker"):
//! `tests/fixtures/scenarios/siblings-breaker.toml` has Sonnet 5 down on its own (fast), Haiku
//! 4.5 up on the same provider and one Anthropic breaker (1 failure, 60 s). The breaker opened
//! by Sonnet refuses Haiku, so the simulation with it fails every request and bills $0;
//! before, the rule called it inert and `compare` printed the breaker-free bill ($96.98 on
//! this request) beside 0 failed, and `tune` priced the breaker at 100% answered.

use crate::common::{json, num, row};

const SIBLINGS: &str = "tests/fixtures/scenarios/siblings-breaker.toml";

/// `compare` takes the breaker's rows from the simulation with it: every one of the 3,600
/// requests fails and nothing is billed; the same chain without the breaker (`--set
/// policy.breaker=none`) bills Haiku's 3,600 answers, $96.98, and fails none.
#[test]
fn a_dead_model_next_to_an_up_sibling_is_not_an_inert_breaker() {
    let with = json(&["compare", "-s", SIBLINGS]);
    let r = row(&with, "incident", "siblings", "sequential");
    assert_eq!(r["method"], "simulated", "{r}");
    assert_eq!(num(r, "failed_requests"), 3600.0, "{r}");
    assert_eq!(num(r, "total_usd"), 0.0, "{r}");
    for pattern in ["hedged-take-first", "hedged-no-cancel"] {
        let r = row(&with, "incident", "siblings", pattern);
        assert_eq!(r["method"], "simulated", "{pattern}: {r}");
        // a hedge's Haiku leg, sent with Sonnet's, answers before the breaker opens on
        // about 1.5 requests a window (3,598.5 failed, $0.15)
        assert!(num(r, "failed_requests") >= 3598.0, "{pattern}: {r}");
        assert!(num(r, "total_usd") < 0.2, "{pattern}: {r}");
    }
    let without = json(&["compare", "-s", SIBLINGS, "--set", "policy.breaker=none"]);
    let r = row(&without, "incident", "siblings", "sequential");
    assert_eq!(r["method"], "analytic", "{r}");
    assert_eq!(num(r, "failed_requests"), 0.0);
    assert!((num(r, "total_usd") - 96.984).abs() < 0.001, "{r}");
}

/// `tune` over breaker none or 1 failure / 60 s on the same chain: the breaker's candidates
/// (the shipped settings among them) are simulated, not priced as inert, answer none of the
/// incident's requests, and so miss 99.99% answered; the recommendation has no breaker.
#[test]
fn tune_does_not_recommend_the_breaker_that_refuses_the_sibling() {
    let v = json(&[
        "tune",
        "-s",
        SIBLINGS,
        "--vary",
        "policy.timeout_s=30",
        "--vary",
        "policy.retries=0",
        "--vary",
        "policy.breaker.threshold=none,1",
        "--vary",
        "policy.breaker.cooldown_s=60",
        "--vary",
        "policy.hedge_delay_s=none",
        "--availability",
        "99.99%",
        "--confirm",
        "0",
    ]);
    let c = &v["chains"][0];
    let rec = &c["recommended"];
    let set: Vec<&str> = rec["set"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(set.contains(&"policy.breaker=none"), "{rec}");
    assert_eq!(rec["incident_availability"], 1.0, "{rec}");
    // the shipped settings are the breaker's: simulated, failing the window, infeasible
    let shipped = &c["shipped"];
    let inc = &shipped["raw"]["incident"];
    assert_ne!(inc["method"], "analytic", "{shipped}");
    assert!(num(inc, "failed_requests") >= 3599.0, "{shipped}");
    assert!(num(shipped, "incident_availability") < 0.001, "{shipped}");
    assert_eq!(shipped["feasible"], false, "{shipped}");
    assert_eq!(c["inert_breakers"], 0, "{c}");
}
