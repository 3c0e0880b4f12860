//! End to end at `COLUMNS=80` (the helpers in `common` set it): `prices --list`, `--version`,
//! `completions --help` and a scenario of long real model ids fit 80 columns, a price table is
//! one line per model with its id whole, and nothing is split over many stacked copies of the
//! same rows.

use crate::common;

use common::ok;

/// The lines of `text` wider than 80 columns (one per character: the output holds no wide
/// characters), with their widths.
fn too_wide(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .map(|l| (l.chars().count(), l.to_string()))
        .filter(|(n, _)| *n > 80)
        .collect()
}

/// How many tables `text` draws (their top-left corners).
fn tables(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with('┌')).count()
}

/// The rows of a price table too wide for 80 columns with its ids whole (the aligned layout
/// without borders): the lines after the rule under its header.
fn plain_rows(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with('─'))
        .skip(1)
        .collect()
}

/// The whole table at 80 columns: one line per model with its id whole (the ids of real
/// tables run to 60 columns, so a boxed table wrapped each over 3 or 4 lines), the prices
/// together, caching, TTL and minimum prefix folded into one column, the tiers into another;
/// the preamble still wrapped to 80.
#[test]
fn the_whole_price_table_is_one_line_per_model() {
    let t = ok(&["prices"]);
    assert_eq!(tables(&t), 0, "no boxed table");
    let rows = plain_rows(&t);
    assert_eq!(rows.len(), 3683);
    let json = common::json(&["prices"]);
    let ids: Vec<&String> = json["models"].as_object().unwrap().keys().collect();
    for id in &ids {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!("{id} "))),
            "{id} not whole at the start of a row"
        );
    }
    let header: String = t
        .lines()
        .take_while(|l| !l.starts_with('─'))
        .skip_while(|l| !l.starts_with("USD per 1,000,000 tokens"))
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n");
    for col in [
        "model", "input", "cache", "read", "output", "caching", "tiers",
    ] {
        assert!(header.contains(col), "{header}");
    }
    let preamble: Vec<&str> = t
        .lines()
        .take_while(|l| !l.starts_with("USD per 1,000,000 tokens"))
        .collect();
    assert_eq!(too_wide(&preamble.join("\n")), vec![], "prices");
}

/// A filtered list too wide for a boxed table with its ids whole: one line per model, the id
/// first and whole, the provider last; caching folded into one column. A table that fits is
/// one boxed table.
#[test]
fn a_filtered_price_list_is_one_line_per_model() {
    let t = ok(&["prices", "gemini-2.5-pro"]);
    assert!(t.contains("7 of 3,683 models shown"), "{t}");
    let rows = plain_rows(&t);
    assert_eq!(rows.len(), 7, "{t}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("gemini-2.5-pro ") && r.ends_with(" vertex_ai-language-models")),
        "{t}"
    );
    assert!(t.contains("10m ≥2,048"), "{t}");
    let t = ok(&["prices", "claude*4-5"]);
    let rows = plain_rows(&t);
    assert!(rows.len() > 10, "{t}");
    assert!(
        rows.iter()
            .all(|r| r.contains("claude") && r.contains("4-5")),
        "{t}"
    );
    let t = ok(&["prices", "--pricing", "2026-07"]);
    assert_eq!(too_wide(&t), vec![], "{t}");
    assert_eq!(tables(&t), 1, "{t}");
}

/// `prices gpt-4o` at 80 columns: one line per model (47 models, not 274 lines of wrapped
/// ids), each id whole, and no `cache write` column: no model of the 47 prices a cache write.
#[test]
fn gpt_4o_prices_are_one_line_per_model_with_whole_ids() {
    let t = ok(&["prices", "gpt-4o"]);
    assert!(t.contains("47 of 3,683 models shown"), "{t}");
    let rows = plain_rows(&t);
    assert_eq!(rows.len(), 47, "{t}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("azure/global-standard/gpt-4o-2024-08-06 ")),
        "{t}"
    );
    let header: Vec<&str> = t
        .lines()
        .skip_while(|l| !l.starts_with("USD per 1,000,000 tokens"))
        .take_while(|l| !l.starts_with('─'))
        .collect();
    assert!(header.iter().any(|l| l.contains("read")), "{t}");
    assert!(!header.iter().any(|l| l.contains("write")), "{t}");
    assert!(t.lines().count() < 70, "{t}");
}

#[test]
fn the_list_and_the_version_fit() {
    for args in [&["prices", "--list"][..], &["--version"][..]] {
        let t = ok(args);
        assert_eq!(too_wide(&t), vec![], "{args:?}: {t}");
        // each bundled table's source on its own indented line
        assert_eq!(t.matches("\n    source: ").count(), 2, "{t}");
    }
}

#[test]
fn help_examples_are_not_broken_mid_command() {
    let t = ok(&["completions", "--help"]);
    assert_eq!(too_wide(&t), vec![], "{t}");
    assert!(
        t.contains(
            "  fallcost completions bash \\\n    > ~/.local/share/bash-completion/completions/fallcost\n"
        ),
        "{t}"
    );
    let t = ok(&["calibrate", "--help"]);
    assert_eq!(too_wide(&t), vec![], "{t}");
}

#[test]
fn long_model_ids_wrap_inside_their_cells() {
    let scenario = "tests/fixtures/scenarios/long-ids.toml";
    for mc in [&[][..], &["--mc", "2000", "--seed", "1"][..]] {
        let args: Vec<&str> = ["compare", "--scenario", scenario]
            .into_iter()
            .chain(mc.iter().copied())
            .collect();
        let t = ok(&args);
        assert_eq!(too_wide(&t), vec![], "{t}");
        assert!(t.contains("Retries, caps and attribution"), "{t}");
        // the answered-by cell wraps (was 143 columns), the id broken after its dots and dashes
        assert!(t.contains("┆ 20250929-v1: ┆"), "{t}");
        // a failover-cache cell that fits keeps its id whole (was 83-85 columns)
        assert!(
            t.contains("│ (us.anthropic.claude-sonnet-4-5-20250929-v1:0) ┆"),
            "{t}"
        );
    }
}
