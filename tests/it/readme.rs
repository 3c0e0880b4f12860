//! The README's examples stay true: the `compare` and `fallcost check` output it prints is what
//! the binary prints, and its scenario table lists every shipped scenario.

use crate::common;

use common::{fallcost, root};

/// README.md and the guide's pages (docs/guide/), as one text.
fn readme() -> String {
    common::docs()
}

/// The README's sample under "What you get" is the real start of the main job's output, line
/// for line (it shows the first of sept3's two chains).
#[test]
fn compare_sample_is_real() {
    let readme = readme();
    let shown = readme
        .split("```text\n")
        .find(|block| block.starts_with("Three providers down at once"))
        .expect("the README shows the sept3 output")
        .split("```")
        .next()
        .unwrap();
    let out = fallcost(&["compare", "--scenario", "scenarios/sept3.toml"]);
    assert_eq!(out.status.code(), Some(0));
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(shown.lines().count() > 30, "{shown}");
    assert!(
        out.starts_with(shown),
        "README sample:\n{shown}\nreal output:\n{out}"
    );
}

/// The README's `$ fallcost check scenarios/` block is the real output, line for line, and
/// its exit code (1: a finding) is the documented one.
#[test]
fn check_example_output_is_real() {
    let readme = readme();
    let shown: String = readme
        .split("$ fallcost check scenarios/\n")
        .nth(1)
        .expect("the README shows `$ fallcost check scenarios/`")
        .lines()
        .take_while(|l| !l.starts_with("```"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = fallcost(&["check", "scenarios/"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown);
}

/// Every file in `scenarios/` has a line in the README's scenario table, and the table names
/// no file that is not there.
#[test]
fn scenario_table_lists_every_scenario() {
    let readme = readme();
    let mut listed: Vec<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `scenarios/"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect();
    listed.sort();
    let mut files: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    assert_eq!(listed, files);
}

/// `1879.4736` as the tables print it: `1,879.47`.
fn usd(x: f64) -> String {
    let s = format!("{x:.2}");
    let (int, frac) = s.split_once('.').unwrap();
    format!("{}.{frac}", grouped(int))
}

/// A whole number with thousands separators: `2,040`.
fn grouped(int: &str) -> String {
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The README's row `| LABEL | total | x | [normal |] failed |` for `chain`'s sequential
/// incident row of `report`.
fn incident_line(report: &serde_json::Value, chain: &str, label: &str, normal: bool) -> String {
    let r = common::row(report, "incident", chain, "sequential");
    let n = |k: &str| common::num(r, k);
    let normal = if normal {
        format!(" {} |", usd(n("normal_usd")))
    } else {
        String::new()
    };
    format!(
        "| {label} | {} | {:.2}x |{normal} {} |",
        usd(n("total_usd")),
        n("multiplier"),
        grouped(&format!("{}", n("failed_requests")))
    )
}

/// The README's "September 3 as it happened" and "A drill" tables are the binary's figures,
/// and the commands they show are the ones run here.
#[test]
fn timeline_and_drill_tables_are_real() {
    let readme = readme();
    let sept3 = common::json(&["compare", "--scenario", "scenarios/sept3-timeline.toml"]);
    assert!(readme.contains("fallcost compare --scenario scenarios/sept3-timeline.toml\n"));
    for (chain, label) in [
        ("price-matched", "`price-matched`: Sonnet 5 → Sol"),
        (
            "three-providers",
            "`three-providers`: Sonnet 5 → Sol → Grok 4.7",
        ),
        ("best-available", "`best-available`: Sonnet 5 → Astra"),
    ] {
        let line = incident_line(&sept3, chain, label, false);
        assert!(readme.contains(&format!("{line}\n")), "README lacks {line}");
    }
    // The hand-computed figures of the section: 2,040 requests failed on the two-link chains,
    // 840 on the three-provider one.
    let pm = common::row(&sept3, "incident", "price-matched", "sequential");
    assert_eq!(common::num(pm, "failed_requests"), 2_040.0);
    // 9,120 × 0.0348 + 456.95 × (0.0972 + 0.1272) (docs/MODEL.md §6, "Timelines")
    common::close(common::num(pm, "total_usd"), 419.91558, 1e-9);

    let args = [
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--drill",
        "30m",
        "--set",
        "incident.requests_per_second=0.2",
    ];
    assert!(readme.contains(&format!("fallcost {}\n", args.join(" "))));
    let drill = common::json(&args);
    for (chain, label) in [
        ("price-matched", "`price-matched`: Sonnet 5 → Sol"),
        ("best-available", "`best-available`: Sonnet 5 → Astra"),
    ] {
        let line = incident_line(&drill, chain, label, true);
        assert!(readme.contains(&format!("{line}\n")), "README lacks {line}");
    }
    // By hand: 360 requests on Sol at $0.0348, 18 cold starts at $0.0972, 18 fail-back writes
    // at $0.1272.
    let pm = common::row(&drill, "incident", "price-matched", "sequential");
    common::close(
        common::num(pm, "total_usd"),
        360.0 * 0.0348 + 18.0 * 0.0972 + 18.0 * 0.1272,
        1e-9,
    );
}

/// The README's images are what its documented commands draw: every `--plot docs/img/X.svg`
/// command in a `sh` block, run with the plot written elsewhere, draws `docs/img/X.svg` byte for
/// byte (`scripts/readme-images.sh` redraws them all).
#[test]
fn readme_images_are_current() {
    let commands = plot_commands(&readme());
    assert!(commands.len() >= 2, "{commands:?}");
    let dir = std::env::temp_dir().join(format!("fallcost-readme-img-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (args, image) in &commands {
        let fresh = dir.join(image.rsplit('/').next().unwrap());
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if a == image {
                    fresh.to_str().unwrap()
                } else {
                    a.as_str()
                }
            })
            .collect();
        let out = fallcost(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "fallcost {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        let drawn = std::fs::read_to_string(&fresh).unwrap();
        let committed = std::fs::read_to_string(root().join(image)).unwrap();
        assert!(
            drawn == committed,
            "{image} is not what `fallcost {}` draws: run scripts/readme-images.sh",
            args.join(" ")
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `fallcost … --plot docs/img/X.svg` commands of the README's `sh` blocks (continued
/// lines joined): each command's arguments after `fallcost`, and the image path.
fn plot_commands(readme: &str) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for block in readme.split("```sh\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let joined = block.replace("\\\n", " ");
        for line in joined.lines() {
            let words: Vec<String> = line.split_whitespace().map(String::from).collect();
            let Some(at) = words.iter().position(|w| w == "--plot") else {
                continue;
            };
            if words.first().map(String::as_str) != Some("fallcost") {
                continue;
            }
            let image = words[at + 1].clone();
            if image.starts_with("docs/img/") {
                out.push((words[1..].to_vec(), image));
            }
        }
    }
    out
}

/// The command reader on a made-up README: continued lines joined, other blocks ignored.
#[test]
fn plot_commands_are_read_whole() {
    let text = "```sh\nfallcost sweep -s a.toml \\\n  --param x=0:1:1 --plot docs/img/a.svg\n```\n\
                ```text\nfallcost compare --plot docs/img/b.svg\n```\n\
                ```sh\nfallcost compare -s b.toml --plot /tmp/c.svg\n```\n";
    assert_eq!(
        plot_commands(text),
        [(
            [
                "sweep",
                "-s",
                "a.toml",
                "--param",
                "x=0:1:1",
                "--plot",
                "docs/img/a.svg"
            ]
            .map(String::from)
            .to_vec(),
            "docs/img/a.svg".to_string()
        )]
    );
}

/// The README's `$ fallcost reconcile` block under "Reconcile against the bill" is the real
/// output of the worked example, line for line.
#[test]
fn reconcile_example_output_is_real() {
    let readme = readme();
    let block = readme
        .split("$ fallcost reconcile examples/reconcile/*.json --pricing 2026-07 \\\n")
        .nth(1)
        .expect("the README shows the reconcile example");
    let mut lines = block.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .contains("--scenario examples/reconcile/team.toml")
    );
    let shown: String = lines
        .take_while(|l| !l.starts_with("```"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut args = vec!["reconcile"];
    let files = [
        "examples/reconcile/anthropic-costs.json",
        "examples/reconcile/anthropic-usage.json",
        "examples/reconcile/openai-costs.json",
        "examples/reconcile/openai-usage.json",
    ];
    args.extend(files);
    args.extend([
        "--pricing",
        "2026-07",
        "--scenario",
        "examples/reconcile/team.toml",
        "--incidents",
        "examples/reconcile/incidents.csv",
    ]);
    let out = fallcost(&args);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown);
}
