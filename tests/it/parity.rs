//! Parity with LiteLLM's own Router: `tests/fixtures/parity/walks.json` records, for every
//! config of that folder, the groups LiteLLM 1.110.2's `Router` tried for a request to each
//! group with every deployment mocked to fail, the model each call sent, and how its
//! simple-shuffle split 4,000 first picks of a group of several deployments
//! (`scripts/litellm-router-walks.py`, run by hand). fallcost's chains must walk the same groups
//! in the same order, call the same models, and give the same first-pick shares (within a
//! 5-sigma binomial tolerance of the counts; exactly where LiteLLM never picked a deployment).
//!
//! `cargo test --test it parity:: -- --nocapture` prints the parity table.

use std::collections::BTreeMap;

use fallcost::input::gateway::{Config, Route, litellm, parse_yaml};
use fallcost::input::pricing::bundled;
use serde_json::Value;

const DIR: &str = "tests/fixtures/parity";

/// The folders with recorded walks: the parity cases, and the second folder of real configs.
const DIRS: &[&str] = &[DIR, "tests/fixtures/real-configs-2"];

/// fallcost's reading of one config: its chains and groups.
fn routes(dir: &str, file: &str) -> Config {
    let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
    let root = parse_yaml(file, &text).unwrap().unwrap();
    let prices = bundled("litellm-1.110.2").unwrap();
    litellm::read(file, &root, &prices).unwrap()
}

/// The route of a request for `name`: its primary is `name` (a `fallbacks` chain).
fn route_of<'r>(routes: &'r [Route], name: &str) -> Option<&'r Route> {
    routes
        .iter()
        .find(|r| r.primary.label == name && r.name.ends_with(".fallbacks)"))
        .or_else(|| {
            routes
                .iter()
                .find(|r| r.primary.label == name && r.name.contains("fallbacks"))
        })
        .or_else(|| {
            // A group of several `order` tiers that no fallbacks chain starts at.
            routes
                .iter()
                .find(|r| r.primary.label == name && r.name.ends_with("(litellm_params.order)"))
        })
}

/// The groups a route walks, its primary first, and the models each step can call.
fn walk_of(route: Option<&Route>, name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let Some(r) = route else {
        return (vec![name.to_string()], vec![vec![]]);
    };
    let mut groups = vec![r.primary.label.clone()];
    let mut models = vec![
        r.primary
            .endpoints
            .iter()
            .map(|e| e.model.clone())
            .collect(),
    ];
    for l in &r.links {
        groups.push(l.fallback.label.clone());
        models.push(
            l.fallback
                .endpoints
                .iter()
                .map(|e| e.model.clone())
                .collect(),
        );
    }
    (groups, models)
}

