//! Gateway configs: the fallback chains teams keep in LiteLLM proxy configs ([`litellm`]) and
//! Portkey configs ([`portkey`]), read into one shape ([`Config`]) that `fallcost check` prices.
//!
//! These are third-party formats: keys fallcost does not use are ignored, but a key it does use
//! with the wrong shape is an [`InputError`] naming the line, and a model is never priced from a
//! guess (the check fails closed on a model with no known price).
//!
//! Both formats are parsed into a [`Node`] tree that remembers the line and column of every value
//! (YAML through `saphyr`; JSON through `serde_json` for validation and `saphyr`, whose YAML 1.2
//! parser reads JSON, for positions).

pub mod litellm;
pub mod portkey;

use std::fmt;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

use crate::error::{InputError, InputErrorKind, Location};

/// A parsed YAML or JSON value with its 1-based line and column.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Line of the value's first character, from 1.
    pub line: usize,
    /// Column of the value's first character, from 1.
    pub col: usize,
    /// The value.
    pub value: Value,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or an empty value.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence (YAML list, JSON array).
    Seq(Vec<Node>),
    /// A mapping (YAML map, JSON object) in document order.
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The value at `key` of a mapping (keys compared as strings).
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value at the first of `keys` present (e.g. `override_params` or `overrideParams`).
    pub fn get_any(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().find_map(|k| self.get(k))
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is an integer or a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// What kind of value this is, for messages: `a string`, `a list`, ...
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The value for messages: a scalar as written (`-1`, `"x"`), else its kind.
    pub fn describe(&self) -> String {
        match &self.value {
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Str(s) => format!("{s:?}"),
            Value::Bool(b) => b.to_string(),
            _ => self.kind().to_string(),
        }
    }

    /// Refuse a key of this mapping that is a near miss (at most `max_edits` edits, but not
    /// equal) of one of `known`: in a third-party format fallcost ignores keys it does not
    /// use, but a misspelling of one it does use would silently drop a price or a fallback.
    /// A key that starts with a known key and `_` (LiteLLM's tiered and batch prices,
    /// `input_cost_per_token_batches`) is a different key, not a misspelling.
    ///
    /// Errors: [`InputErrorKind::Schema`] at the key's line, naming the nearest known key.
    pub fn refuse_near_misses(
        &self,
        file: &str,
        path: &str,
        known: &[&str],
        max_edits: usize,
    ) -> Result<(), InputError> {
        let Value::Map(entries) = &self.value else {
            return Ok(());
        };
        for (k, _) in entries {
            let Some(key) = k.as_str() else { continue };
            if known.contains(&key) || known.iter().any(|n| key.starts_with(&format!("{n}_"))) {
                continue;
            }
            let nearest = known
                .iter()
                .map(|n| (crate::input::suggest::levenshtein(key, n), *n))
                .filter(|(d, _)| *d <= max_edits)
                .min_by_key(|(d, _)| *d);
            if let Some((_, near)) = nearest {
                return Err(InputError {
                    file: file.to_string(),
                    location: Some(k.location()),
                    field: Some(if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    }),
                    message: format!(
                        "unknown field (did you mean `{near}`?); fallcost reads: {}",
                        known.join(", ")
                    ),
                    kind: InputErrorKind::Schema,
                });
            }
        }
        Ok(())
    }

    /// The location of this value.
    pub fn location(&self) -> Location {
        Location {
            line: self.line,
            col: self.col,
        }
    }

    fn from_marked(node: &MarkedYaml) -> Node {
        let line = node.span.start.line().max(1);
        let col = node.span.start.col() + 1;
        let value = match &node.data {
            YamlData::Value(s) => scalar(s),
            YamlData::Representation(text, _, _) => scalar(&Scalar::parse_from_cow(text.clone())),
            YamlData::Sequence(items) => Value::Seq(items.iter().map(Node::from_marked).collect()),
            YamlData::Mapping(map) => Value::Map(
                map.iter()
                    .map(|(k, v)| (Node::from_marked(k), Node::from_marked(v)))
                    .collect(),
            ),
            YamlData::Tagged(_, inner) => return Node::from_marked(inner),
            YamlData::Alias(_) | YamlData::BadValue => Value::Null,
        };
        Node { line, col, value }
    }
}

