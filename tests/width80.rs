//! End to end at `COLUMNS=80` (the helpers in `common` set it): every line of the price
//! table, `prices --list`, `--version`, `completions --help` and a scenario of long real model
//! ids fits 80 columns, and nothing is split over many stacked copies of the same rows.

mod common;

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

#[test]
fn the_whole_price_table_fits_in_two_tables() {
    let t = ok(&["prices"]);
    assert_eq!(too_wide(&t), vec![], "prices");
    // was 10 tables of 3,585 rows with one price column each, 115-165 columns wide
    assert_eq!(tables(&t), 2);
    // the prices together in the first table
    // each table's header: the line under its top border
    let lines: Vec<&str> = t.lines().collect();
    let headers: Vec<&str> = (1..lines.len())
        .filter(|&i| lines[i - 1].starts_with('┌'))
        .map(|i| lines[i])
        .collect();
    let header = headers[0];
    for col in ["input", "cache read", "output"] {
        assert!(header.contains(col), "{header}");
    }
    // caching, TTL and minimum prefix folded into one column, the tiers into another
    let second = headers[1];
    assert!(
        second.contains("caching") && second.contains("tiers"),
        "{second}"
    );
}

#[test]
fn a_filtered_price_list_is_one_table() {
    let t = ok(&["prices", "gemini-2.5-pro"]);
    assert_eq!(too_wide(&t), vec![], "{t}");
    assert_eq!(tables(&t), 1, "{t}");
    assert!(t.contains("7 of 3,683 models shown"), "{t}");
    // the provider in the model cell when the id does not start with it; caching folded
    assert!(t.contains("(vertex_"), "{t}");
    assert!(t.contains("10m ≥2,048"), "{t}");
    let t = ok(&["prices", "claude*4-5"]);
    assert_eq!(too_wide(&t), vec![], "{t}");
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