#[test]
fn fallcost_walks_every_chain_as_litellms_router_does() {
    let mut table = vec![
        "| config | group | LiteLLM's walk | fallcost's | match |".to_string(),
        "|---|---|---|---|---|".to_string(),
    ];
    let mut failures = Vec::new();
    for dir in DIRS {
        compare_folder(dir, &mut table, &mut failures);
    }
    let rows = table.len() - 2;
    let matches = table.iter().filter(|r| r.ends_with("| yes |")).count();
    println!("{}", table.join("\n"));
    println!("parity: {matches} of {rows} recorded walks match");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rows of one folder's recorded walks, and a failure for each that does not match.
fn compare_folder(dir: &str, table: &mut Vec<String>, failures: &mut Vec<String>) {
    let text = std::fs::read_to_string(format!("{dir}/walks.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["litellm_version"], "1.110.2");
    let samples = doc["samples"].as_f64().unwrap();
    let configs = doc["configs"].as_object().unwrap();
    assert!(configs.len() >= 10, "{} configs", configs.len());
    for (file, groups) in configs {
        let config = routes(dir, file);
        let routes: &[Route] = &config.chains;
        for (name, record) in groups.as_object().unwrap() {
            let calls = record["walk"].as_array().unwrap();
            let theirs: Vec<String> = calls
                .iter()
                .map(|c| c["group"].as_str().unwrap().to_string())
                .collect();
            let their_models: Vec<&str> =
                calls.iter().map(|c| c["model"].as_str().unwrap()).collect();
            // A request for a name no deployment serves fails before any call: it has no
            // primary to price (fallcost warns that the chain never fires).
            if theirs.first() != Some(name) {
                assert!(route_of(routes, name).is_none(), "{file}: {name}");
                table.push(format!(
                    "| {file} | `{name}` | (no deployment) {} | no chain: never fires | yes |",
                    theirs.join(" → ")
                ));
                continue;
            }
            let mut route = route_of(routes, name);
            let mut alias = String::new();
            if route.is_none() && theirs.len() > 1 {
                // A fallbacks key that applies to a group (`openai/gpt-4o-mini` to the group
                // `gpt-4o-mini`) and that a request may also name: fallcost judges that chain
                // once, as the group's, whose deployments the request reaches.
                route = routes.iter().find(|r| {
                    r.primary
                        .endpoints
                        .iter()
                        .any(|e| e.model == their_models[0])
                        && r.links.iter().map(|l| &l.fallback.label).eq(&theirs[1..])
                });
                if let Some(r) = route {
                    alias = format!(" (the chain of group `{}`)", r.primary.label);
                }
            }
            let (mut ours, our_models) = walk_of(route, name);
            if !alias.is_empty() {
                ours[0] = name.clone();
            }
            let mut ok = ours == theirs;
            // Each call's model is one the step's deployments call.
            for (i, m) in their_models.iter().enumerate() {
                ok &= our_models
                    .get(i)
                    .is_some_and(|ms| ms.is_empty() || ms.iter().any(|x| x == m));
            }
            let mut shares_note = String::new();
            if let Some(picks) = record.get("first_pick").and_then(Value::as_object) {
                // A group without fallbacks is judged by its traffic shares alone.
                let primary = route.map(|r| &r.primary).unwrap_or_else(|| {
                    config
                        .groups
                        .iter()
                        .find(|g| g.label == *name)
                        .expect("a group of several deployments")
                });
                let shares = primary.shares.as_ref().unwrap();
                let mut ours_by_model: BTreeMap<&str, f64> = BTreeMap::new();
                for (e, s) in primary.endpoints.iter().zip(shares) {
                    *ours_by_model.entry(e.model.as_str()).or_default() += s;
                }
                let mut shown = Vec::new();
                for (model, p) in &ours_by_model {
                    let count = picks.get(*model).and_then(Value::as_f64).unwrap_or(0.0);
                    let seen = count / samples;
                    let tol = 5.0 * (p * (1.0 - p) / samples).sqrt() + 1e-12;
                    let fits = (seen - p).abs() <= tol;
                    ok &= fits;
                    shown.push(format!("{model} {:.1}%/{:.1}%", 100.0 * seen, 100.0 * p));
                }
                shares_note = format!(" (first picks LiteLLM/fallcost: {})", shown.join(", "));
            }
            table.push(format!(
                "| {file} | `{name}` | {} | {}{alias}{shares_note} | {} |",
                theirs.join(" → "),
                ours.join(" → "),
                if ok { "yes" } else { "**no**" }
            ));
            if !ok {
                failures.push(format!(
                    "{file} `{name}`: LiteLLM {theirs:?} calling {their_models:?}, fallcost {ours:?} calling {our_models:?}{shares_note}"
                ));
            }
        }
    }
}

/// The prices LiteLLM bills a deployment with a price of its own at (`prices` in walks.json:
/// the model info its router registered) are the config prices fallcost reads for it: the
/// `litellm_params` price where `model_info` sets another (`prices-both.yaml`).
#[test]
fn fallcost_reads_the_config_prices_litellm_bills() {
    for dir in DIRS {
        billed_prices_match(dir);
    }
}

/// One folder's recorded prices against fallcost's.
fn billed_prices_match(dir: &str) {
    let text = std::fs::read_to_string(format!("{dir}/walks.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let files = doc["prices"].as_object().unwrap();
    assert!(dir != DIR || files.contains_key("prices-both.yaml"));
    for (file, models) in files {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        let root = parse_yaml(file, &text).unwrap().unwrap();
        let prices = bundled("litellm-1.110.2").unwrap();
        let config = litellm::read(file, &root, &prices).unwrap();
        for (model, billed) in models.as_object().unwrap() {
            let ep = config
                .groups
                .iter()
                .flat_map(|g| &g.endpoints)
                .find(|e| {
                    // A deployment with a base_model is priced as it; its call is `model`.
                    e.model == *model
                        || e.deployment
                            .as_deref()
                            .is_some_and(|d| d.contains(&format!("{model:?}")))
                })
                .unwrap_or_else(|| panic!("{file}: no deployment of {model}"));
            // fallcost holds $/MTok; LiteLLM $/token.
            for (ours, key) in [
                (ep.price_override.input, "input_cost_per_token"),
                (ep.price_override.output, "output_cost_per_token"),
            ] {
                let theirs = billed[key].as_f64().unwrap() * 1e6;
                let ours = ours.unwrap_or_else(|| panic!("{file} {model}: no {key}"));
                assert!(
                    (ours - theirs).abs() <= 1e-12 * theirs,
                    "{file} {model} {key}: fallcost {ours} $/MTok, LiteLLM bills {theirs}"
                );
            }
        }
    }
}
