//! A rate-limited fallback in the incident (issue 35, MODEL.md §11): `[capacity."MODEL"]`'s
//! limiter refuses what is over its quota (429, billed 0) in the incident simulator, and the
//! requests it refuses go on down the chain or fail.
//!
//! The refused count is checked against its exact expectation under the simulator's own law:
//! the window's N requests arrive uniformly over D (a Poisson process conditioned on N), so a
//! clock minute of M = D / 60 holds n ~ Binomial(N, 1/M) of them and b ~ Poisson(background)
//! others, and a fixed window refuses (n + b − c)⁺ of which the chain's share is n / (n + b)
//! (the arrivals are exchangeable within the minute). With a fallback that never fails on its
//! own and no retries, the chain's failed requests are exactly its refused ones.

use crate::common::{fallcost, num, row};
use fallcost::model::fit::refused_share;
use serde_json::{Value, json};

/// ln of the Binomial(n, p) pmf at k.
fn ln_binomial(n: u64, p: f64, k: u64) -> f64 {
    use fallcost::model::fit::ln_factorial;
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
        + k as f64 * p.ln()
        + (n - k) as f64 * (1.0 - p).ln()
}

/// ln of the Poisson(mu) pmf at k (mu > 0).
fn ln_poisson(mu: f64, k: u64) -> f64 {
    -mu + k as f64 * mu.ln() - fallcost::model::fit::ln_factorial(k)
}

/// The chain's expected refused requests over `minutes` clock minutes holding `n_total`
/// uniform arrivals, against `background` a minute and a quota of `c` a minute (module doc).
fn expected_refused(n_total: u64, minutes: u64, background: f64, c: u64) -> f64 {
    let p = 1.0 / minutes as f64;
    let mean_n = n_total as f64 * p;
    let sd_n = (mean_n * (1.0 - p)).sqrt();
    let (n_lo, n_hi) = (
        (mean_n - 12.0 * sd_n - 5.0).max(0.0) as u64,
        ((mean_n + 12.0 * sd_n + 5.0) as u64).min(n_total),
    );
    let (b_lo, b_hi) = if background > 0.0 {
        let sd = background.sqrt();
        (
            (background - 12.0 * sd - 5.0).max(0.0) as u64,
            (background + 12.0 * sd + 5.0) as u64,
        )
    } else {
        (0, 0)
    };
    let mut per_minute = 0.0;
    for n in n_lo..=n_hi {
        let pn = ln_binomial(n_total, p, n).exp();
        for b in b_lo..=b_hi {
            let pb = if background > 0.0 {
                ln_poisson(background, b).exp()
            } else {
                1.0
            };
            let x = n + b;
            if x > c {
                per_minute += pn * pb * (x - c) as f64 * n as f64 / x as f64;
            }
        }
    }
    per_minute * minutes as f64
}

