//! End to end: the Monte Carlo engine through the binary (determinism, seeds, output shapes)
//! and its agreement with the analytic engine on every shipped scenario.

use crate::common;

use std::process::Command;

use common::{fails, num, ok, root, row};

/// Run `fallcost ARGS` from the repository root with `RAYON_NUM_THREADS=threads`; stdout.
fn with_threads(threads: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(args)
        .current_dir(root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("the fallcost binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "a seeded run prints nothing on stderr"
    );
    out.stdout
}

/// The same seed prints byte-identical output on every run and for 1 and 2 threads, in every
/// format (MODEL.md §9).
#[test]
fn same_seed_same_bytes_on_any_thread_count() {
    for format in ["json", "csv", "table"] {
        let args = [
            "compare",
            "--scenario",
            "scenarios/failover-chains.toml",
            "--mc",
            "600000",
            "--mc-runs",
            "50",
            "--seed",
            "42",
            "--format",
            format,
        ];
        let one = with_threads("1", &args);
        let two = with_threads("2", &args);
        let again = with_threads("2", &args);
        assert!(one == two, "{format}: 1 thread and 2 threads differ");
        assert!(two == again, "{format}: two runs differ");
        // a different seed gives different draws
        let mut other = args;
        other[8] = "43";
        assert!(with_threads("2", &other) != one, "{format}: seed ignored");
    }
}

/// Without --seed a seed is drawn, printed on stderr, and recorded in the JSON; running again
/// with it repeats the output.
#[test]
fn a_drawn_seed_is_printed_and_repeats_the_run() {
    let out = Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "compare",
            "-s",
            "scenarios/sept3.toml",
            "--mc",
            "20000",
            "--mc-runs",
            "20",
            "-f",
            "json",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let seed = stderr
        .split("--seed ")
        .nth(1)
        .and_then(|s| s.trim_end().trim_end_matches(')').parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no seed on stderr: {stderr}"));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["mc"]["seed"].as_u64(), Some(seed));
    let again = ok(&[
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--mc",
        "20000",
        "--mc-runs",
        "20",
        "-f",
        "json",
        "--seed",
        &seed.to_string(),
    ]);
    assert_eq!(again.as_bytes(), out.stdout.as_slice());
}

/// The JSON `mc` objects of MODEL.md §10: the row's keys with simulated values, `KEY_ci95`
/// intervals around them, and latency percentiles in order.
#[test]
fn json_mc_objects_have_the_keys_of_model_md() {
    let args = [
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--mc",
        "100000",
        "--mc-runs",
        "40",
        "--seed",
        "5",
    ];
    let r = common::json(&args);
    assert_eq!(r["mc"]["requests"], 100000);
    assert_eq!(r["mc"]["runs"], 40);
    assert!(r["mc"]["rng"].as_str().unwrap().starts_with("Xoshiro256++"));
    let s = &row(&r, "steady", "price-matched", "hedged-take-first")["mc"];
    assert_eq!(s["requests"], 100000);
    for key in [
        "cost_per_1k_usd",
        "vs_baseline",
        "failed_per_1k",
        "wasted_attempts_per_1k",
        "wasted_per_1k_usd",
    ] {
        let ci = s[format!("{key}_ci95")].as_array().unwrap();
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        let m = num(s, key);
        assert!(lo <= m && m <= hi, "{key}: {m} not in [{lo}, {hi}]");
    }
    let (p50, p95, p99) = (
        num(s, "latency_p50_s"),
        num(s, "latency_p95_s"),
        num(s, "latency_p99_s"),
    );
    assert!(0.0 < p50 && p50 <= p95 && p95 <= p99, "{p50} {p95} {p99}");
    // No failures in sept3's steady state: every request costs the same, the interval is 0 wide.
    let seq = &row(&r, "steady", "price-matched", "sequential")["mc"];
    assert_eq!(
        seq["cost_per_1k_usd_ci95"][0],
        seq["cost_per_1k_usd_ci95"][1]
    );
    assert_eq!(
        num(seq, "cost_per_1k_usd"),
        num(
            row(&r, "steady", "price-matched", "sequential"),
            "cost_per_1k_usd"
        )
    );
    let i = &row(&r, "incident", "price-matched", "sequential")["mc"];
    assert_eq!(i["runs"], 40);
    for key in [
        "total_usd",
        "multiplier",
        "window_usd",
        "cold_start_usd",
        "failback_usd",
        "failed_requests",
        "wasted_attempts",
        "wasted_usd",
        "cold_starts",
        "failback_writes",
        "excess_usd",
    ] {
        assert!(i[format!("{key}_ci95")].is_array(), "{key}_ci95");
    }
    // sept3's fallback never fails: the window is deterministic, 513.58 as in the post, and
    // 125.2152 of it beyond the normal 388.368.
    assert!((num(i, "total_usd") - 513.5832).abs() < 1e-6);
    assert!((num(i, "excess_usd") - 125.2152).abs() < 1e-6);
    // Without --mc nothing changes: no mc keys at all.
    let plain = common::json(&["compare", "-s", "scenarios/sept3.toml"]);
    assert!(plain.get("mc").is_none());
    assert!(
        row(&plain, "steady", "price-matched", "sequential")
            .get("mc")
            .is_none()
    );
}

/// CSV adds the same figures as columns, one header line, and the seed on every row.
#[test]
fn csv_has_mc_columns() {
    let out = ok(&[
        "compare",
        "-s",
        "scenarios/failover-cache.toml",
        "--mc",
        "50000",
        "--mc-runs",
        "10",
        "--seed",
        "9",
        "-f",
        "csv",
    ]);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "mc_seed",
        "mc_cost_per_1k_usd",
        "mc_cost_per_1k_usd_ci95_lo",
        "mc_cost_per_1k_usd_ci95_hi",
        "mc_total_usd_ci95_hi",
        "mc_latency_p99_s",
    ] {
        assert!(header.iter().any(|h| h == col), "no column {col}");
    }
    let mut rows = 0;
    for rec in reader.records() {
        let rec = rec.unwrap();
        rows += 1;
        assert_eq!(rec.len(), header.len(), "{rec:?}");
        let at = |c: &str| &rec[header.iter().position(|h| h == c).unwrap()];
        assert_eq!(at("mc_seed"), "9");
        if at("section") == "steady" {
            assert!(at("mc_cost_per_1k_usd").parse::<f64>().is_ok(), "{rec:?}");
            assert!(at("mc_latency_p50_s").parse::<f64>().is_ok(), "{rec:?}");
        } else if at("section") == "incident" {
            assert!(at("mc_total_usd").parse::<f64>().is_ok(), "{rec:?}");
        } else {
            assert_eq!(at("section"), "failover_cache");
            assert_eq!(
                at("mc_total_usd"),
                "",
                "no Monte Carlo figure for the cache table"
            );
        }
    }
    assert_eq!(
        rows, 24,
        "2 chains × 4 patterns × (steady, incident), and 4 failover-cache rows per chain (warm \
         primary; cold, writing and warm failover)"
    );
}

/// The table shows the MC column with its interval and the percentiles.
#[test]
fn table_shows_mc_beside_analytic() {
    let t = ok(&[
        "compare",
        "-s",
        "scenarios/failover-chains.toml",
        "--mc",
        "100000",
        "--mc-runs",
        "10",
        "--seed",
        "3",
    ]);
    for want in [
        "MC $/1k ± 95%",
        "p50 s",
        "p99 s",
        "MC total ± 95%",
        "seed 3",
        "25.01 ±",
    ] {
        assert!(t.contains(want), "table lacks {want}:\n{t}");
    }
}

#[test]
fn bad_mc_flags_fail_with_one_line() {
    for args in [
        vec!["compare", "-s", "scenarios/sept3.toml", "--mc", "1.5"],
        vec!["compare", "-s", "scenarios/sept3.toml", "--mc", "1"],
        vec!["compare", "-s", "scenarios/sept3.toml", "--seed", "4"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_fallcost"))
            .args(&args)
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    // a bad [latency] entry is an input error naming the field
    let dir = std::env::temp_dir().join(format!("fallcost-mc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("s.toml"),
        "[request]\noutput_tokens = 10\n[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\"]\n\
         [latency.\"openai/gpt-6-sol\"]\np50_s = 5\np99_s = 2\n",
    )
    .unwrap();
    let e = fails(&[
        "compare",
        "-s",
        dir.join("s.toml").to_str().unwrap(),
        "--mc",
        "1000",
    ]);
    assert!(
        e.contains(":8:9: latency.\"openai/gpt-6-sol\".p99_s: must be at least p50_s"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The blended traffic-share rows' Monte Carlo figures, recomputed by hand from the chains' own
/// figures of the same run: each steady-state mean is Σ shareᵢ·meanᵢ and each incident mean
/// Σ meanᵢ (each chain's window holds its share of the requests), with the standard error
/// √(Σ wᵢ²·SEᵢ²) of independent chains (SEᵢ read back from each chain's 95% interval). The
/// blended analytic values lie in the blended 95% intervals. The seed is fixed: with another
/// seed a figure lies outside its 95% interval one time in twenty, as such an interval does.
#[test]
fn blended_rows_combine_the_chains_monte_carlo() {
    const BLENDED: &str = "all chains (by traffic_share)";
    const Z95: f64 = 1.959_963_984_540_054;
    let r = common::json(&[
        "compare",
        "-s",
        "tests/fixtures/scenarios/tiers-shares.toml",
        "--mc",
        "400000",
        "--mc-runs",
        "200",
        "--seed",
        "2",
    ]);
    let shares = [("simple", 0.6), ("medium", 0.3), ("complex", 0.1)];
    let ci = |mc: &serde_json::Value, key: &str| -> (f64, f64) {
        let c = &mc[format!("{key}_ci95")];
        (c[0].as_f64().unwrap(), c[1].as_f64().unwrap())
    };
    // (mean, lo, hi) of Σ wᵢ·xᵢ from the chains' mc objects
    let by_hand = |section: &str, pattern: &str, key: &str, weight: &dyn Fn(f64) -> f64| {
        let (mut mean, mut var) = (0.0, 0.0);
        for (chain, share) in shares {
            let mc = &row(&r, section, chain, pattern)["mc"];
            let (lo, hi) = ci(mc, key);
            let se = (hi - lo) / 2.0 / Z95;
            mean += weight(share) * num(mc, key);
            var += (weight(share) * se).powi(2);
        }
        let h = Z95 * var.sqrt();
        (mean, mean - h, mean + h)
    };
    let same = |what: &str, got: f64, want: f64| {
        assert!(
            (got - want).abs() <= 1e-9 * (1.0 + want.abs()),
            "{what}: {got} vs {want} by hand"
        );
    };
    for pattern in [
        "no-fallback",
        "sequential",
        "hedged-take-first",
        "hedged-no-cancel",
    ] {
        let b = row(&r, "steady", BLENDED, pattern);
        let mc = &b["mc"];
        assert_eq!(mc["requests"], 3 * 400000, "{pattern}");
        for key in [
            "cost_per_1k_usd",
            "failed_per_1k",
            "wasted_attempts_per_1k",
            "wasted_per_1k_usd",
        ] {
            let (mean, lo, hi) = by_hand("steady", pattern, key, &|s| s);
            let what = format!("steady {pattern} {key}");
            same(&what, num(mc, key), mean);
            same(&what, ci(mc, key).0, lo);
            same(&what, ci(mc, key).1, hi);
        }
        let (lo, hi) = ci(mc, "cost_per_1k_usd");
        let analytic = num(b, "cost_per_1k_usd");
        assert!(
            lo < hi && lo <= analytic && analytic <= hi,
            "steady {pattern}: analytic {analytic} not in [{lo}, {hi}]"
        );
        // vs_baseline follows the blended cost against the blended baseline
        let base = num(b, "baseline_per_1k_usd");
        same(
            &format!("steady {pattern} vs_baseline"),
            num(mc, "vs_baseline"),
            num(mc, "cost_per_1k_usd") / base - 1.0,
        );
        // The latency percentiles are the mixture's: between the chains' own.
        for key in ["latency_p50_s", "latency_p95_s", "latency_p99_s"] {
            let own: Vec<f64> = shares
                .iter()
                .map(|(c, _)| num(&row(&r, "steady", c, pattern)["mc"], key))
                .collect();
            let q = num(mc, key);
            let (min, max) = own
                .iter()
                .fold((f64::MAX, 0f64), |(a, b), x| (a.min(*x), b.max(*x)));
            assert!(min <= q && q <= max, "{pattern} {key}: {q} outside {own:?}");
        }

        let b = row(&r, "incident", BLENDED, pattern);
        let mc = &b["mc"];
        assert_eq!(mc["runs"], 200);
        for key in [
            "total_usd",
            "window_usd",
            "cold_start_usd",
            "failback_usd",
            "failed_requests",
            "wasted_attempts",
            "wasted_usd",
            "cold_starts",
            "failback_writes",
            "excess_usd",
        ] {
            let (mean, lo, hi) = by_hand("incident", pattern, key, &|_| 1.0);
            let what = format!("incident {pattern} {key}");
            same(&what, num(mc, key), mean);
            same(&what, ci(mc, key).0, lo);
            same(&what, ci(mc, key).1, hi);
        }
        let normal = num(mc, "normal_usd");
        same("normal", normal, num(b, "normal_usd"));
        same(
            &format!("incident {pattern} multiplier"),
            num(mc, "multiplier"),
            num(mc, "total_usd") / normal,
        );
        let (lo, hi) = ci(mc, "total_usd");
        let analytic = num(b, "total_usd");
        // no-fallback's window is deterministic here (every request fails on the dead primary)
        assert!(
            lo <= analytic * (1.0 + 1e-12) && analytic <= hi * (1.0 + 1e-12),
            "incident {pattern}: analytic {analytic} not in [{lo}, {hi}]"
        );
    }
    // Blended rows are in every format: the table's blended section and the CSV rows.
    let t = ok(&[
        "compare",
        "-s",
        "tests/fixtures/scenarios/tiers-shares.toml",
        "--mc",
        "400000",
        "--mc-runs",
        "200",
        "--seed",
        "2",
    ]);
    let blended = t
        .split("All chains, weighted by traffic share")
        .nth(1)
        .unwrap();
    assert!(blended.contains("MC $/1k ± 95%") && blended.contains("MC incident ± 95%"));
    // at 80 columns the Monte Carlo columns stack under the analytic ones: the row with ±
    let seq = blended
        .lines()
        .find(|l| l.contains("sequential") && l.contains(" ± "))
        .unwrap();
    let cost = num(
        &row(&r, "steady", BLENDED, "sequential")["mc"],
        "cost_per_1k_usd",
    );
    assert!(seq.contains(&format!("{cost:.2} ±")), "{seq}");
}