fn scalar(s: &Scalar) -> Value {
    match s {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(*b),
        Scalar::Integer(i) => Value::Int(*i),
        Scalar::FloatingPoint(f) => Value::Float(f.into_inner()),
        Scalar::String(s) => Value::Str(s.to_string()),
    }
}

/// Parse the first document of a YAML file (`None` for an empty file).
///
/// Errors: [`InputErrorKind::Syntax`] with the parser's line and column.
pub fn parse_yaml(file: &str, text: &str) -> Result<Option<Node>, InputError> {
    Ok(parse_yaml_documents(file, text)?.into_iter().next())
}

/// Parse every document of a YAML file (`---` separated), in order.
///
/// Errors: [`InputErrorKind::Syntax`] with the parser's line and column.
pub fn parse_yaml_documents(file: &str, text: &str) -> Result<Vec<Node>, InputError> {
    let docs = MarkedYaml::load_from_str(text).map_err(|e| InputError {
        file: file.to_string(),
        location: Some(Location {
            line: e.marker().line().max(1),
            col: e.marker().col() + 1,
        }),
        field: None,
        message: format!("invalid YAML: {}", e.info()),
        kind: InputErrorKind::Syntax,
    })?;
    Ok(docs.iter().map(Node::from_marked).collect())
}

/// Parse a JSON file.
///
/// Errors: [`InputErrorKind::Syntax`] with `serde_json`'s line and column.
pub fn parse_json(file: &str, text: &str) -> Result<Node, InputError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| InputError {
        file: file.to_string(),
        location: Some(Location {
            line: e.line(),
            col: e.column(),
        }),
        field: None,
        message: format!("invalid JSON: {e}"),
        kind: InputErrorKind::Syntax,
    })?;
    // Valid JSON is valid YAML 1.2; saphyr gives the positions. Should it refuse something
    // serde_json accepted, keep the values and point every one at line 1.
    match MarkedYaml::load_from_str(text) {
        Ok(docs) if !docs.is_empty() => Ok(Node::from_marked(&docs[0])),
        _ => Ok(from_json(&value)),
    }
}

fn from_json(v: &serde_json::Value) -> Node {
    let value = match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => Value::Seq(a.iter().map(from_json).collect()),
        serde_json::Value::Object(o) => Value::Map(
            o.iter()
                .map(|(k, v)| {
                    (
                        Node {
                            line: 1,
                            col: 1,
                            value: Value::Str(k.clone()),
                        },
                        from_json(v),
                    )
                })
                .collect(),
        ),
    };
    Node {
        line: 1,
        col: 1,
        value,
    }
}

/// Prices a config sets for a deployment itself, in $/MTok (LiteLLM's `model_info` or
/// `litellm_params` `input_cost_per_token` etc., converted from USD per token). They win over the
/// price table; a field left `None` comes from the table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceOverride {
    /// Fresh input, $/MTok.
    pub input: Option<f64>,
    /// Output, $/MTok.
    pub output: Option<f64>,
    /// Cache reads, $/MTok.
    pub cached_input: Option<f64>,
    /// Cache writes, $/MTok.
    pub cache_write: Option<f64>,
}

impl PriceOverride {
    /// Whether the config set any price.
    pub fn is_empty(&self) -> bool {
        *self == PriceOverride::default()
    }
}

/// One model a gateway may send a request to (a LiteLLM deployment, a Portkey target).
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// The model id to price, as the config names it (`openai/gpt-4o`, `gpt-4o`), or LiteLLM's
    /// `model_info.base_model` when set.
    pub model: String,
    /// The failure domain, when the config says: the provider prefix or `custom_llm_provider`
    /// (LiteLLM), `provider` or an `@slug/` (Portkey), or `api_base HOST` for an
    /// OpenAI-compatible model served elsewhere. `None`: the price table's provider.
    pub provider: Option<String>,
    /// Prices the config sets itself.
    pub price_override: PriceOverride,
    /// Why the price may not be the provider's list price (e.g. served through another
    /// `api_base`); shown with the price source.
    pub note: Option<String>,
    /// Line of the model in the file.
    pub line: usize,
    /// Column of the model in the file.
    pub col: usize,
}