/// An incident row's simulated failed requests (`compare --mc`) and their standard error
/// (from the 95% interval).
fn mc_failed(row: &Value) -> (f64, f64) {
    let mc = &row["mc"];
    let ci = mc["failed_requests_ci95"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    (
        mc["failed_requests"].as_f64().unwrap(),
        (hi - lo) / (2.0 * 1.96),
    )
}

/// A scenario of one chain, its primary's provider down fast throughout, its fallback
/// limited to `rpm` with `background` requests a minute of its own.
fn scenario(minutes: u64, rps: f64, rpm: u64, background: f64) -> String {
    format!(
        "name = \"capacity\"\npricing = \"2026-07\"\n[request]\ninput_tokens = 1000\noutput_tokens = 200\n[steady]\nfast_fail_s = 0\n[[chain]]\nname = \"c\"\nmodels = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]\n[incident]\nduration = \"{minutes}m\"\nrequests_per_second = {rps}\nsession_length = 5\nfailure = \"fast\"\n[capacity.\"openai/gpt-6-sol\"]\nrpm = {rpm}\nbackground_rpm = {background}\n"
    )
}

/// `compare --mc 1000 --mc-runs 200 --seed SEED` JSON of scenario `toml`, written to `dir`.
fn run(dir: &std::path::Path, toml: &str, seed: u64) -> Value {
    let path = dir.join(format!("s{seed}.toml"));
    std::fs::write(&path, toml).unwrap();
    let seed = seed.to_string();
    crate::common::json(&[
        "compare",
        "--scenario",
        path.to_str().unwrap(),
        "--mc",
        "1000",
        "--mc-runs",
        "200",
        "--seed",
        &seed,
    ])
}

/// A scratch folder of this process for the test `tag`, created.
fn scratch(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fallcost-capacity-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `text` written to `name` in `dir`; its path.
fn write_in(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// `scenarios/sept3.toml` with GPT-6 Sol at 500 rpm and a herd of 480 a minute (the worked
/// example), then `more`.
fn sept3_with_the_herd(more: &str) -> String {
    std::fs::read_to_string("scenarios/sept3.toml").unwrap()
        + more
        + "\n[capacity.\"openai/gpt-6-sol\"]\nrpm = 500\nbackground_rpm = 480\n"
}

/// `text` with every run of whitespace one space (a table's notes wrap at the width).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 24 random scenarios (traffic 0.2–5 req/s, quota from half to 1.2 times the minute's mean
/// load, background up to twice the chain's traffic): the simulated failed requests within
/// 4.5 standard errors of their exact expectation; the worst z printed. And the rows are
/// labelled simulated, with the reason.
#[test]
fn the_simulated_limiter_refuses_what_its_law_says_on_random_scenarios() {
    let dir = scratch("random");
    let mut state = 0x35_u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut worst = (0.0f64, String::new());
    for case in 0..24u64 {
        let minutes = [10, 20, 30][(next() * 3.0) as usize % 3];
        let rps = (0.2 + 4.8 * next() * next() * 10.0).round() / 10.0;
        let rps = rps.max(0.2);
        let background = (2.0 * 60.0 * rps * next()).round();
        let load = 60.0 * rps + background;
        let rpm = ((0.5 + 0.7 * next()) * load).round().max(1.0) as u64;
        let doc = run(&dir, &scenario(minutes, rps, rpm, background), case + 1);
        let n = (rps * 60.0 * minutes as f64).round() as u64;
        let exact = expected_refused(n, minutes, background, rpm);
        let seq = row(&doc, "incident", "c", "sequential");
        let (mc, se) = mc_failed(seq);
        // each refusal fails its request (no retry, no link after): the counts are one
        assert_eq!(
            seq["mc"]["rate_limited_attempts"],
            seq["mc"]["failed_requests"]
        );
        assert_eq!(
            num(&seq["rate_limits"][1], "refused_attempts"),
            num(seq, "failed_requests")
        );
        let z = (mc - exact) / se.max(1e-9);
        let what = format!(
            "{minutes} min at {rps} req/s, background {background}/min, rpm {rpm}: simulated {mc:.2} ± {se:.2}, exact {exact:.2}"
        );
        if z.abs() > worst.0.abs() {
            worst = (z, what.clone());
        }
        assert!(z.abs() < 4.5, "{what}");
    }
    eprintln!("capacity: 24 cases, worst z {:.2} ({})", worst.0, worst.1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The worked example (README, MODEL.md §11): Sept 3 (Anthropic down 3h6m, 1 req/s) with
/// GPT-6 Sol at 500 rpm and a herd of 480 requests a minute of other teams failing over onto
/// it. The fixed window sees m = 60 + 480 = 540 a minute against c = 500 and refuses
/// 7.4772% of them (the formula; by hand, E[(N − 500)⁺] / 540 with N ~ Poisson(540)), so of
/// the 11,160 requests about 834.5 fail on the price-matched chain (no link after it).
#[test]
fn sept3_with_the_fallback_at_500_rpm_and_a_herd() {
    let share = refused_share(540.0, 500);
    assert!((share - 0.074_772_279).abs() < 1e-8, "{share}");
    let dir = scratch("s3");
    let text = sept3_with_the_herd("\n[steady]\nfast_fail_s = 0\n");
    let doc = run(&dir, &text, 3);
    let seq = row(&doc, "incident", "price-matched", "sequential");
    assert_eq!(seq["method"], "simulated", "{seq:#}");
    let exact = expected_refused(11_160, 186, 480.0, 500);
    // the conditioned law and the formula's Poisson one differ by under 0.1% here
    assert!(
        (exact / (share * 11_160.0) - 1.0).abs() < 1e-3,
        "{exact} vs {}",
        share * 11_160.0
    );
    let (got, se) = mc_failed(seq);
    assert!((got - exact).abs() < 4.5 * se, "{got} ± {se} vs {exact}");
    // every refused attempt is a failed request here (no retry, no link after GPT-6 Sol): the
    // row's refusals, its Monte Carlo's and its per-link list say the same count
    assert_eq!(
        num(seq, "rate_limited_attempts"),
        num(seq, "failed_requests")
    );
    assert_eq!(
        seq["mc"]["rate_limited_attempts"],
        seq["mc"]["failed_requests"]
    );
    let limits = seq["rate_limits"].as_array().expect("per-link refusals");
    assert_eq!(limits.len(), 2, "{limits:?}");
    assert_eq!(limits[0]["model"], "anthropic/claude-sonnet-5");
    assert_eq!(num(&limits[0], "refused_attempts"), 0.0);
    assert_eq!(limits[0].get("rpm"), None);
    assert_eq!(limits[1]["model"], "openai/gpt-6-sol");
    assert_eq!(
        (num(&limits[1], "rpm"), num(&limits[1], "background_rpm")),
        (500.0, 480.0)
    );
    assert_eq!(
        num(&limits[1], "refused_attempts"),
        num(seq, "rate_limited_attempts")
    );
    // the best-available chain has no limit: nothing refused, nothing failed, no list
    let other = row(&doc, "incident", "best-available", "sequential");
    assert_eq!(num(other, "failed_requests"), 0.0);
    assert_eq!(num(other, "rate_limited_attempts"), 0.0);
    assert!(other["rate_limits"].is_null(), "{other:#}");
    crate::schemas::assert_valid(
        &crate::schemas::validator("compare.schema.json"),
        &doc,
        "sept3 with a rate-limited fallback",
    );
    // The README's figures: the same scenario without `fast_fail_s = 0`, its fixed-seed rows.
    let readme = text.replace("\n[steady]\nfast_fail_s = 0\n", "\n");
    let path = dir.join("sept3-capacity.toml");
    std::fs::write(&path, &readme).unwrap();
    let doc = crate::common::json(&["compare", "--scenario", path.to_str().unwrap()]);
    let seq = row(&doc, "incident", "price-matched", "sequential");
    let text = crate::common::ok(&["compare", "--scenario", path.to_str().unwrap()]);
    assert!(
        text.contains("capacity: openai/gpt-6-sol's quota ([capacity]) limits the incident only"),
        "{text}"
    );
    let flat = one_line(&text);
    assert!(
        flat.contains("rate limits (simulated), sequential: openai/gpt-6-sol refused 836.24 attempts (500 rpm, 480 rpm of other traffic) [formula E[(N − c)⁺]/E[N]: 7.48% refused, 834.46 attempts]; a refused attempt is a 429, fast and billed 0"),
        "{text}"
    );
    // the formula's count is the refused share of the chain's 11,160 requests
    assert_eq!(format!("{:.2}", share * 11_160.0), "834.46");
    // with a breaker on the chain the link's arrivals are no longer every request (the open
    // breaker refuses some first): the simulated count alone, no formula
    let with_breaker = readme.replace(
        "models = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]",
        "models = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]\npolicy = { breaker = { threshold = 5, cooldown_s = 60 } }",
    );
    assert_ne!(with_breaker, readme);
    let path_b = dir.join("sept3-capacity-breaker.toml");
    std::fs::write(&path_b, &with_breaker).unwrap();
    let text_b = crate::common::ok(&["compare", "--scenario", path_b.to_str().unwrap()]);
    let flat_b = one_line(&text_b);
    assert!(
        flat_b.contains("rate limits (simulated), sequential: openai/gpt-6-sol refused"),
        "{text_b}"
    );
    assert!(!flat_b.contains("[formula"), "{text_b}");
    let (total, failed) = (num(seq, "total_usd"), num(seq, "failed_requests"));
    assert!((total - 484.48).abs() < 0.005, "{total}");
    assert!((failed - 836.2).abs() < 0.05, "{failed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PR that lowers the fallback's quota (Sept 3 with the herd, GPT-6 Sol 500 → 400 rpm):
/// `diff` names the change, shows the failed requests it adds (the formula by hand: 540 a
/// minute against 400 refuses E[(N − 400)⁺] / 540 ≈ 25.9% of them) and calls it an
/// availability loss, not the saving its lower bill would read as.
#[test]
fn a_pr_that_lowers_a_fallbacks_rpm_shows_its_failed_requests() {
    let dir = scratch("diff");
    let base = sept3_with_the_herd("");
    let head = base.replace("rpm = 500", "rpm = 400");
    let (b, h) = (dir.join("base.toml"), dir.join("head.toml"));
    std::fs::write(&b, &base).unwrap();
    std::fs::write(&h, &head).unwrap();
    let (b, h) = (b.to_str().unwrap(), h.to_str().unwrap());
    let doc = crate::common::json(&["diff", b, h]);
    let chain = doc["chains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["chain"] == "price-matched")
        .unwrap();
    assert_eq!(chain["status"], "changed");
    assert_eq!(
        chain["changes"][0]["what"],
        "link 2 (openai/gpt-6-sol).capacity.rpm"
    );
    let (was, now) = (
        num(&chain["base"], "incident_failed"),
        num(&chain["head"], "incident_failed"),
    );
    // the formula's counts: 834.5 at 500 rpm, 2,894 at 400 (the simulator's within 1%)
    let want = |c: u64| refused_share(540.0, c) * 11_160.0;
    assert!(
        (was / want(500) - 1.0).abs() < 0.01,
        "{was} vs {}",
        want(500)
    );
    assert!(
        (now / want(400) - 1.0).abs() < 0.01,
        "{now} vs {}",
        want(400)
    );
    assert!(num(&chain["diff"], "incident_usd") < 0.0);
    let text = crate::common::ok(&["diff", b, h]);
    assert!(
        text.contains("failed requests per 3h6m outage (fewer requests answered: an availability loss, not a saving)"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Bad `[capacity]` entries: one error naming the file, line and field and what is allowed.
#[test]
fn bad_capacity_entries_name_the_field() {
    let dir = scratch("bad");
    let base = scenario(10, 1.0, 50, 0.0);
    let base = &base[..base.find("[capacity.").unwrap()];
    for (entry, want) in [
        (
            "[capacity.\"openai/gpt-6-sol\"]\nbackground_rpm = 3\n",
            "capacity.\"openai/gpt-6-sol\": give its limit: `rpm` (requests per minute), `tpm` (tokens per minute) or both",
        ),
        (
            "[capacity.\"openai/gpt-6-sol\"]\nrpm = 0\n",
            "capacity.\"openai/gpt-6-sol\".rpm: must be a number of at least 1 a minute; got 0",
        ),
        (
            "[capacity.\"openai/gpt-6-sol\"]\nrpm = 10\nbackground_rpm = -1\n",
            "background_rpm: must be a number of requests per minute, at least 0; got -1",
        ),
        (
            "[capacity.\"openai/gpt-6-sol\"]\nrpm = 10\nrmp = 3\n",
            "capacity.\"openai/gpt-6-sol\".rmp: unknown field (did you mean `rpm`?); allowed: rpm, tpm, background_rpm",
        ),
        (
            "[capacity.\"openai/gpt-6-astra\"]\nrpm = 10\n",
            "`openai/gpt-6-astra` is no chain's model: [capacity] entries apply to the models listed in a [[chain]]'s `models`",
        ),
        (
            "[capacity.\"openai/gpt-9\"]\nrpm = 10\n",
            "unknown model `openai/gpt-9`",
        ),
    ] {
        let path = dir.join("bad.toml");
        std::fs::write(&path, format!("{base}{entry}")).unwrap();
        let out = fallcost(&["compare", "--scenario", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{entry}: {err}");
        assert!(err.contains(want), "{entry}: {err}");
        assert!(err.contains("bad.toml:"), "{err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("error")).count(),
            1,
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A LiteLLM config's deployment `rpm` is the fallback's quota in `compare --config` and
/// `diff` (tests/fixtures/compare/capacity: 60 requests a minute fail over onto a deployment of
/// 50 rpm, then 40): said where it was read, priced by the simulator with the formula beside
/// it (m = 60, c = 50: 0.171992 of them by hand, MODEL.md §11), and a PR that lowers it shows
/// the failed requests it adds. A group of several deployments lists its limits, not priced;
/// a scenario's own `[capacity]` entry wins over the config's.
#[test]
fn a_configs_rpm_is_the_fallbacks_quota_in_compare_and_diff() {
    const DIR: &str = "tests/fixtures/compare/capacity";
    let (base, head, scenario) = (
        format!("{DIR}/base.yaml"),
        format!("{DIR}/head.yaml"),
        format!("{DIR}/incident.toml"),
    );
    let doc = crate::common::json(&["compare", "--config", &base, "--scenario", &scenario]);
    let seq = row(
        &doc,
        "incident",
        "chat (router_settings.fallbacks)",
        "sequential",
    );
    assert_eq!(seq["method"], "simulated", "{seq:#}");
    let limits = seq["rate_limits"].as_array().unwrap();
    assert_eq!(limits[1]["model"], "claude-sonnet-4");
    assert_eq!(num(&limits[1], "rpm"), 50.0);
    let share = refused_share(60.0, 50);
    assert!((share - 0.171_991_551).abs() < 1e-8, "{share}");
    let failed = num(seq, "failed_requests");
    assert!(
        (failed / (share * 1800.0) - 1.0).abs() < 0.05,
        "{failed} vs {}",
        share * 1800.0
    );
    let text = crate::common::ok(&["compare", "--config", &base, "--scenario", &scenario]);
    let flat = one_line(&text);
    assert!(
        flat.contains("fallback `backup` (`claude-sonnet-4`): rpm 50, read as its quota in the incident: attempts over it are refused (429, billed 0; MODEL.md §11) (tests/fixtures/compare/capacity/base.yaml:7)"),
        "{text}"
    );
    assert!(
        flat.contains("[formula E[(N − c)⁺]/E[N]: 17.2% refused, 309.58 attempts]"),
        "{text}"
    );
    // the PR: 50 → 40 rpm
    let diff = crate::common::json(&["diff", &base, &head, "--scenario", &scenario]);
    let chain = &diff["chains"][0];
    assert_eq!(
        chain["changes"][0]["what"],
        "link 2 (claude-sonnet-4).capacity.rpm"
    );
    let (was, now) = (
        num(&chain["base"], "incident_failed"),
        num(&chain["head"], "incident_failed"),
    );
    let at = |c: u64| refused_share(60.0, c) * 1800.0;
    assert!((was / at(50) - 1.0).abs() < 0.05, "{was} vs {}", at(50));
    assert!((now / at(40) - 1.0).abs() < 0.05, "{now} vs {}", at(40));
    // a group of two deployments: its limits listed, not priced (no quota, nothing refused)
    let dir = scratch("cfg");
    let pool = std::fs::read_to_string(&base).unwrap().replace(
        "  - model_name: backup\n    litellm_params: {model: anthropic/claude-sonnet-4, rpm: 50}\n",
        "  - model_name: backup\n    litellm_params: {model: anthropic/claude-sonnet-4, rpm: 50}\n  - model_name: backup\n    litellm_params: {model: anthropic/claude-sonnet-4, rpm: 50, api_key: second-key}\n",
    );
    let pool_path = dir.join("pool.yaml");
    std::fs::write(&pool_path, &pool).unwrap();
    let pool_path = pool_path.to_str().unwrap();
    let text = crate::common::ok(&["compare", "--config", pool_path, "--scenario", &scenario]);
    let flat = one_line(&text);
    assert!(
        flat.contains(
            "rpm 50 not priced as a quota: its group's 2 deployments share the group's traffic"
        ),
        "{text}"
    );
    assert!(!flat.contains("rate limits (simulated)"), "{text}");
    // the scenario's own entry wins (with its background)
    let own = dir.join("own.toml");
    std::fs::write(
        &own,
        std::fs::read_to_string(&scenario).unwrap().replace(
            "../../check/routing/prices.json",
            &format!(
                "{}/tests/fixtures/check/routing/prices.json",
                env!("CARGO_MANIFEST_DIR")
            ),
        ) + "\n[capacity.\"claude-sonnet-4\"]\nrpm = 1000\n",
    )
    .unwrap();
    let text = crate::common::ok(&[
        "compare",
        "--config",
        &base,
        "--scenario",
        own.to_str().unwrap(),
    ]);
    let flat = one_line(&text);
    assert!(
        flat.contains("`claude-sonnet-4`: the scenario's own [capacity] entry is priced, not the config's rate limit"),
        "{text}"
    );
    assert!(flat.contains("refused 0 attempts (1,000 rpm)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `--set` that replaces a chain's models (as `tune --candidate` varies a chain) leaves the
/// `[capacity]` and `[latency]` entries of the models it drops applying to nothing: not an
/// error then, as it is in the file as written (`bad_capacity_entries_name_the_field`).
#[test]
fn a_chain_varied_by_set_leaves_its_dropped_models_entries_alone() {
    let dir = scratch("set");
    let text =
        sept3_with_the_herd("") + "\n[latency.\"openai/gpt-6-sol\"]\np50_s = 2\np99_s = 12\n";
    let path = dir.join("s.toml");
    std::fs::write(&path, &text).unwrap();
    let path = path.to_str().unwrap();
    let set = "chain.price-matched.models=[\"anthropic/claude-sonnet-5\", \"openai/gpt-6-astra\"]";
    let doc = crate::common::json(&["compare", "--scenario", path, "--set", set]);
    let seq = row(&doc, "incident", "price-matched", "sequential");
    // GPT-6 Astra has no quota: nothing refused, the closed forms' row
    assert_eq!(num(seq, "rate_limited_attempts"), 0.0);
    assert_eq!(
        seq.get("method")
            .and_then(Value::as_str)
            .unwrap_or("analytic"),
        "analytic"
    );
    // the file as written still refuses a stale entry
    let stale = text.replace(
        "models = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]",
        "models = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-astra\"]",
    );
    assert_ne!(stale, text);
    let stale_path = dir.join("stale.toml");
    std::fs::write(&stale_path, &stale).unwrap();
    let out = fallcost(&["compare", "--scenario", stale_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is no chain's model"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// tune with a quota as a constraint (issue 35 item 4): one request a second fails over onto a
/// fallback limited to 50 a minute (GPT-6 Sol, 308 of the window's 1,800 refused) or one with
/// no limit (GPT-6 Astra, dearer). At 12 outages a year over 1.2 million requests the limited
/// chain answers 1 − 12 × 308.27 / 1.2e6 = 99.69%: held to 99.9%, tune recommends the dearer
/// chain that takes the load and says what the shipped chain's quota refused; held to 99% it
/// keeps the cheaper one.
#[test]
fn tune_recommends_the_cheapest_chain_that_takes_the_load() {
    let dir = scratch("tune");
    let toml = scenario(30, 1.0, 50, 0.0);
    std::fs::write(dir.join("s.toml"), &toml).unwrap();
    let space = "[space]\n\"chain.c.models\" = [[\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"], [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-astra\"]]\n\"policy.retries\" = [0]\n\"policy.breaker\" = [\"none\"]\n\"policy.hedge_delay_s\" = [\"none\"]\n";
    std::fs::write(dir.join("space.toml"), space).unwrap();
    let tune = |availability: &str| {
        let s = dir.join("s.toml");
        let sp = dir.join("space.toml");
        let args = [
            "tune",
            "--scenario",
            s.to_str().unwrap(),
            "--space",
            sp.to_str().unwrap(),
            "--requests-per-month",
            "100000",
            "--incidents-per-year",
            "12",
            "--availability",
            availability,
            "--confirm",
            "0",
        ];
        let out = fallcost(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = one_line(&String::from_utf8_lossy(&out.stdout));
        let json = crate::common::json(&args);
        let schema = crate::schemas::validator("tune.schema.json");
        crate::schemas::assert_valid(&schema, &json, "tune with a quota");
        (text, json["chains"][0].clone())
    };
    let models = |p: &Value| -> Vec<String> {
        p["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    };
    let (strict_text, strict) = tune("99.9%");
    let rec = &strict["recommended"];
    assert_eq!(
        models(rec),
        ["anthropic/claude-sonnet-5", "openai/gpt-6-astra"]
    );
    assert_eq!(num(rec, "availability"), 1.0);
    let shipped = &strict["shipped"];
    let failed = shipped["raw"]["incident"]["failed_requests"]
        .as_f64()
        .unwrap();
    // the simulated refusals against the law's expectation over 30 clock minutes
    let want = expected_refused(1800, 30, 0.0, 50);
    assert!((failed - want).abs() < 0.05 * want, "{failed} vs {want}");
    let answered = 1.0 - 12.0 * failed / 1.2e6;
    assert!((num(shipped, "availability") - answered).abs() < 1e-9);
    assert!(num(rec, "cost_per_1k_usd") > num(shipped, "cost_per_1k_usd"));
    let q = &strict["quota_refusals"];
    assert_eq!(q["shipped"][0]["model"], "openai/gpt-6-sol");
    assert_eq!(q["shipped"][0]["refused_attempts"].as_f64(), Some(failed));
    assert_eq!(q["recommended"].as_array().map(Vec::len), Some(0));
    assert!(
        strict_text.contains(&format!(
            "shipped: openai/gpt-6-sol refused {} attempts (50 rpm); recommended: no rate-limited link",
            fallcost::number::count(failed)
        )),
        "{strict_text}"
    );
    assert!(strict_text.contains("costs $"), "{strict_text}");
    let (_, loose) = tune("99%");
    assert_eq!(
        models(&loose["recommended"]),
        ["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fallback whose context window is below the request's prompt (issue 35 item 2, the part
/// that is done): compare, sweep and tune warn on standard error and diff in its warnings that
/// the provider refuses every request reaching it while the figures price it as answering; a
/// prompt within the window warns of nothing. GPT-3.5 Turbo takes 16,385 prompt tokens in
/// LiteLLM's table (the bundled snapshot).
#[test]
fn a_fallback_below_the_prompt_is_warned_of_not_priced_silently() {
    let dir = scratch("context");
    let scenario = |input: u64, fallback: &str| {
        format!(
            "name = \"context\"\npricing = \"litellm-1.110.2\"\n[request]\ninput_tokens = {input}\noutput_tokens = 500\n[steady]\nfailure_rate = 0.01\n[[chain]]\nname = \"c\"\nmodels = [\"gpt-4o\", \"{fallback}\"]\n"
        )
    };
    let write = |name: &str, text: String| write_in(&dir, name, &text);
    let head = write("head.toml", scenario(50_000, "gpt-3.5-turbo"));
    let base = write("base.toml", scenario(50_000, "gpt-4o-mini"));
    let fits = write("fits.toml", scenario(10_000, "gpt-3.5-turbo"));
    // retired on 2026-10-23 in the table, before the tests' today (2026-12-06)
    let want = "gpt-3.5-turbo cannot take this request (prompt 50,000 tokens > max_input_tokens 16,385; retired on 2026-10-23, as the price table states): the provider refuses every request that reaches it (a client error, billed 0), so these figures pass it over: the next link that can serve the request takes its place (refused/1k, refused_requests); chain `c`";
    // a fallback passed over answers nothing: its retirement is not "priced as answering"
    let retired = "gpt-3.5-turbo cannot take this request (retired on 2026-10-23, as the price table states): the provider refuses every request that reaches it (a client error, billed 0), but these figures price it as answering";
    for args in [
        vec!["compare", "--scenario", head.as_str()],
        vec![
            "sweep",
            "--scenario",
            head.as_str(),
            "--param",
            "steady.failure_rate=0:0.02:0.01",
        ],
        vec![
            "tune",
            "--scenario",
            head.as_str(),
            "--vary",
            "policy.timeout_s=30",
            "--vary",
            "policy.retries=0",
            "--confirm",
            "0",
        ],
    ] {
        let out = fallcost(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = one_line(&String::from_utf8_lossy(&out.stderr));
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains(retired), "{args:?}: {err}");
    }
    // the table carries it where it is pasted (the context window; retirement on stderr)
    let table = one_line(&crate::common::ok(&["compare", "--scenario", &head]));
    assert!(
        table.contains("cannot serve this request: gpt-3.5-turbo (prompt 50,000 tokens > max_input_tokens 16,385); the provider refuses it (a client error, billed 0), so every pattern passes it over to the next link that can (counted in refused/1k)"),
        "{table}"
    );
    let doc = crate::common::json(&["compare", "--scenario", &head]);
    crate::schemas::assert_valid(
        &crate::schemas::validator("compare.schema.json"),
        &doc,
        "compare with a context overflow",
    );
    let o = &doc["chains"][0]["context_overflow"][0];
    assert_eq!(o["model"], "gpt-3.5-turbo");
    assert_eq!(o["prompt_tokens"].as_u64(), Some(50_000));
    assert_eq!(o["max_input_tokens"].as_u64(), Some(16_385));
    assert!(o["max_output_tokens"].is_null());
    let r = &doc["chains"][0]["refusals"];
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    assert_eq!(
        (&r[0]["model"], &r[0]["link"], &r[0]["passed_over"]),
        (&json!("gpt-3.5-turbo"), &json!(1), &json!(true))
    );
    // within the window: retired only
    let out = fallcost(&["compare", "--scenario", &fits]);
    assert!(out.status.success());
    let err = one_line(&String::from_utf8_lossy(&out.stderr));
    assert!(err.contains(retired), "{err}");
    // and a fallback that fits and is not retired: nothing
    let fine = write("fine.toml", scenario(10_000, "gpt-4o-mini"));
    let out = fallcost(&["compare", "--scenario", &fine]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("cannot take"));
    // check judges a scenario's fallbacks for the scenario's own request (not --profile's)
    let out = fallcost(&["check", &head]);
    assert_eq!(out.status.code(), Some(1));
    let text = one_line(&String::from_utf8_lossy(&out.stdout));
    assert!(
        text.contains("fallback `gpt-3.5-turbo` takes at most 16,385 prompt tokens (max_input_tokens) and the profile's requests carry 50,000"),
        "{text}"
    );
    assert!(
        text.contains("fallback `gpt-3.5-turbo` was retired on 2026-10-23"),
        "{text}"
    );
    let out = fallcost(&["check", &fine]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let diff = crate::common::json(&["diff", &base, &head]);
    let warnings: Vec<&str> = diff["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        warnings.contains(&format!("HEAD: {want}").as_str()),
        "{warnings:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// MODEL.md §11, "Refused by the context window or a capability": a fallback that cannot serve
/// the request is passed over in every engine and pattern. gpt-4o → gpt-3.5-turbo →
/// claude-sonnet-4-5 at a 50,000-token prompt (gpt-3.5-turbo takes 16,385) prices exactly as
/// gpt-4o → claude-sonnet-4-5, figure by figure, analytic and simulated. Counted by hand: with
/// f = 5% on gpt-4o, sequential sends 5% of the requests past gpt-3.5-turbo (50 per 1,000); a
/// hedge sends every request's backup past it (1,000); no-fallback none. In the incident
/// (openai down for 30 minutes at 0.5 req/s: 900 requests) every request fails over past it.
/// The Monte Carlo's counts are the same (a fixed route: exact here).
#[test]
fn a_fallback_that_cannot_serve_the_request_is_passed_over() {
    let dir = scratch("passed-over");
    let scenario = |models: &str, requires: &str| {
        format!(
            "name = \"refuse\"\npricing = \"litellm-1.110.2\"\n[request]\ninput_tokens = 50000\noutput_tokens = 500\nprefix_tokens = 10000\ncache_hit_rate = 0.9\n{requires}\n[steady]\nfailure_rate = 0.05\n[incident]\nduration = \"30m\"\nrequests_per_second = 0.5\nsession_length = 5\n[[chain]]\nname = \"c\"\nmodels = [{models}]\n"
        )
    };
    let write = |name: &str, text: String| write_in(&dir, name, &text);
    let three = write(
        "three.toml",
        scenario(
            "\"gpt-4o\", \"gpt-3.5-turbo\", \"anthropic/claude-sonnet-4-5\"",
            "",
        ),
    );
    let two = write(
        "two.toml",
        scenario("\"gpt-4o\", \"anthropic/claude-sonnet-4-5\"", ""),
    );
    let run = |path: &str| {
        crate::common::json(&[
            "compare",
            "--scenario",
            path,
            "--mc",
            "200000",
            "--seed",
            "3",
        ])
    };
    let (a, b) = (run(&three), run(&two));
    crate::schemas::assert_valid(
        &crate::schemas::validator("compare.schema.json"),
        &a,
        "compare with a refusing fallback",
    );
    let figures = |row: &Value, keys: &[&str]| -> Vec<f64> {
        keys.iter().map(|k| row[*k].as_f64().unwrap()).collect()
    };
    let steady = [
        "cost_per_1k_usd",
        "failed_per_1k",
        "wasted_attempts_per_1k",
        "wasted_per_1k_usd",
        "fallback_answers_per_1k",
        "attempts_per_request",
        "dead_time_mean_s",
    ];
    let incident = [
        "total_usd",
        "window_usd",
        "cold_start_usd",
        "failback_usd",
        "failed_requests",
        "cold_starts",
        "failback_writes",
        "wasted_attempts",
    ];
    let want_steady = [
        ("no-fallback", 0.0),
        ("sequential", 50.0),
        ("hedged-take-first", 1000.0),
        ("hedged-no-cancel", 1000.0),
    ];
    for (i, (pattern, refused)) in want_steady.iter().enumerate() {
        let (ra, rb) = (&a["steady"][i], &b["steady"][i]);
        assert_eq!(ra["pattern"], *pattern);
        let (fa, fb) = (figures(ra, &steady), figures(rb, &steady));
        for ((k, x), y) in steady.iter().zip(&fa).zip(&fb) {
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "{pattern} {k}: {x} vs {y}"
            );
        }
        assert!(
            (ra["refused_per_1k"].as_f64().unwrap() - refused).abs() < 1e-9,
            "{pattern}: {}",
            ra["refused_per_1k"]
        );
        let mc = ra["mc"]["cost_per_1k_usd"].as_f64().unwrap();
        let ci = &ra["mc"]["cost_per_1k_usd_ci95"];
        assert!(
            ci[0].as_f64().unwrap() <= fa[0] && fa[0] <= ci[1].as_f64().unwrap(),
            "{pattern}: MC {mc} {ci} against {}",
            fa[0]
        );
    }
    for (i, (pattern, _)) in want_steady.iter().enumerate() {
        let (ra, rb) = (&a["incident"][i], &b["incident"][i]);
        assert_eq!(ra["pattern"], *pattern);
        let (fa, fb) = (figures(ra, &incident), figures(rb, &incident));
        for ((k, x), y) in incident.iter().zip(&fa).zip(&fb) {
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "{pattern} {k}: {x} vs {y}"
            );
        }
        let want = if *pattern == "no-fallback" {
            0.0
        } else {
            900.0
        };
        assert_eq!(ra["refused_requests"].as_f64(), Some(want), "{pattern}");
        assert_eq!(
            ra["mc"]["refused_requests"].as_f64(),
            Some(want),
            "{pattern}"
        );
        assert_eq!(rb["refused_requests"].as_f64(), Some(0.0), "{pattern}");
    }
    // the CSV carries the counts in their own last columns
    let csv = crate::common::ok(&["compare", "--scenario", &three, "--format", "csv"]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert!(
        header.contains(&"refused_per_1k") && header.contains(&"refused_requests"),
        "{header:?}"
    );
    // a capability the request requires: azure/gpt-audio-1.5 has no vision in the table
    let vision = write(
        "vision.toml",
        scenario(
            "\"gpt-4o\", \"azure/gpt-audio-1.5\", \"anthropic/claude-sonnet-4-5\"",
            "requires = [\"vision\"]",
        )
        .replace("input_tokens = 50000", "input_tokens = 1000"),
    );
    let v = crate::common::json(&["compare", "--scenario", &vision]);
    let r = &v["chains"][0]["refusals"][0];
    assert_eq!(
        (&r["model"], &r["lacks"]),
        (&json!("azure/gpt-audio-1.5"), &json!(["vision"])),
        "{r}"
    );
    assert_eq!(v["steady"][1]["refused_per_1k"].as_f64(), Some(50.0));
    // and `check` on the scenario judges its own `requires`, with no --requires
    let out = fallcost(&["check", &vision]);
    let text = one_line(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("fallback `azure/gpt-audio-1.5` does not support vision (supports_vision) (false in the price table), which the requests need (--requires, a scenario's [request] requires)"),
        "{text}"
    );
    // an unknown capability is refused at its line, naming what is allowed
    let bad = write("bad.toml", scenario("\"gpt-4o\"", "requires = [\"audio\"]"));
    let out = fallcost(&["compare", "--scenario", &bad]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:8:13") && err.contains("request.requires") && err.contains("vision"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same on an incident timeline (the piecewise closed forms and the event simulator):
/// openai at a 60% error rate for 10 minutes, anthropic down for 10, gpt-4o → gpt-3.5-turbo
/// (cannot take the 60,000-token prompt) → claude-sonnet-4-5 → gpt-4o-mini prices as the chain
/// without gpt-3.5-turbo, and the requests gpt-4o fails (216 of 900, what no-fallback fails)
/// pass it over; the simulator's count's interval holds that.
#[test]
fn a_timeline_passes_over_a_fallback_that_cannot_serve_the_request() {
    let dir = scratch("passed-over-timeline");
    let scenario = |models: &str| {
        format!(
            "pricing = \"litellm-1.110.2\"\n[request]\ninput_tokens = 50000\noutput_tokens = 500\nprefix_tokens = 10000\ncache_hit_rate = 0.9\n[steady]\nfailure_rate = 0.05\n[incident]\nduration = \"30m\"\nrequests_per_second = 0.5\nsession_length = 5\nfailure = \"fast\"\n[[incident.outage]]\nprovider = \"openai\"\nstart = \"5m\"\nduration = \"10m\"\nerror_rate = 0.6\n[[incident.outage]]\nprovider = \"anthropic\"\nstart = \"10m\"\nduration = \"10m\"\n[[chain]]\nname = \"c\"\nmodels = [{models}]\n"
        )
    };
    let run = |name: &str, models: &str| {
        let path = write_in(&dir, name, &scenario(models));
        crate::common::json(&[
            "compare",
            "--scenario",
            &path,
            "--mc",
            "20000",
            "--seed",
            "2",
        ])
    };
    let a = run(
        "four.toml",
        "\"gpt-4o\", \"gpt-3.5-turbo\", \"anthropic/claude-sonnet-4-5\", \"gpt-4o-mini\"",
    );
    let b = run(
        "three.toml",
        "\"gpt-4o\", \"anthropic/claude-sonnet-4-5\", \"gpt-4o-mini\"",
    );
    let failed_alone = a["incident"][0]["failed_requests"].as_f64().unwrap();
    assert_eq!(failed_alone, 216.0);
    for i in 0..4 {
        let (ra, rb) = (&a["incident"][i], &b["incident"][i]);
        for k in [
            "total_usd",
            "failed_requests",
            "cold_starts",
            "failback_writes",
        ] {
            let (x, y) = (ra[k].as_f64().unwrap(), rb[k].as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "{i} {k}: {x} vs {y}"
            );
        }
        let want = match i {
            0 => 0.0,
            1 => failed_alone,
            _ => 900.0,
        };
        assert_eq!(ra["refused_requests"].as_f64(), Some(want), "{i}");
        let ci = &ra["mc"]["refused_requests_ci95"];
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!(
            lo - 1e-9 <= want && want <= hi + 1e-9,
            "{i}: {want} outside {ci}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
