//! LiteLLM's `include:` files (merged in as its proxy merges them) and the Python-syntax
//! settings its docs show, refused at their line.

use std::path::Path;
use std::sync::Arc;

use super::FALLBACK_KEYS;
use crate::error::{InputError, InputErrorKind, Location};
use crate::input::gateway::{Node, NodeValue};

/// Whether `root` has LiteLLM's `include` and one of its sections (`model_list`,
/// `router_settings`, `litellm_settings`, `general_settings`): a config whose includes are to be
/// followed before it is recognised (a GitLab CI file's `include` is not one).
pub fn includes_files(root: &Node) -> bool {
    root.get("include").is_some()
        && [
            "model_list",
            "router_settings",
            "litellm_settings",
            "general_settings",
        ]
        .iter()
        .any(|k| root.get(k).is_some())
}

/// A line such as `content_policy_fallbacks=[{"a": ["b"]}]`, the Python keyword syntax that
/// LiteLLM's docs show next to YAML and users copy into `config.yaml`.
///
/// Errors: [`InputErrorKind::Syntax`] naming the line, the key and the YAML to write instead.
pub fn python_syntax(file: &str, text: &str) -> Result<(), InputError> {
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        for key in FALLBACK_KEYS.iter().chain(&["default_fallbacks"]) {
            if let Some(rest) = trimmed.strip_prefix(key)
                && rest.trim_start().starts_with('=')
            {
                return Err(InputError {
                    file: file.to_string(),
                    location: Some(Location {
                        line: i + 1,
                        col: line.len() - trimmed.len() + 1,
                    }),
                    field: Some((*key).to_string()),
                    message: format!(
                        "`{key}=[...]` is Python keyword syntax (as in LiteLLM's Router(...) examples), not YAML; write `{key}: [...]`"
                    ),
                    kind: InputErrorKind::Syntax,
                });
            }
        }
    }
    Ok(())
}

/// Follow LiteLLM's `include`: each file it lists (relative to `dir`, the config's folder) is read
/// and merged into `root` as LiteLLM's proxy merges it: a list extends the config's list of the
/// same key, anything else replaces the key. The included values remember their file, so
/// findings name it. (LiteLLM does not follow an included file's own `include`.)
///
/// Errors: `include` that is not a list of file names; an included file that cannot be read
/// (naming `file` and the `include` line) or parsed (naming the included file), or that is not a
/// mapping.
pub fn resolve_includes(file: &str, dir: &Path, mut root: Node) -> Result<Node, InputError> {
    let NodeValue::Map(entries) = &mut root.value else {
        return Ok(root);
    };
    let Some(at) = entries
        .iter()
        .position(|(k, _)| k.as_str() == Some("include"))
    else {
        return Ok(root);
    };
    let (_, list) = entries.remove(at);
    let schema = |node: &Node, field: String, message: String| {
        node.error(file, InputErrorKind::Schema, field, message)
    };
    let items = match list.value {
        NodeValue::Seq(items) => items,
        NodeValue::Null => Vec::new(),
        _ => {
            return Err(schema(
                &list,
                "include".into(),
                format!(
                    "expected a list of YAML files, e.g. [models.yaml]; got {} (LiteLLM refuses it)",
                    list.kind()
                ),
            ));
        }
    };
    for (i, item) in items.iter().enumerate() {
        let field = format!("include[{i}]");
        let Some(name) = item.as_str() else {
            return Err(schema(
                item,
                field,
                format!("expected a file name; got {}", item.kind()),
            ));
        };
        let path = dir.join(name);
        let shown = crate::input::shown_path(&path);
        let text = crate::input::read_text(&path).map_err(|e| {
            item.error(
                file,
                InputErrorKind::Read,
                field.clone(),
                format!(
                    "cannot read included file `{name}` ({shown}): {}; LiteLLM refuses to start without it",
                    e.message
                ),
            )
        })?;
        python_syntax(&shown, &text)?;
        let Some(mut included) = crate::input::gateway::parse_yaml(&shown, &text)? else {
            continue;
        };
        included.set_file(&Arc::from(shown.as_str()));
        let NodeValue::Map(more) = included.value else {
            return Err(schema(
                item,
                field,
                format!(
                    "{shown} holds {}, not a mapping of config sections",
                    included.kind()
                ),
            ));
        };
        merge_sections(entries, more);
    }
    Ok(root)
}

/// Merge an included file's sections `more` into the config's `entries`: a list extends the
/// config's list of the same key; any other value replaces the config's, or is added.
fn merge_sections(entries: &mut Vec<(Node, Node)>, more: Vec<(Node, Node)>) {
    for (k, v) in more {
        let existing = entries.iter_mut().find(|(ek, _)| ek.value == k.value);
        match (existing, v.value) {
            (Some((_, old)), NodeValue::Seq(extra)) if matches!(old.value, NodeValue::Seq(_)) => {
                if let NodeValue::Seq(items) = &mut old.value {
                    items.extend(extra);
                }
            }
            (Some(slot), value) => *slot = (k, Node { value, ..v }),
            (None, value) => entries.push((k, Node { value, ..v })),
        }
    }
}