/// A named set of endpoints one step of a chain may use: a LiteLLM `model_name` group (one or
/// more deployments) or a Portkey target (nested targets give several).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's name or a description of the target.
    pub label: String,
    /// The endpoints; the group's price is their range.
    pub endpoints: Vec<Endpoint>,
}

/// A fallback link: where a chain goes when its primary fails.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The fallback.
    pub fallback: Group,
    /// Line where the link is declared.
    pub line: usize,
    /// The groups passed through before this one, after the primary (LiteLLM applies a fallback
    /// group's own fallbacks too); empty for a direct link.
    pub via: Vec<String>,
}

/// A chain: a primary and the fallbacks it can reach.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// A name for messages: `fallbacks: gpt-4o`, `targets (fallback)`.
    pub name: String,
    /// Line of the chain's declaration.
    pub line: usize,
    /// The primary.
    pub primary: Group,
    /// The fallbacks, in order.
    pub links: Vec<Link>,
}

/// Something about a config worth saying that is not a price finding.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// A fallback (or a chain's primary) names something that is not a `model_name` group:
    /// LiteLLM never fires it. `model_id` says whether it is a model id (of a deployment or in
    /// the price table) rather than a missing name.
    NotAGroup {
        /// The name as written.
        name: String,
        /// The chain's primary, when `name` is a fallback.
        primary: Option<String>,
        /// Whether `name` is a model id rather than nothing at all.
        model_id: bool,
    },
    /// Fallback declarations that lead back to where they started.
    Loop {
        /// The groups in order, the first repeated at the end.
        cycle: Vec<String>,
    },
    /// A fallback that points at its own primary.
    SelfFallback {
        /// The group.
        group: String,
    },
    /// A fallback list that is empty (`fallbacks: []`, `{"a": []}`).
    Empty {
        /// What is empty.
        what: String,
    },
    /// A target with no model of its own (it uses the request's model): not priced.
    NoModel {
        /// The target.
        target: String,
    },
}

impl Notice {
    /// Warnings fail the run under `--deny-warnings`; notes never fail it. A loop is a note:
    /// mutual fallbacks (`a: [b]`, `b: [a]`) are common and LiteLLM bounds them with
    /// `max_fallbacks`; every link in them is still judged.
    pub fn is_warning(&self) -> bool {
        matches!(self, Notice::NotAGroup { .. } | Notice::SelfFallback { .. })
    }

    /// A stable kebab-case identifier for JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::NotAGroup { .. } => "not-a-group",
            Notice::Loop { .. } => "loop",
            Notice::SelfFallback { .. } => "self-fallback",
            Notice::Empty { .. } => "empty-fallbacks",
            Notice::NoModel { .. } => "no-model",
        }
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::NotAGroup {
                name,
                primary: Some(p),
                model_id: true,
            } => write!(
                f,
                "fallback `{name}` of `{p}` is a model id, not a model_name group: LiteLLM falls back to groups only, so it never fires; name the group that serves it"
            ),
            Notice::NotAGroup {
                name,
                primary: Some(p),
                model_id: false,
            } => write!(
                f,
                "fallback `{name}` of `{p}` is not a model_name group in model_list: LiteLLM never fires it"
            ),
            Notice::NotAGroup {
                name,
                primary: None,
                model_id,
            } => write!(
                f,
                "`{name}` has fallbacks but is not a model_name group in model_list{}: the chain never fires",
                if *model_id { " (it is a model id)" } else { "" }
            ),
            Notice::Loop { cycle } => write!(
                f,
                "fallbacks loop: {}; LiteLLM bounds the loop with max_fallbacks (default 5), and each link is judged once here",
                cycle
                    .iter()
                    .map(|g| format!("`{g}`"))
                    .collect::<Vec<_>>()
                    .join(" -> ")
            ),
            Notice::SelfFallback { group } => write!(
                f,
                "`{group}` falls back to itself: a retry on the same group, not a fallback (it survives no outage)"
            ),
            Notice::Empty { what } => write!(f, "{what} is empty: no fallback declared"),
            Notice::NoModel { target } => write!(
                f,
                "{target} sets no model (it uses the request's model): not priced"
            ),
        }
    }
}

