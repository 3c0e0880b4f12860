//! End to end: `fallcost check` on Portkey and OpenRouter configs held to the LiteLLM bar
//! (issue 23, item 5): OpenRouter's `provider.order` as a chain priced per provider, Portkey
//! slugs that name no provider, did-you-mean that never names another provider's price as this
//! one's, and the real public Portkey configs of `tests/fixtures/real-configs/`.
//!
//! Prices from the bundled LiteLLM snapshot (`litellm-1.110.2`) at the default profile (2,000
//! input / 500 output tokens), USD per 1,000 requests: `1000 × (2000 × input + 500 × output)`
//! with the table's USD per token.

mod common;

use common::fallcost;
use serde_json::Value;

const FIX: &str = "tests/fixtures/check";

/// Run `fallcost check ARGS --pricing litellm-1.110.2 --format json`, expecting exit `code`.
fn check_json(args: &[&str], code: i32) -> Value {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--pricing", "litellm-1.110.2", "--format", "json"]);
    let out = fallcost(&all);
    assert_eq!(
        out.status.code(),
        Some(code),
        "fallcost {}\nstdout:\n{}\nstderr:\n{}",
        all.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn findings<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .collect()
}

fn message(f: &Value) -> &str {
    f["message"].as_str().unwrap()
}

/// Per 1,000 requests at 2,000 in / 500 out, from USD per token.
fn per_1k(input: f64, output: f64) -> f64 {
    1000.0 * (2000.0 * input + 500.0 * output)
}

/// Portkey targets through slugs that name no Portkey provider (`@prod-key`, virtual keys or
/// integrations) are of unknown provider: a chain through them is never counted as crossing
/// providers (before: `@prod-key/gpt-4o -> @backup-key/claude-sonnet-4-5` passed silently, as
/// OpenAI -> Anthropic), one slug throughout is one provider, and providers the config names
/// that already span two failure domains need no warning.
#[test]
fn unknown_slugs_are_unknown_providers() {
    let dir = format!("{FIX}/portkey-slugs");
    let doc = check_json(&[&format!("{dir}/unknown-slugs-cross-model.json")], 0);
    let unknown = findings(&doc, "unknown-provider");
    assert_eq!(unknown.len(), 1, "{doc:#}");
    assert_eq!(unknown[0]["severity"], "warning");
    assert_eq!(unknown[0]["line"], 2);
    assert!(
        message(unknown[0]).starts_with(
            "chain `config (fallback)`: `@prod-key`, `@backup-key` name no Portkey provider"
        ),
        "{}",
        message(unknown[0])
    );
    assert!(message(unknown[0]).contains("not counted as crossing providers"));
    // The prices are the table's entries for the models, said so in the notes.
    let notes = findings(&doc, "price-source");
    assert_eq!(notes.len(), 2);
    assert_eq!(
        message(notes[0]),
        "the slug `@prod-key` names no Portkey provider: the provider of `gpt-4o` there is unknown; priced from openai's entry `gpt-4o` in litellm-1.110.2"
    );
    // A warning: it fails the gate under --deny-warnings.
    check_json(
        &[
            &format!("{dir}/unknown-slugs-cross-model.json"),
            "--deny-warnings",
        ],
        1,
    );

    // One slug for every target: one key, one provider, whatever the models.
    let doc = check_json(&[&format!("{dir}/one-slug.json")], 0);
    let unknown = findings(&doc, "unknown-provider");
    assert_eq!(unknown.len(), 1, "{doc:#}");
    assert!(message(unknown[0]).contains("every target goes through `@team-gateway`"));
    assert!(message(unknown[0]).ends_with("it survives a deprecation, not an outage"));

    // `provider: openai` and `provider: anthropic` already cross providers: no warning for the
    // unknown slug between them.
    let doc = check_json(&[&format!("{dir}/named-providers.json")], 0);
    assert!(findings(&doc, "unknown-provider").is_empty(), "{doc:#}");
    assert!(findings(&doc, "same-provider").is_empty());
}
