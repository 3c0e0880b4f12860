//! The listing of the values `compare --config` and `sweep --config` took from gateway configs
//! ("Taken from the config: ..." before the tables; `config` and `config_shared` in JSON; lines
//! on standard error beside CSV).

use crate::model::provenance::Provenance;

/// TOML/JSON string literal, as chain names are quoted in the listing.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// The entries every chain of one config shares (the same value from the same line), when the
/// config has two chains or more: `(config, chain names, entries)`, in the configs' order; and
/// the rest, each chain's own.
#[allow(clippy::type_complexity)]
fn split_shared(
    provenance: &[Provenance],
) -> (
    Vec<(String, Vec<String>, Vec<&Provenance>)>,
    Vec<&Provenance>,
) {
    let mut configs: Vec<(String, Vec<String>)> = Vec::new();
    for p in provenance {
        match configs.iter_mut().find(|(c, _)| *c == p.config) {
            Some((_, chains)) => {
                if !chains.contains(&p.chain) {
                    chains.push(p.chain.clone());
                }
            }
            None => configs.push((p.config.clone(), vec![p.chain.clone()])),
        }
    }
    let key = |p: &Provenance| (p.config.clone(), p.what.clone(), p.file.clone(), p.line);
    let mut shared = Vec::new();
    let mut shared_keys = Vec::new();
    for (config, chains) in &configs {
        if chains.len() < 2 {
            continue;
        }
        let mut entries: Vec<&Provenance> = Vec::new();
        for p in provenance
            .iter()
            .filter(|p| p.chain == chains[0] && p.config == *config)
        {
            let everywhere = chains
                .iter()
                .all(|c| provenance.iter().any(|q| q.chain == *c && key(q) == key(p)));
            if everywhere && !shared_keys.contains(&key(p)) {
                shared_keys.push(key(p));
                entries.push(p);
            }
        }
        if !entries.is_empty() {
            shared.push((config.clone(), chains.clone(), entries));
        }
    }
    let own = provenance
        .iter()
        .filter(|p| !shared_keys.contains(&key(p)))
        .collect();
    (shared, own)
}

/// The report `bytes` in `format` with the values taken from the configs: each chain's own in a
/// `config` list in JSON (`chain`, `value`, `file`, `line`) and the settings every chain of a
/// config shares once in `config_shared` (`config`, `chains`, `value`, `file`, `line`); lines
/// before the tables in text and Markdown (`chain "x": primary ... (config.yaml:5)`, then
/// `every chain of config.yaml (2): retries 2 (config.yaml:41), ...`); nothing added to CSV (its
/// one header line is a contract), where the lines go to standard error instead.
///
/// Errors: JSON the renderer wrote that does not parse back (a bug).
pub fn with_provenance(
    bytes: Vec<u8>,
    format: crate::output::Format,
    provenance: &[Provenance],
) -> super::OutputResult<Vec<u8>> {
    use crate::output::Format;
    let (shared, own) = split_shared(provenance);
    let lines = listing(&shared, &own);
    Ok(match format {
        Format::Json => json_with(&bytes, &shared, &own)?,
        Format::Csv => {
            for l in &lines {
                eprintln!("fallcost: config: {l}");
            }
            bytes
        }
        Format::Table | Format::Markdown => {
            let mut out = String::from("Taken from the config:\n");
            for l in &lines {
                // one entry per line, wrapped to the terminal (issue 16), continuing indented
                let entry = format!("  {l}");
                let entry = match format {
                    Format::Table => {
                        crate::output::table::wrap(&entry, crate::output::ui::width(), 2)
                    }
                    _ => entry,
                };
                out.push_str(&entry);
                out.push('\n');
            }
            out.push('\n');
            let mut b = out.into_bytes();
            b.extend(bytes);
            b
        }
    })
}

/// The entries every chain of a config shares: `(config, chain names, entries)`
/// ([`split_shared`]).
type Shared<'a> = [(String, Vec<String>, Vec<&'a Provenance>)];

/// The listing's lines: one per chain with its own entries (consecutive entries of a chain
/// together), then one per config with the entries its chains share.
fn listing(shared: &Shared, own: &[&Provenance]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut i = 0;
    while i < own.len() {
        let chain = &own[i].chain;
        let mut parts = Vec::new();
        while i < own.len() && &own[i].chain == chain {
            let p = own[i];
            parts.push(format!("{} ({}:{})", p.what, p.file, p.line));
            i += 1;
        }
        lines.push(format!("chain {}: {}", quoted(chain), parts.join(", ")));
    }
    for (config, chains, entries) in shared {
        lines.push(format!(
            "every chain of {config} ({}): {}",
            chains.len(),
            entries
                .iter()
                .map(|p| format!("{} ({}:{})", p.what, p.file, p.line))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    lines
}

/// The JSON report `bytes` with `config_shared` and `config` added, pretty-printed.
///
/// Errors: `bytes` that do not parse as JSON (a bug).
fn json_with(bytes: &[u8], shared: &Shared, own: &[&Provenance]) -> super::OutputResult<Vec<u8>> {
    let mut v: serde_json::Value = serde_json::from_slice(bytes)?;
    if let Some(obj) = v.as_object_mut() {
        obj.insert(
            "config_shared".into(),
            serde_json::json!(
                shared
                    .iter()
                    .flat_map(|(config, chains, entries)| entries.iter().map(
                        move |p| serde_json::json!({
                            "config": config,
                            "chains": chains,
                            "value": p.what,
                            "file": p.file,
                            "line": p.line,
                        })
                    ))
                    .collect::<Vec<_>>()
            ),
        );
        obj.insert(
            "config".into(),
            serde_json::json!(
                own.iter()
                    .map(|p| serde_json::json!({
                        "chain": p.chain,
                        "value": p.what,
                        "file": p.file,
                        "line": p.line,
                    }))
                    .collect::<Vec<_>>()
            ),
        );
    }
    let mut s = serde_json::to_string_pretty(&v)?;
    s.push('\n');
    Ok(s.into_bytes())
}