/// A gateway config, read: its chains, and what else is worth saying about it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// The chains, in file order.
    pub chains: Vec<Chain>,
    /// Notices with the line they are about.
    pub notices: Vec<(usize, Notice)>,
}

/// LiteLLM's `input_cost_per_token`-style USD per token at `key` of `node`, in $/MTok.
///
/// Errors: a value that is not a finite number >= 0.
pub(crate) fn per_token_price(
    file: &str,
    node: &Node,
    key: &str,
    field: &str,
) -> Result<Option<f64>, InputError> {
    let Some(v) = node.get(key) else {
        return Ok(None);
    };
    if v.value == Value::Null {
        return Ok(None);
    }
    // Strings such as "2.5e-06" are what a YAML writer sometimes leaves; take them as numbers.
    let number = v
        .as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()));
    match number {
        Some(x)
            if x.is_finite()
                && (0.0..=crate::input::litellm_prices::MAX_PER_TOKEN).contains(&x) =>
        {
            Ok(Some(crate::input::litellm_prices::per_token_to_per_mtok(x)))
        }
        _ => Err(InputError {
            file: file.to_string(),
            location: Some(v.location()),
            field: Some(format!("{field}.{key}")),
            message: format!(
                "USD per token must be a finite number in [0, 1]; got {}",
                v.describe()
            ),
            kind: InputErrorKind::Invalid,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_and_json_nodes_carry_lines() {
        let n = parse_yaml("c.yaml", "a: 1\nb:\n  - x\n  - {\"c\": [\"d\", 2.5]}\n")
            .unwrap()
            .unwrap();
        let b = n.get("b").unwrap();
        let Value::Seq(items) = &b.value else {
            panic!("{b:?}")
        };
        assert_eq!(items[0].as_str(), Some("x"));
        assert_eq!((items[0].line, items[0].col), (3, 5));
        assert_eq!(items[1].get("c").unwrap().line, 4);
        let j = parse_json("c.json", "{\n\t\"strategy\": {\"mode\": \"fallback\"}\n}").unwrap();
        assert_eq!(j.get("strategy").unwrap().get("mode").unwrap().line, 2);
        let e = parse_json("c.json", "{\n\"a\": }").unwrap_err();
        assert_eq!(e.location.unwrap().line, 2);
        let e = parse_yaml("c.yaml", "a: [\n").unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Syntax);
        let docs = parse_yaml_documents("c.yaml", "---\nfoo: 1\n---\nmodel_list: []\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].get("model_list").unwrap().line, 4);
        assert!(parse_yaml("c.yaml", "").unwrap().is_none());
    }

    #[test]
    fn bad_per_token_prices_show_the_value() {
        let n = parse_yaml("c.yaml", "a: -1\nb: 2.5e-06\nc: \"3e-06\"\nd: [1]\n")
            .unwrap()
            .unwrap();
        let e = per_token_price("c.yaml", &n, "a", "x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:1:4: x.a: USD per token must be a finite number in [0, 1]; got -1"
        );
        assert_eq!(per_token_price("c.yaml", &n, "b", "x").unwrap(), Some(2.5));
        assert_eq!(per_token_price("c.yaml", &n, "c", "x").unwrap(), Some(3.0));
        assert!(
            per_token_price("c.yaml", &n, "d", "x")
                .unwrap_err()
                .message
                .ends_with("got a list")
        );
        assert_eq!(per_token_price("c.yaml", &n, "zz", "x").unwrap(), None);
    }
}
