//! End to end: `fallcost sweep` over the shipped scenarios.

use crate::common;

use common::{close, fails, ok, root};

fn csv_rows(text: &str) -> (csv::StringRecord, Vec<csv::StringRecord>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let h = r.headers().unwrap().clone();
    (h, r.records().map(|x| x.unwrap()).collect())
}

/// Sweeping `steady.failure_rate` on the failover-chains scenario sets every link's rate (the
/// scalar replaces the file's per-link list). Per 1,000, with gray attempts of $17.50 (Sol),
/// $6.50 (cold Sonnet) and $3.25 (cold Haiku), sequential costs
/// (1−q)·25 + q·(17.50 + (1−q)·9 + q·(6.50 + (1−q)·4.50 + q·3.25)).
/// Chains with their own `failure_rates` keep them: chain overrides win.
#[test]
fn failure_rate_sweep_matches_the_closed_form() {
    let out = ok(&[
        "sweep",
        "--scenario",
        "scenarios/failover-chains.toml",
        "--param",
        "steady.failure_rate=0:0.1:0.05",
        "--format",
        "csv",
    ]);
    let (h, rows) = csv_rows(&out);
    assert_eq!(&h[0], "steady.failure_rate");
    assert_eq!(rows.len(), 3 * 4 * 4);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let mut checked = 0;
    for r in &rows {
        let q: f64 = r[0].parse().unwrap();
        let cost: f64 = r[col("cost_per_1k_usd")].parse().unwrap();
        match (&r[col("chain")], &r[col("pattern")]) {
            ("sol-sonnet-haiku", "sequential") => {
                let want = (1.0 - q) * 25.0
                    + q * (17.5 + (1.0 - q) * 9.0 + q * (6.5 + (1.0 - q) * 4.5 + q * 3.25));
                close(cost, want, 1e-9);
                checked += 1;
            }
            ("timeout-4s-partial", "sequential") => {
                close(cost, 25.075, 1e-9);
                checked += 1;
            }
            _ => {}
        }
    }
    assert_eq!(checked, 6);
}

/// Two parameters make a grid, the last varying fastest; durations step in seconds.
#[test]
fn grid_of_two_parameters() {
    let out = ok(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "incident.duration=1h:3h:1h",
        "--param",
        "request.cache_hit_rate=0.8:0.9:0.1",
        "-f",
        "csv",
    ]);
    let (h, rows) = csv_rows(&out);
    assert_eq!(&h[0], "incident.duration");
    assert_eq!(&h[1], "request.cache_hit_rate");
    assert_eq!(rows.len(), 3 * 2 * 2 * 4);
    assert_eq!((&rows[0][0], &rows[0][1]), ("3600", "0.8"));
    assert_eq!((&rows[8][0], &rows[8][1]), ("3600", "0.9"));
    assert_eq!(&rows[16][0], "7200");
}

#[test]
fn plot_writes_an_svg() {
    let dir = std::env::temp_dir().join(format!("fallcost-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("cost.svg");
    ok(&[
        "sweep",
        "--scenario",
        "scenarios/failover-chains.toml",
        "--param",
        "steady.failure_rate=0:0.2:0.05",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..100.min(text.len())]);
    for label in [
        // one panel per chain, the patterns named once in the legend and at each line's end
        ">sol-sonnet-haiku</text>",
        ">sequential</text>",
        ">hedged-no-cancel*</text>",
        "steady.failure_rate",
        "Sol → Sonnet 5 → Haiku 4.5",
        // no-fallback falls as failures rise: 200 failed per 1,000 at 0.2, said on the chart
        "* falls as failures rise: failed requests are not billed",
        "failed per 1,000 at 0.2: no-fallback 200",
    ] {
        assert!(text.contains(label), "{label} missing from the plot");
    }
    assert!(!text.contains("-&gt;"), "arrows are drawn as →");
    assert!(
        !text.contains("sol-sonnet-haiku / "),
        "no chain name in the legend"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_sweeps_exit_2_with_one_line() {
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "x=1:0:1",
    ]);
    assert!(
        e.contains("--param `x=1:0:1`: TO must not be below FROM"),
        "{e}"
    );
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "steady.failure_rate=0:2:1",
    ]);
    assert!(
        e.contains("error: --param steady.failure_rate=2: must be in [0, 1]; got 2"),
        "{e}"
    );
    assert!(e.contains("(at steady.failure_rate=2)"), "{e}");
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "steady.failure_rate=0:1:1",
        "--param",
        "incident.duration=1h:2h:1h",
        "--plot",
        root().join("never.svg").to_str().unwrap(),
    ]);
    assert!(e.contains("--plot draws cost against one parameter"), "{e}");
    assert!(!root().join("never.svg").exists());
}

