//! End to end: every worked example of MODEL.md §4, §5 and §6, through the binary on the
//! shipped `scenarios/`.

use crate::common;

use common::{close, json, num, ok, row};

/// MODEL.md §6, the three-down post: 513.58 USD / 1.32x price-matched, 2,284.01 / 5.88x best
/// available, 0 and 11,160 failed requests without a fallback.
#[test]
fn sept3_incident() {
    let r = json(&["compare", "--scenario", "scenarios/sept3.toml"]);
    assert_eq!(r["scenario"], "Three providers down at once, 2026-09-03");
    assert_eq!(r["pricing"], "2026-07");
    let pm = row(&r, "incident", "price-matched", "sequential");
    close(num(pm, "total_usd"), 513.5832, 1e-9);
    close(num(pm, "normal_usd"), 388.368, 1e-9);
    close(num(pm, "window_usd"), 388.368, 1e-9);
    close(num(pm, "cold_start_usd"), 54.2376, 1e-9);
    close(num(pm, "failback_usd"), 70.9776, 1e-9);
    close(num(pm, "multiplier"), 513.5832 / 388.368, 1e-9);
    // total − normal = 513.5832 − 388.368: the cold starts and fail-back writes
    close(num(pm, "excess_usd"), 125.2152, 1e-9);
    close(num(pm, "failed_requests"), 0.0, 0.0);
    let ba = row(&r, "incident", "best-available", "sequential");
    close(num(ba, "total_usd"), 2284.0056, 1e-9);
    close(num(ba, "window_usd"), 1941.84, 1e-9);
    close(num(ba, "cold_start_usd"), 271.188, 1e-9);
    close(num(ba, "multiplier"), 2284.0056 / 388.368, 1e-9);
    close(num(ba, "excess_usd"), 2284.0056 - 388.368, 1e-9); // 1,895.6376
    let nf = row(&r, "incident", "price-matched", "no-fallback");
    close(num(nf, "total_usd"), 0.0, 0.0);
    close(num(nf, "failed_requests"), 11160.0, 0.0);
    assert_eq!(r["incident_window"]["requests"], 11160);
    assert_eq!(r["incident_window"]["sessions"], 558);

    let table = ok(&["compare", "--scenario", "scenarios/sept3.toml"]);
    for want in [
        "513.58", "1.32x", "2,284.01", "5.88x", "54.24", "271.19", "11,160",
    ] {
        assert!(table.contains(want), "table lacks {want}:\n{table}");
    }
}

/// MODEL.md §4, the failover-chains post at a 0.5% gray primary failure rate: sequential
/// 25.0075 (+0.03%), hedged 28.9875 / 33.9625, wasted gray attempts $0.0875 per 1,000.
#[test]
fn failover_chains_steady_state() {
    let r = json(&["compare", "--scenario", "scenarios/failover-chains.toml"]);
    let seq = row(&r, "steady", "sol-sonnet-haiku", "sequential");
    close(num(seq, "cost_per_1k_usd"), 25.0075, 1e-9);
    close(num(seq, "baseline_per_1k_usd"), 25.0, 1e-12);
    close(num(seq, "vs_baseline"), 0.0003, 1e-12);
    close(num(seq, "wasted_per_1k_usd"), 0.0875, 1e-12);
    close(num(seq, "failed_per_1k"), 0.0, 0.0);
    let nf = row(&r, "steady", "sol-sonnet-haiku", "no-fallback");
    close(num(nf, "failed_per_1k"), 5.0, 1e-9);
    let tf = row(&r, "steady", "sol-sonnet-haiku", "hedged-take-first");
    close(num(tf, "cost_per_1k_usd"), 28.9875, 1e-9);
    let nc = row(&r, "steady", "sol-sonnet-haiku", "hedged-no-cancel");
    close(num(nc, "cost_per_1k_usd"), 33.9625, 1e-9);
    // The alternative tertiary does not change the price while the secondary answers.
    let alt = row(&r, "steady", "sol-sonnet-deepseek", "sequential");
    close(num(alt, "cost_per_1k_usd"), 25.0075, 1e-9);

    let table = ok(&["compare", "--scenario", "scenarios/failover-chains.toml"]);
    assert!(
        table.contains("25.01") && table.contains("+0.03%"),
        "{table}"
    );
}

/// MODEL.md §4 with failures set to zero: hedged take-first 29.00 (+16%), no-cancel 34.00
/// (+36%), sequential exactly the baseline.
#[test]
fn failover_chains_without_failures() {
    let args = [
        "compare",
        "--scenario",
        "scenarios/failover-chains.toml",
        "--set",
        "steady.failure_rate=0",
    ];
    let r = json(&args);
    let tf = row(&r, "steady", "sol-sonnet-haiku", "hedged-take-first");
    close(num(tf, "cost_per_1k_usd"), 29.0, 1e-9);
    close(num(tf, "vs_baseline"), 0.16, 1e-12);
    let nc = row(&r, "steady", "sol-sonnet-haiku", "hedged-no-cancel");
    close(num(nc, "cost_per_1k_usd"), 34.0, 1e-9);
    close(num(nc, "vs_baseline"), 0.36, 1e-12);
    let seq = row(&r, "steady", "sol-sonnet-haiku", "sequential");
    close(num(seq, "cost_per_1k_usd"), 25.0, 1e-12);
    let table = ok(&args);
    for want in ["29.00", "+16.00%", "34.00", "+36.00%"] {
        assert!(table.contains(want), "table lacks {want}:\n{table}");
    }
}

