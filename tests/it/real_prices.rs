//! Real prices (issue 12): the bundled LiteLLM 1.110.2 snapshot priced the way providers bill,
//! each figure computed by hand from the file's per-token prices.

use std::path::Path;

use fallcost::input::pricing::{LITELLM_SNAPSHOT, bundled};
use fallcost::input::scenario;
use fallcost::model::{Billing, CacheMiss, CacheState, PriceTable, Request, ServiceTier};

fn table() -> PriceTable {
    bundled(LITELLM_SNAPSHOT).unwrap()
}

fn req(input: f64, output: f64, prefix: f64, h: f64) -> Request {
    Request {
        input_tokens: input,
        output_tokens: output,
        prefix_tokens: prefix,
        cache_hit_rate: h,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12 * b.abs().max(1.0)
}

fn usd(t: &PriceTable, id: &str, r: Request, billing: Billing, state: CacheState) -> f64 {
    let p = r.billed(t.get(id).unwrap(), &billing).unwrap();
    r.success_cost(&p, state)
}

#[test]
fn the_snapshot_is_broad() {
    let t = table();
    // 3,585 priced entries and 98 rolling aliases (`alias_of`) priced as the entry they name.
    assert_eq!(t.models.len(), 3585 + 98);
    let alias = t.get("claude-sonnet-latest").unwrap();
    assert_eq!(alias.id, "claude-sonnet-5-5");
    assert_eq!(t.verified.as_deref(), Some("2026-12-01"));
    for id in [
        "gpt-4o",
        "anthropic/claude-sonnet-4-5",
        "gemini-2.5-pro",
        "deepseek-chat",
        "mistral/mistral-large-latest",
    ] {
        assert!(t.get(id).is_some(), "{id}");
    }
}

/// gemini-2.5-pro: 1.25 / 10 $/MTok, above 200k tokens 2.50 / 15. 250,000 in / 1,000 out is
/// 250,000 × 2.5e-6 + 1,000 × 1.5e-5 = 0.625 + 0.015 = $0.640; 100,000 in is 0.125 + 0.010.
#[test]
fn long_context_tier_prices_the_whole_request() {
    let t = table();
    let d = Billing::default();
    let long = usd(
        &t,
        "gemini-2.5-pro",
        req(250_000.0, 1000.0, 0.0, 1.0),
        d,
        CacheState::Warm,
    );
    assert!(close(long, 0.640), "{long}");
    let short = usd(
        &t,
        "gemini-2.5-pro",
        req(100_000.0, 1000.0, 0.0, 1.0),
        d,
        CacheState::Warm,
    );
    assert!(close(short, 0.135), "{short}");
    // Exactly 200,000 is not above 200k: 0.25 + 0.01. The prefix counts toward the prompt: a
    // warm prefix of 200,000 read at 0.25 (the tier's cache read) with 50,000 fresh input at
    // 2.50: 0.05 + 0.125 + 0.015 = $0.19.
    let at = usd(
        &t,
        "gemini-2.5-pro",
        req(200_000.0, 1000.0, 0.0, 1.0),
        d,
        CacheState::Warm,
    );
    assert!(close(at, 0.26), "{at}");
    let warm = usd(
        &t,
        "gemini-2.5-pro",
        req(50_000.0, 1000.0, 200_000.0, 1.0),
        d,
        CacheState::Warm,
    );
    assert!(close(warm, 0.19), "{warm}");
}

/// dashscope/qwen-flash has only `tiered_pricing`: [0, 256k) 0.05 / 0.40, [256k, 1M) 0.25 / 2.
/// 300,000 in / 1,000 out: 0.075 + 0.002 = $0.077; 100,000 in: 0.005 + 0.0004.
#[test]
fn tiered_pricing_lists_are_tiers() {
    let t = table();
    let d = Billing::default();
    let long = usd(
        &t,
        "dashscope/qwen-flash",
        req(300_000.0, 1000.0, 0.0, 1.0),
        d,
        CacheState::Warm,
    );
    assert!(close(long, 0.077), "{long}");
    let short = usd(
        &t,
        "dashscope/qwen-flash",
        req(100_000.0, 1000.0, 0.0, 1.0),
        d,
        CacheState::Warm,
    );
    assert!(close(short, 0.0054), "{short}");
}

/// claude-sonnet-4-5: input 3, 5-minute write 3.75, 1-hour write 6, read 0.30, output 15. A
/// request writing a 10,000-token prefix with 2,000 in / 500 out: 0.0375 + 0.006 + 0.0075 =
/// $0.051 with the 5-minute TTL, 0.06 + 0.006 + 0.0075 = $0.0735 with the 1-hour one.
#[test]
fn cache_writes_by_ttl() {
    let t = table();
    let r = req(2000.0, 500.0, 10_000.0, 1.0);
    let five = Billing::default();
    let hour = Billing {
        cache_ttl_s: Some(3600.0),
        ..Billing::default()
    };
    let w5 = usd(&t, "claude-sonnet-4-5", r, five, CacheState::Write);
    let w1 = usd(&t, "claude-sonnet-4-5", r, hour, CacheState::Write);
    assert!(close(w5, 0.051), "{w5}");
    assert!(close(w1, 0.0735), "{w1}");
    let p = r
        .billed(t.get("claude-sonnet-4-5").unwrap(), &hour)
        .unwrap();
    assert_eq!(p.cache_ttl_s, 3600.0, "the TTL is the expiry too");
    // Bedrock's Claude 3.5 Haiku has no 1-hour write price: an error, not the 5-minute one.
    let e = r
        .billed(
            t.get("anthropic.claude-3-5-haiku-20241022-v1:0").unwrap(),
            &hour,
        )
        .unwrap_err();
    assert!(e.to_string().contains("no 1-hour cache-write price"), "{e}");
    // gpt-4o caches automatically: the provider's TTL stays.
    let g = r.billed(t.get("gpt-4o").unwrap(), &hour).unwrap();
    assert_eq!(g.cache_ttl_s, 600.0);
}

/// gpt-4o: standard 2.50 / 10, batch 1.25 / 5, priority 4.25 / 17; 2,000 in / 500 out:
/// 0.005 + 0.005 = $0.010, $0.005, 0.0085 + 0.0085 = $0.017. flex is not priced for gpt-4o: an error, never the standard price.
#[test]
fn service_tiers() {
    let t = table();
    let r = req(2000.0, 500.0, 0.0, 1.0);
    let at = |service| {
        usd(
            &t,
            "gpt-4o",
            r,
            Billing {
                service,
                ..Billing::default()
            },
            CacheState::Warm,
        )
    };
    assert!(close(at(ServiceTier::Standard), 0.010));
    assert!(close(at(ServiceTier::Batch), 0.005));
    assert!(close(at(ServiceTier::Priority), 0.017));
    let flex = Billing {
        service: ServiceTier::Flex,
        ..Billing::default()
    };
    let e = r.billed(t.get("gpt-4o").unwrap(), &flex).unwrap_err();
    assert!(e.to_string().contains("has no flex price"), "{e}");
    // Long context and service tier together: gemini-2.5-pro priority above 200k is 4.50 / 27:
    // 250,000 × 4.5e-6 + 1,000 × 2.7e-5 = 1.125 + 0.027 = $1.152.
    let p = usd(
        &t,
        "gemini-2.5-pro",
        req(250_000.0, 1000.0, 0.0, 1.0),
        Billing {
            service: ServiceTier::Priority,
            ..Billing::default()
        },
        CacheState::Warm,
    );
    assert!(close(p, 1.152), "{p}");
}

/// A warm claude-sonnet-4-5 request, 10,000-token prefix at 90% hits, 2,000 in / 500 out:
/// misses written (the default) 10,000 × (0.9 × 0.30 + 0.1 × 3.75) = 6.45e-3, so $0.01995;
/// misses at input (the posts) 10,000 × (0.27 + 0.30) = 5.7e-3, so $0.0192.
#[test]
fn cache_miss_writes_the_prefix_by_default() {
    let t = table();
    let r = req(2000.0, 500.0, 10_000.0, 0.9);
    let write = usd(
        &t,
        "claude-sonnet-4-5",
        r,
        Billing::default(),
        CacheState::Warm,
    );
    assert!(close(write, 0.01995), "{write}");
    let input = Billing {
        cache_miss: Some(CacheMiss::Input),
        ..Billing::default()
    };
    let miss = usd(&t, "claude-sonnet-4-5", r, input, CacheState::Warm);
    assert!(close(miss, 0.0192), "{miss}");
    // The premium of a write over warm is h × (wr − rd) = 0.9 × 3.45 × 10,000 / 1e6.
    let p = r
        .billed(t.get("claude-sonnet-4-5").unwrap(), &Billing::default())
        .unwrap();
    assert!(close(r.premium_over_warm(&p, CacheState::Write), 0.03105));
    // Automatic caching (gpt-4o) has no write: a miss is at input either way,
    // 10,000 × (0.9 × 1.25 + 0.1 × 2.50) / 1e6 + 0.005 + 0.005 = $0.02375.
    let g = usd(&t, "gpt-4o", r, Billing::default(), CacheState::Warm);
    assert!(close(g, 0.02375), "{g}");
}

/// claude-sonnet-4-5 caches prefixes of 1,024 tokens or more: a 1,000-token prefix is not
/// cached (all at input: 1,000 × 3e-6 + 2,000 × 3e-6 + 500 × 1.5e-5 = $0.0165, warm or not).
#[test]
fn a_prefix_below_the_minimum_is_not_cached() {
    let t = table();
    let d = Billing::default();
    let short = req(2000.0, 500.0, 1000.0, 1.0);
    assert!(close(
        usd(&t, "claude-sonnet-4-5", short, d, CacheState::Warm),
        0.0165
    ));
    assert!(close(
        usd(&t, "claude-sonnet-4-5", short, d, CacheState::Write),
        0.0165
    ));
    // 1,024 is cached: warm reads it at 0.30.
    let ok = req(2000.0, 500.0, 1024.0, 1.0);
    let warm = usd(&t, "claude-sonnet-4-5", ok, d, CacheState::Warm);
    assert!(close(warm, 1024.0 * 0.3e-6 + 0.006 + 0.0075), "{warm}");
}

#[test]
fn lookup_is_exact_and_suggests() {
    let t = table();
    // LiteLLM's own mapping: `anthropic/X` is Anthropic's bare key X.
    assert_eq!(
        t.get("anthropic/claude-sonnet-4-5").unwrap().id,
        "claude-sonnet-4-5"
    );
    assert_eq!(t.get("openai/gpt-4o").unwrap().id, "gpt-4o");
    // Never another provider's price: gpt-4o is OpenAI's, not Groq's.
    assert!(t.get("groq/gpt-4o").is_none());
    // A bare id several providers have is refused with the candidates.
    assert!(t.get("mistral-large-latest").is_none());
    assert_eq!(
        t.lookup_hint("mistral-large-latest"),
        " (several providers have it: azure/mistral-large-latest, azure_ai/mistral-large-latest, mistral/mistral-large-latest; name one)"
    );
    assert_eq!(
        t.lookup_hint("claude-sonnet-4.5"),
        " (several providers have it: gmi/anthropic/claude-sonnet-4.5, vercel_ai_gateway/anthropic/claude-sonnet-4.5; name one)"
    );
    assert_eq!(
        t.lookup_hint("claude-sonet-4-5"),
        " (did you mean `claude-sonnet-4-5`?)"
    );
    assert_eq!(t.lookup_hint("gpt4o"), " (did you mean `gpt-4o`?)");
    assert_eq!(
        t.lookup_hint("anthropic/claude-sonnet-4.5"),
        " (did you mean `anthropic/claude-sonnet-4-5`?)"
    );
}

/// The shipped scenarios still print the posts' figures (tests/it/posts.rs pins them all); a
/// scenario on the snapshot bills gemini-2.5-pro's long-context tier in every engine.
#[test]
fn scenarios_bill_tiers_per_link() {
    let text = r#"
pricing = "litellm"
service_tier = "batch"
[request]
input_tokens = 250000
output_tokens = 1000
[[chain]]
name = "g"
models = ["gemini-2.5-pro", "gpt-4o"]
service_tiers = ["standard", "priority"]
"#;
    let s = scenario::parse("s.toml", text, Path::new("."), &[]).unwrap();
    let links = &s.chains[0].links;
    assert_eq!((links[0].price.input, links[0].price.output), (2.5, 15.0));
    assert_eq!((links[1].price.input, links[1].price.output), (4.25, 17.0));
    let bad = text.replace("\"priority\"]", "\"flex\"]");
    let e = scenario::parse("s.toml", &bad, Path::new("."), &[]).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("chain[0].service_tiers[1]"), "{e}");
    assert!(e.message.contains("`gpt-4o` has no flex price"), "{e}");
}