#[test]
fn repeated_keys_and_clashing_files_are_refused() {
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "steady.failure_rate=0:0.1:0.05",
        "--param",
        "steady.failure_rate=0.2:0.3:0.1",
    ]);
    assert!(
        e.contains("--param steady.failure_rate is given twice"),
        "{e}"
    );
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "steady.failure_rate=0:0.1:0.05",
        "--plot",
        "x.svg",
        "--output",
        "x.svg",
        "--format",
        "table",
    ]);
    assert!(e.contains("--plot and --output both name x.svg"), "{e}");
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/sept3.toml",
        "--param",
        "x=0:nan:0.1",
    ]);
    assert!(
        e.contains("`nan` is not a number") || e.contains("STEP must be"),
        "{e}"
    );
}

/// `--mc` adds the simulated figures at every grid point, named as in `compare`'s CSV: the
/// seed and requests, each mean with its 95% interval (`_ci95_lo`, `_ci95_hi`), the
/// `mc_latency_*` percentiles; the same seed gives the same sweep. A tight timeout trips
/// healthy requests (cost up, p99 down); near the primary's p99 the cost returns to the
/// healthy figure.
#[test]
fn timeout_sweep_with_monte_carlo() {
    let args = [
        "sweep",
        "--scenario",
        "scenarios/timeout.toml",
        "--param",
        "policy.timeout_s=2:10:4",
        "--mc",
        "50000",
        "--seed",
        "7",
        "-f",
        "csv",
    ];
    let out = ok(&args);
    assert_eq!(out, ok(&args), "same seed, same sweep");
    let (h, rows) = csv_rows(&out);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let seq: Vec<&csv::StringRecord> = rows
        .iter()
        .filter(|r| &r[col("pattern")] == "sequential")
        .collect();
    assert_eq!(seq.len(), 3);
    let cost = |r: &csv::StringRecord| r[col("cost_per_1k_usd")].parse::<f64>().unwrap();
    let p99 = |r: &csv::StringRecord| r[col("mc_latency_p99_s")].parse::<f64>().unwrap();
    assert!(cost(seq[0]) > cost(seq[1]) && cost(seq[1]) > cost(seq[2]));
    assert!(p99(seq[0]) < p99(seq[2]));
    // at a 10 s timeout, trips are rare: within a cent per 1,000 of the 0.5%-gray figure
    close(cost(seq[2]), 25.0075, 0.01);
    assert!(!h.iter().any(|c| c.starts_with("latency_")), "{h:?}");
    for r in &rows {
        assert_eq!((&r[col("mc_seed")], &r[col("mc_requests")]), ("7", "50000"));
        let f = |c: &str| -> f64 { r[col(c)].parse().unwrap() };
        let mc = f("mc_cost_per_1k_usd");
        let (lo, hi) = (
            f("mc_cost_per_1k_usd_ci95_lo"),
            f("mc_cost_per_1k_usd_ci95_hi"),
        );
        assert!(lo <= mc && mc <= hi && hi - lo < 1.0, "{lo} {mc} {hi}");
        close(mc, f("cost_per_1k_usd"), 0.5);
        let (p50, p95) = (f("mc_latency_p50_s"), f("mc_latency_p95_s"));
        assert!(0.0 < p50 && p50 <= p95 && p95 <= f("mc_latency_p99_s"));
    }
    // JSON: the seed at the top, each row's figures in an `mc` object as compare's rows have
    let format = args.len() - 1;
    let mut json_args = args.to_vec();
    json_args[format] = "json";
    let j: serde_json::Value = serde_json::from_str(&ok(&json_args)).unwrap();
    assert_eq!(j["mc"]["seed"], 7);
    assert_eq!(j["mc"]["requests"], 50000);
    let first = &j["rows"][0];
    let m = &first["mc"];
    let ci = m["cost_per_1k_usd_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64() <= m["cost_per_1k_usd"].as_f64());
    assert!(m["cost_per_1k_usd"].as_f64() <= ci[1].as_f64());
    assert!(m["latency_p99_s"].is_number());
    assert!(first.get("latency_p99_s").is_none() && first.get("mc_cost_per_1k_usd").is_none());
    // the table: the interval beside the simulated cost, and the seed in the preamble
    let mut table_args = args.to_vec();
    table_args[format] = "table";
    // wide enough for the preamble's line to stay one line
    let t = common::ok_cols(200, &table_args);
    assert!(
        t.contains(
            "Monte Carlo: 50,000 requests per chain at each point, seed 7; ± is the 95% interval"
        ),
        "{t}"
    );
    assert!(t.contains("MC $/1k ± 95%") && t.contains("p95 s"), "{t}");
    assert!(t.contains("25.01 ± 0.0"), "{t}");
}

/// A sweep over some of a traffic-share scenario's chains has no blended rows either, and says
/// so once (not once per grid point).
#[test]
fn chain_subset_sweep_drops_the_blend() {
    let out = common::fallcost(&[
        "sweep",
        "--scenario",
        "scenarios/policies.toml",
        "--chain",
        "complex",
        "--param",
        "steady.failure_rate=0:0.02:0.01",
        "-f",
        "csv",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "fallcost: note: the blended rows (all chains, weighted by traffic share) are left out: the blend needs every chain's traffic_share, and --chain selected 1 of the 3 chains\n"
    );
    let (h, rows) = csv_rows(&String::from_utf8(out.stdout).unwrap());
    let col = h.iter().position(|x| x == "chain").unwrap();
    assert_eq!(rows.len(), 3 * 4);
    assert!(rows.iter().all(|r| &r[col] == "complex"));
}

/// `--param` takes a quoted dotted key as `--set` does: the primary's median latency swept on
/// `[latency."openai/gpt-5.6-sol"]`, the key printed as given; the same key spelled twice is
/// refused.
#[test]
fn param_reaches_a_latency_entry_of_a_model_with_a_dot() {
    let key = r#"latency."openai/gpt-5.6-sol".p50_s"#;
    let out = ok(&[
        "sweep",
        "--scenario",
        "scenarios/hedge-latency.toml",
        "--chain",
        "sol-sonnet-haiku",
        "--param",
        &format!("{key}=1:2:1"),
        "-f",
        "csv",
    ]);
    let (h, rows) = csv_rows(&out);
    assert_eq!(&h[0], key);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let seq: Vec<f64> = rows
        .iter()
        .filter(|r| &r[col("pattern")] == "sequential")
        .map(|r| r[col("cost_per_1k_usd")].parse().unwrap())
        .collect();
    assert_eq!(seq.len(), 2);
    // the file's p50 is 2 s: the second point is the file's own figure
    let file = common::json(&[
        "compare",
        "-s",
        "scenarios/hedge-latency.toml",
        "--chain",
        "sol-sonnet-haiku",
    ]);
    close(
        seq[1],
        common::num(
            common::row(&file, "steady", "sol-sonnet-haiku", "sequential"),
            "cost_per_1k_usd",
        ),
        1e-12,
    );
    assert!(seq[0] < seq[1], "{seq:?}");
    let e = fails(&[
        "sweep",
        "--scenario",
        "scenarios/hedge-latency.toml",
        "--param",
        "steady.failure_rate=0:0.1:0.05",
        "--param",
        r#""steady"."failure_rate"=0.2:0.3:0.1"#,
    ]);
    assert!(
        e.contains(r#"--param "steady"."failure_rate" is given twice"#),
        "{e}"
    );
}

/// `--plot` draws SVG only: any other extension (or none) is refused before anything runs,
/// exit 2, naming the flag and what is allowed; `.SVG` is an SVG.
#[test]
fn plot_refuses_anything_but_svg() {
    let dir = std::env::temp_dir().join(format!("fallcost-plot-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, got) in [
        ("out.png", "`.png`"),
        ("out.svg.pdf", "`.pdf`"),
        ("out", "no extension"),
    ] {
        let path = dir.join(name);
        let path = path.to_str().unwrap();
        let e = fails(&[
            "sweep",
            "--scenario",
            "scenarios/failover-chains.toml",
            "--param",
            "steady.failure_rate=0:0.2:0.1",
            "--plot",
            path,
        ]);
        assert_eq!(
            e,
            format!(
                "error: invalid value '{path}' for '--plot <FILE.svg>': the plot is drawn as SVG only: give a file name ending in .svg; got {got} (see `fallcost sweep --help`)\n"
            )
        );
        assert!(!std::path::Path::new(path).exists());
    }
    let upper = dir.join("COST.SVG");
    ok(&[
        "sweep",
        "--scenario",
        "scenarios/failover-chains.toml",
        "--param",
        "steady.failure_rate=0:0.2:0.1",
        "--plot",
        upper.to_str().unwrap(),
    ]);
    assert!(std::fs::read_to_string(&upper).unwrap().starts_with("<svg"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scenario without an `[incident]` sweeps its steady state only, and says so: the title
/// promised "and the incident" with no incident column to show.
#[test]
fn sweep_without_an_incident_titles_the_steady_state_only() {
    let out = ok(&[
        "sweep",
        "-s",
        "tests/fixtures/scenarios/tiny.toml",
        "--param",
        "request.output_tokens=100:200:100",
    ]);
    assert!(
        out.contains("Steady state per 1,000 requests at each point"),
        "{out}"
    );
    assert!(!out.contains("incident"), "{out}");
    // wide enough that the `incident USD` header stays on one line
    let with = common::ok_cols(
        200,
        &[
            "sweep",
            "-s",
            "scenarios/sept3.toml",
            "--param",
            "request.output_tokens=100:200:100",
        ],
    );
    assert!(with.contains("and the incident, at each point"), "{with}");
    assert!(with.contains("incident USD"), "{with}");
}
