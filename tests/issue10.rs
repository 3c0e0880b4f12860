//! Regression tests of issue 10, items 3 to 10: each pins a figure that was silently wrong.

mod common;

use std::path::PathBuf;

use common::{fails_in, fallcost_in};

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fallcost-issue10-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_ok(d: &std::path::Path, args: &[&str]) -> String {
    let out = fallcost_in(d, args);
    assert!(
        out.status.success(),
        "fallcost {} exited {:?}\n{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Item 7: `failover_on` holding the default classes in another order is the default policy:
/// no "Retries, caps and attribution" table whose MC column is all "–" (the table was laid out
/// by an order-sensitive comparison, the simulator chosen by a set comparison).
#[test]
fn default_failover_classes_in_another_order_are_the_default_policy() {
    let d = dir("order");
    std::fs::write(
        d.join("s.toml"),
        "name = \"order\"\npricing = \"2026-07\"\n\
         [request]\ninput_tokens = 2000\noutput_tokens = 500\n\
         [steady]\nfailure_rate = 0.1\n\
         [policy]\nfailover_on = [\"timeout\", \"server_error\", \"overload\", \"rate_limit\"]\n\
         [[chain]]\nname = \"c\"\nmodels = [\"anthropic/claude-sonnet-5\", \"openai/gpt-6-sol\"]\n",
    )
    .unwrap();
    let out = run_ok(
        &d,
        &["compare", "--scenario", "s.toml", "--mc", "2e4", "--seed", "1"],
    );
    assert!(!out.contains("Retries, caps and attribution"), "{out}");
    // The same classes in the default order print the same report.
    std::fs::write(
        d.join("t.toml"),
        std::fs::read_to_string(d.join("s.toml")).unwrap().replace(
            "[\"timeout\", \"server_error\", \"overload\", \"rate_limit\"]",
            "[\"rate_limit\", \"overload\", \"server_error\", \"timeout\"]",
        ),
    )
    .unwrap();
    let same = run_ok(
        &d,
        &["compare", "--scenario", "t.toml", "--mc", "2e4", "--seed", "1"],
    );
    assert_eq!(out.replace("s.toml", "X"), same.replace("t.toml", "X"));
}