/// The cache TTL is the expiry the incident engine uses: Sonnet 4.5 → gpt-4o, a 10,000-token
/// prefix, a 45-minute Anthropic outage at 1 req/s in sessions of 20 (2,700 requests, 135
/// sessions). With the 5-minute cache the primary's cache has expired when it comes back: 135
/// fail-back writes of 10,000 × (3.75 − 0.30) / 1e6 = $0.0345, so $4.6575. With `cache_ttl =
/// "1h"` it has not: none. The cold starts on gpt-4o are the same either way:
/// 135 × 10,000 × (2.50 − 1.25) / 1e6 = $1.6875.
#[test]
fn the_cache_ttl_is_the_expiry_too() {
    let dir = std::env::temp_dir().join(format!("fallcost-ttl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = |ttl: &str| {
        format!(
            r#"pricing = "litellm"
[request]
output_tokens = 500
prefix_tokens = 10000
{ttl}
[[chain]]
name = "c"
models = ["anthropic/claude-sonnet-4-5", "openai/gpt-4o"]
[incident]
duration = "45m"
requests_per_second = 1
session_length = 20
"#
        )
    };
    for (name, ttl, failback) in [
        ("five.toml", "", 4.6575),
        ("hour.toml", "cache_ttl = \"1h\"", 0.0),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, scenario(ttl)).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
            .args([
                "compare",
                "--scenario",
                path.to_str().unwrap(),
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = r["incident"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["pattern"] == "sequential")
            .unwrap();
        let got = row["failback_usd"].as_f64().unwrap();
        assert!((got - failback).abs() < 1e-9, "{name}: {got}");
        let cold = row["cold_start_usd"].as_f64().unwrap();
        assert!((cold - 1.6875).abs() < 1e-9, "{name}: {cold}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep across gemini-2.5-pro's 200k tier, 1,000 output tokens, per 1,000 requests:
/// 199,900 in: 249.875 + 10 = $259.875; 200,000 in (not above): $260.00; 200,100 in: the whole
/// request at the tier, 500.25 + 15 = $515.25.
#[test]
fn a_sweep_crosses_the_long_context_tier() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "sweep",
            "--scenario",
            "/dev/stdin",
            "--param",
            "request.input_tokens=199900:200100:100",
            "-f",
            "csv",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"pricing = \"litellm\"\n[request]\noutput_tokens = 1000\n[[chain]]\nname = \"g\"\nmodels = [\"gemini-2.5-pro\"]\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    for line in [
        "199900,g,no-fallback,259.875,",
        "200000,g,no-fallback,260,",
        "200100,g,no-fallback,515.25,",
    ] {
        assert!(csv.contains(line), "{line}\n{csv}");
    }
}

/// Both engines price the tier: 250,000 in / 1,000 out on gemini-2.5-pro is $640.00 per 1,000
/// requests analytically and in the Monte Carlo (no failures: every simulated request bills
/// the same $0.640). gpt-4o cannot take a 250,000-token prompt, so it is no hedge's backup.
#[test]
fn both_engines_price_the_tier() {
    let dir = std::env::temp_dir().join(format!("fallcost-engines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("g.toml");
    std::fs::write(
        &path,
        "pricing = \"litellm\"\n[request]\ninput_tokens = 250000\noutput_tokens = 1000\n[[chain]]\nname = \"g\"\nmodels = [\"gemini-2.5-pro\", \"gpt-4o\"]\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "compare",
            "--scenario",
            path.to_str().unwrap(),
            "--mc",
            "10000",
            "--seed",
            "1",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // gpt-4o's context window (128,000 tokens) cannot take the prompt: the hedges have no
    // backup that can serve it, so they are not priced (MODEL.md §11), and the chain says why
    let refusal = &r["chains"][0]["refusals"][0];
    assert_eq!(refusal["model"], "gpt-4o");
    assert_eq!(refusal["passed_over"], true);
    let patterns: Vec<&str> = r["steady"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["pattern"].as_str().unwrap())
        .collect();
    assert_eq!(patterns, ["no-fallback", "sequential"]);
    for (pattern, want) in [("no-fallback", 640.0), ("sequential", 640.0)] {
        let row = r["steady"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["pattern"] == pattern)
            .unwrap();
        let analytic = row["cost_per_1k_usd"].as_f64().unwrap();
        let mc = row["mc"]["cost_per_1k_usd"].as_f64().unwrap();
        assert!((analytic - want).abs() < 1e-9, "{pattern}: {analytic}");
        assert!((mc - want).abs() < 1e-6, "{pattern}: {mc}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