/// MODEL.md §4: a gray outage costs $26.50 per 1,000 requests, a fast one $9.00.
#[test]
fn failover_chains_outage_rows() {
    let r = json(&["compare", "--scenario", "scenarios/failover-chains.toml"]);
    let gray = row(&r, "incident", "sol-sonnet-haiku", "sequential");
    assert_eq!(r["incident_window"]["requests"], 1000);
    close(num(gray, "total_usd"), 26.50, 1e-9);
    close(num(gray, "wasted_usd"), 17.50, 1e-9);
    let r = json(&[
        "compare",
        "--scenario",
        "scenarios/failover-chains.toml",
        "--set",
        "incident.failure=fast",
    ]);
    let fast = row(&r, "incident", "sol-sonnet-haiku", "sequential");
    close(num(fast, "total_usd"), 9.00, 1e-9);
}

/// The post's +$1.33 for a 4 s timeout tripping 5% of healthy requests double counts; fallcost
/// gives +$0.075 (+0.30%) for partial billing and +$0.45 (+1.80%) for full billing.
#[test]
fn failover_chains_timeout_trips() {
    let r = json(&["compare", "--scenario", "scenarios/failover-chains.toml"]);
    let partial = row(&r, "steady", "timeout-4s-partial", "sequential");
    close(num(partial, "cost_per_1k_usd"), 25.075, 1e-9);
    close(num(partial, "vs_baseline"), 0.003, 1e-12);
    let full = row(&r, "steady", "timeout-4s-full", "sequential");
    close(num(full, "cost_per_1k_usd"), 25.45, 1e-9);
    close(num(full, "vs_baseline"), 0.018, 1e-12);
}

/// MODEL.md §5: 32.50 warm primary, 39.00 cold Sonnet, 46.50 writing (not the post's 76.50),
/// 12.00 warm Sonnet; the write has paid for itself by the second failover request.
#[test]
fn failover_cache_table() {
    let r = json(&["compare", "--scenario", "scenarios/failover-cache.toml"]);
    let cache = &r["failover_cache"][0];
    assert_eq!(cache["chain"], "sol-sonnet");
    let rows = cache["rows"].as_array().unwrap();
    let got: Vec<(String, f64)> = rows
        .iter()
        .map(|x| {
            (
                x["request"].as_str().unwrap().to_string(),
                num(x, "cost_per_1k_usd"),
            )
        })
        .collect();
    let want = [
        ("primary-warm", 32.50),
        ("failover-cold", 39.00),
        ("failover-write", 46.50),
        ("failover-warm", 12.00),
    ];
    assert_eq!(got.len(), 4);
    for ((gk, gv), (wk, wv)) in got.iter().zip(want) {
        assert_eq!(gk, wk);
        close(*gv, wv, 1e-9);
    }
    assert_eq!(cache["break_even_requests"], 2);
    // Warming only after 3 failovers: no write for a blip of up to 3 failover requests, and
    // the write has paid for itself once a session makes 5 (MODEL.md §5, issue 5).
    let after = &r["failover_cache"][1];
    assert_eq!(after["chain"], "sol-sonnet-warm-after-3");
    assert_eq!(after["policy_break_even_requests"], 5);
    // In the 45-minute outage (sessions of 10), each session pays 3 cold requests and a write
    // on Sonnet instead of one write: 540 × (3 × $0.0270 + $0.0345) = $62.37 of cold starts.
    let inc = row(&r, "incident", "sol-sonnet-warm-after-3", "sequential");
    close(
        num(inc, "cold_start_usd"),
        540.0 * (3.0 * 0.027 + 0.0345),
        1e-9,
    );
    let table = ok(&["compare", "--scenario", "scenarios/failover-cache.toml"]);
    for want in [
        "32.50",
        "39.00",
        "46.50",
        "12.00",
        "1.2x",
        "0.4x",
        "2 failover requests",
    ] {
        assert!(table.contains(want), "table lacks {want}:\n{table}");
    }
}

/// The tier-matched chains load, and the complex tier prices GPT-6 Astra at 5x Sonnet's window.
#[test]
fn tiers_scenario() {
    let r = json(&["compare", "--scenario", "scenarios/tiers.toml"]);
    for chain in ["simple", "medium", "complex"] {
        let seq = row(&r, "incident", chain, "sequential");
        assert!(num(seq, "total_usd") > 0.0);
    }
    // The medium tier is the three-down post's price-matched chain.
    close(
        num(row(&r, "incident", "medium", "sequential"), "total_usd"),
        513.5832,
        1e-9,
    );
}
