//! Gateway configs: the fallback chains teams keep in LiteLLM proxy configs ([`litellm`]),
//! Portkey configs ([`portkey`]) and OpenRouter request bodies ([`openrouter`]), read into one
//! shape ([`Config`]) that `fallcost check` prices.
//!
//! These are third-party formats: keys fallcost does not use are ignored, but a key it does use
//! with the wrong shape is an [`InputError`] naming the line, and a model is never priced from a
//! guess (the check fails closed on a model with no known price).
//!
//! Both formats are parsed into a [`Node`] tree that remembers the line and column of every value
//! (YAML through `saphyr`, with YAML merge keys (`<<: *anchor`) resolved as PyYAML resolves them
//! and values copied from an anchor placed at the alias; JSON through a small reader of its own,
//! after `serde_json` has validated it, with a duplicate key's last value winning as in
//! JavaScript).

pub mod litellm;
pub mod openrouter;
pub mod portkey;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

use crate::error::{InputError, InputErrorKind, Location};

/// A parsed YAML or JSON value with its 1-based line and column.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Line of the value's first character, from 1.
    pub line: usize,
    /// Column of the value's first character, from 1.
    pub col: usize,
    /// The file the value was read from, when it is not the file being checked (a file that
    /// LiteLLM's `include` pulls in); `None` for the file itself.
    pub file: Option<Arc<str>>,
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
    /// A mapping (YAML map, JSON object) in document order, each key once.
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

    /// The value as one string that ignores where it was written: mapping keys sorted, scalars
    /// as JSON would write them. Two values with the same canonical string say the same thing
    /// (`{model: a, api_key: k}` and `{api_key: k, model: a}` on other lines).
    pub fn canonical(&self) -> String {
        match &self.value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Str(s) => format!("{s:?}"),
            Value::Seq(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(Node::canonical)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Value::Map(entries) => {
                let mut pairs: Vec<(String, String)> = entries
                    .iter()
                    .map(|(k, v)| (k.canonical(), v.canonical()))
                    .collect();
                pairs.sort();
                format!(
                    "{{{}}}",
                    pairs
                        .iter()
                        .map(|(k, v)| format!("{k}:{v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            }
        }
    }

    /// The file this value was read from: its own [`Node::file`], else `default` (the file
    /// being checked).
    pub fn file_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.file.as_deref().unwrap_or(default)
    }

    /// Mark this value and everything under it as read from `file`.
    pub fn set_file(&mut self, file: &Arc<str>) {
        self.file = Some(Arc::clone(file));
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.set_file(file)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.set_file(file);
                v.set_file(file);
            }),
            _ => {}
        }
    }

    /// An input error about this value, at its file (see [`Node::file_or`]), line and column.
    pub fn error(
        &self,
        file: &str,
        kind: InputErrorKind,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> InputError {
        InputError {
            file: self.file_or(file).to_string(),
            location: Some(self.location()),
            field: Some(field.into()),
            message: message.into(),
            kind,
        }
    }

    /// Refuse a key of this mapping that is a near miss of one of `read` (the keys fallcost reads):
    /// at most `max_edits` edits away, starting with the same `stem` characters (ignoring case;
    /// 2, or 1 for a short key such as `model`, so that `mdel` is caught), and
    /// neither one of `read` nor one of `valid` (the format's other documented keys, which are
    /// accepted silently). In a third-party format fallcost ignores keys it does not use, but a
    /// misspelling of one it does use would silently drop a price or a fallback. A key that
    /// starts with a read key and `_` (LiteLLM's tiered and batch prices,
    /// `input_cost_per_token_batches`) is a different key, not a misspelling.
    ///
    /// Errors: [`InputErrorKind::Schema`] at the key's line, naming the nearest read key.
    pub fn refuse_near_misses(
        &self,
        file: &str,
        path: &str,
        read: &[&str],
        valid: &[&str],
        max_edits: usize,
        stem: usize,
    ) -> Result<(), InputError> {
        let Value::Map(entries) = &self.value else {
            return Ok(());
        };
        for (k, _) in entries {
            let Some(key) = k.as_str() else { continue };
            if valid.contains(&key) {
                continue;
            }
            let nearest = crate::input::suggest::near_miss(key, read, max_edits, stem);
            if let Some(near) = nearest {
                return Err(k.error(
                    file,
                    InputErrorKind::Schema,
                    if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    },
                    format!(
                        "unknown field (did you mean `{near}`?); fallcost reads: {}",
                        read.join(", ")
                    ),
                ));
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

    /// Convert saphyr's tree. `floor` is the position of the enclosing node: a value placed
    /// before it was copied from an anchor by an alias (`*name`), and is placed at the alias, so
    /// that a finding about it names the line that uses it. A merge key (`<<`) brings in the
    /// entries of its mapping, or of each mapping of its list (earlier ones win), under the
    /// explicit keys of the mapping, which win over merged ones.
    fn from_marked(node: &MarkedYaml, floor: (usize, usize)) -> Node {
        let here = (node.span.start.line().max(1), node.span.start.col() + 1).max(floor);
        let value = match &node.data {
            YamlData::Value(s) => scalar(s),
            YamlData::Representation(text, _, _) => scalar(&Scalar::parse_from_cow(text.clone())),
            YamlData::Sequence(items) => Value::Seq(
                items
                    .iter()
                    .map(|item| Node::from_marked(item, here))
                    .collect(),
            ),
            YamlData::Mapping(map) => {
                let mut merged = Vec::new();
                let mut explicit = Vec::with_capacity(map.len());
                for (k, v) in map.iter() {
                    let (key, val) = (Node::from_marked(k, here), Node::from_marked(v, here));
                    let merge_key =
                        matches!(&k.data, YamlData::Value(Scalar::String(s)) if s == "<<");
                    match val.value {
                        Value::Map(entries) if merge_key => merged.push(entries),
                        Value::Seq(items)
                            if merge_key
                                && items.iter().all(|i| matches!(i.value, Value::Map(_))) =>
                        {
                            // PyYAML: the earlier mappings of the list win, so they go last.
                            for item in items.into_iter().rev() {
                                if let Value::Map(entries) = item.value {
                                    merged.push(entries);
                                }
                            }
                        }
                        value => explicit.push((key, Node { value, ..val })),
                    }
                }
                if merged.is_empty() {
                    Value::Map(explicit)
                } else {
                    let mut out = Vec::new();
                    let mut index = HashMap::new();
                    for (k, v) in merged.into_iter().flatten().chain(explicit) {
                        insert_last_wins(&mut out, &mut index, k, v);
                    }
                    Value::Map(out)
                }
            }
            YamlData::Tagged(_, inner) => return Node::from_marked(inner, floor),
            YamlData::Alias(_) | YamlData::BadValue => Value::Null,
        };
        Node {
            line: here.0,
            col: here.1,
            file: None,
            value,
        }
    }
}

/// Add `(k, v)` to a mapping being built, the last value of a repeated key winning in the
/// position of its first (as a Python dict or a JavaScript object does). `index` remembers where
/// each string key is.
fn insert_last_wins(
    out: &mut Vec<(Node, Node)>,
    index: &mut HashMap<String, usize>,
    k: Node,
    v: Node,
) {
    let at = match k.as_str() {
        Some(s) => index.get(s).copied(),
        None => out.iter().position(|(o, _)| o.value == k.value),
    };
    match at {
        Some(i) => out[i] = (k, v),
        None => {
            if let Some(s) = k.as_str() {
                index.insert(s.to_string(), out.len());
            }
            out.push((k, v));
        }
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
    Ok(docs.iter().map(|d| Node::from_marked(d, (0, 0))).collect())
}

/// `text` without a leading UTF-8 byte order mark (Windows editors write one; JSON parsers
/// refuse it).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parse a JSON file (a leading byte order mark is ignored). A key given twice keeps its last
/// value, as JavaScript's `JSON.parse` does.
///
/// Errors: [`InputErrorKind::Syntax`] with `serde_json`'s line and column.
pub fn parse_json(file: &str, text: &str) -> Result<Node, InputError> {
    let text = strip_bom(text);
    let syntax = |line: usize, col: usize, message: String| InputError {
        file: file.to_string(),
        location: Some(Location { line, col }),
        field: None,
        message,
        kind: InputErrorKind::Syntax,
    };
    // serde_json says what is wrong and where, and bounds the nesting the reader below recurses
    // through; the reader then only meets valid JSON.
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map_err(|e| crate::input::json_syntax_error(file, &e))?;
    let mut reader = JsonReader {
        text,
        pos: 0,
        line: 1,
        col: 1,
    };
    reader
        .value()
        .map_err(|()| syntax(reader.line, reader.col, "invalid JSON".into()))
}

/// A JSON reader that keeps the line and column of every value (characters, from 1). It expects
/// text `serde_json` has accepted.
struct JsonReader<'t> {
    text: &'t str,
    pos: usize,
    line: usize,
    col: usize,
}

impl JsonReader<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Result<char, ()> {
        let c = self.peek().ok_or(())?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Ok(c)
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.pos += 1;
            if self.text.as_bytes()[self.pos - 1] == b'\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ()> {
        self.blank();
        if self.bump()? == c { Ok(()) } else { Err(()) }
    }

    fn value(&mut self) -> Result<Node, ()> {
        self.blank();
        let (line, col) = (self.line, self.col);
        let value = match self.peek().ok_or(())? {
            '{' => {
                let (mut out, mut index) = (Vec::new(), HashMap::new());
                self.items('}', |r| {
                    let key = r.value()?;
                    r.expect(':')?;
                    let value = r.value()?;
                    insert_last_wins(&mut out, &mut index, key, value);
                    Ok(())
                })?;
                Value::Map(out)
            }
            '[' => {
                let mut items = Vec::new();
                self.items(']', |r| {
                    items.push(r.value()?);
                    Ok(())
                })?;
                Value::Seq(items)
            }
            '"' => Value::Str(self.string()?),
            _ => {
                let rest = &self.text[self.pos..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.')))
                    .unwrap_or(rest.len());
                let word = &rest[..len];
                self.pos += len;
                self.col += len;
                match word {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => match word.parse::<i64>() {
                        Ok(i) => Value::Int(i),
                        Err(_) => Value::Float(word.parse::<f64>().map_err(|_| ())?),
                    },
                }
            }
        };
        Ok(Node {
            line,
            col,
            file: None,
            value,
        })
    }

    /// The comma-separated members of an object or an array, from its opening bracket to
    /// `close`, each read by `item`.
    fn items(
        &mut self,
        close: char,
        mut item: impl FnMut(&mut Self) -> Result<(), ()>,
    ) -> Result<(), ()> {
        self.bump()?;
        self.blank();
        if self.peek() == Some(close) {
            self.bump()?;
            return Ok(());
        }
        loop {
            item(self)?;
            self.blank();
            match self.bump()? {
                ',' => continue,
                c if c == close => return Ok(()),
                _ => return Err(()),
            }
        }
    }

    /// A string, from its opening quote, with JSON's escapes.
    fn string(&mut self) -> Result<String, ()> {
        self.bump()?;
        let mut out = String::new();
        loop {
            match self.bump()? {
                '"' => return Ok(out),
                '\\' => match self.bump()? {
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let high = self.hex4()?;
                        let code = if (0xD800..0xDC00).contains(&high) {
                            self.expect('\\')?;
                            self.expect('u')?;
                            let low = self.hex4()?;
                            0x10000 + ((high - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                        } else {
                            high
                        };
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    c => out.push(c),
                },
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ()> {
        let digits = self.text.get(self.pos..self.pos + 4).ok_or(())?;
        let v = u32::from_str_radix(digits, 16).map_err(|_| ())?;
        self.pos += 4;
        self.col += 4;
        Ok(v)
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

/// Where something is declared: a line of the file being checked, or of a file it includes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Place {
    /// The file, when it is not the file being checked (a LiteLLM `include`).
    pub file: Option<String>,
    /// The line, from 1.
    pub line: usize,
}

impl Place {
    /// Where `node` is.
    pub fn of(node: &Node) -> Place {
        Place {
            file: node.file.as_deref().map(str::to_string),
            line: node.line,
        }
    }

    /// The file: this place's own, else `default` (the file being checked).
    pub fn file_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.file.as_deref().unwrap_or(default)
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
    /// The file the model is named in, when it is not the file being checked.
    pub file: Option<String>,
    /// Line of the model in the file.
    pub line: usize,
    /// Column of the model in the file.
    pub col: usize,
    /// What the gateway sends the request to, as one comparable string: LiteLLM's
    /// `litellm_params` of the deployment, canonicalised (keys sorted, positions dropped). Two
    /// endpoints with the same value are one deployment under two names. `None` for Portkey.
    pub deployment: Option<String>,
    /// The model as its provider serves it, without a gateway's key or slug (Portkey's
    /// `@openai-prod/gpt-4o` is `gpt-4o`); `None` for LiteLLM.
    pub served: Option<String>,
}

/// A named set of endpoints one step of a chain may use: a LiteLLM `model_name` group (one or
/// more deployments) or a Portkey target (nested targets give several).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's name or a description of the target.
    pub label: String,
    /// The endpoints; the group's price is their range.
    pub endpoints: Vec<Endpoint>,
    /// The share of the group's traffic each endpoint gets (one per endpoint, summing to 1), when
    /// the gateway's routing says (a LiteLLM group: `weight`, `rpm` or `tpm`, else equal
    /// shares); `None` when it does not (a Portkey target), and the group is then judged by its
    /// range, worst case.
    pub shares: Option<Vec<f64>>,
    /// How [`Group::shares`] were set, for messages: `equal shares`, `litellm_params.weight`.
    pub mix: Option<String>,
}

/// A fallback link: where a chain goes when its primary fails.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The fallback.
    pub fallback: Group,
    /// Where the link is declared.
    pub at: Place,
    /// The groups passed through before this one, after the primary (LiteLLM applies a fallback
    /// group's own fallbacks too); empty for a direct link.
    pub via: Vec<String>,
}

/// A chain: a primary and the fallbacks it can reach.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// A name for messages: `fallbacks: gpt-4o`, `targets (fallback)`.
    pub name: String,
    /// Where the chain is declared.
    pub at: Place,
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
    /// A name that is not a `model_name` group but that LiteLLM's router resolves (a
    /// `model_group_alias`, a deployment's `litellm_params.model` or `model_info.id`): it fires,
    /// and is judged as what it resolves to (a note).
    Resolved {
        /// The name as written.
        name: String,
        /// The group whose fallback it is; `None` when `name` is a fallbacks key (a primary).
        primary: Option<String>,
        /// What it resolves to, and by which step of the router.
        how: String,
    },
    /// A fallback that sends the request to the very deployments of the group it falls back
    /// from (the same `litellm_params` under two group names): a retry, not a failover.
    SameDeployment {
        /// The group falling back.
        primary: String,
        /// The fallback.
        fallback: String,
    },
    /// A fallback that serves the primary's model on the primary's provider through another
    /// key or slug (Portkey `@openai-prod/gpt-4o` -> `@openai-backup/gpt-4o`).
    SameModel {
        /// The primary.
        primary: String,
        /// The fallback.
        fallback: String,
        /// The provider both run on.
        provider: String,
        /// The model both serve.
        model: String,
    },
    /// A file found in a folder that looks like a gateway config but is not one fallcost reads
    /// (a note, so that it does not vanish from the run).
    NotRead {
        /// Why.
        why: String,
    },
    /// Fallback declarations that lead back to where they started.
    Loop {
        /// The groups in order, the first repeated at the end.
        cycle: Vec<String>,
        /// How many other groups loop with them (the rest of their strongly connected set).
        more: usize,
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
    /// A target with no model of its own (it uses the request's model): its chain cannot be
    /// judged there.
    NoModel {
        /// The target.
        target: String,
    },
    /// A declaration the gateway never acts on (LiteLLM reads the first key of a fallbacks entry,
    /// the first entry for a group, `router_settings` over `litellm_settings`): not judged.
    Ignored {
        /// What is ignored.
        what: String,
        /// Why, and what the gateway uses instead.
        why: String,
    },
    /// A wildcard route (`openai/*`): not a model, so not priced. A warning when a chain
    /// passes through it (the chain cannot be judged there), else a note.
    Wildcard {
        /// The route.
        name: String,
        /// The chain's primary, when the route is one of its fallbacks.
        primary: Option<String>,
        /// Whether a chain being judged starts at or passes through it.
        in_chain: bool,
    },
}

impl Notice {
    /// Warnings fail the run under `--deny-warnings`; notes never fail it. A loop is a note:
    /// mutual fallbacks (`a: [b]`, `b: [a]`) are common and LiteLLM bounds them with
    /// `max_fallbacks`; every link in them is still judged.
    pub fn is_warning(&self) -> bool {
        match self {
            Notice::NotAGroup { .. }
            | Notice::SelfFallback { .. }
            | Notice::SameDeployment { .. }
            | Notice::SameModel { .. }
            | Notice::NoModel { .. }
            | Notice::Ignored { .. } => true,
            Notice::Wildcard { in_chain, .. } => *in_chain,
            Notice::Loop { .. }
            | Notice::Empty { .. }
            | Notice::Resolved { .. }
            | Notice::NotRead { .. } => false,
        }
    }

    /// A stable kebab-case identifier for JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::NotAGroup { .. } => "not-a-group",
            Notice::Loop { .. } => "loop",
            Notice::Resolved { .. } => "resolved-name",
            Notice::SameDeployment { .. } => "same-deployment",
            Notice::SameModel { .. } => "same-model",
            Notice::NotRead { .. } => "not-read",
            Notice::SelfFallback { .. } => "self-fallback",
            Notice::Empty { .. } => "empty-fallbacks",
            Notice::NoModel { .. } => "no-model",
            Notice::Ignored { .. } => "ignored",
            Notice::Wildcard { .. } => "wildcard",
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
            Notice::Resolved {
                name,
                primary: Some(p),
                how,
            } => write!(
                f,
                "fallback `{name}` of `{p}` is not a model_name group, but LiteLLM's router sends it to {how}: judged as that"
            ),
            Notice::Resolved {
                name,
                primary: None,
                how,
            } => write!(
                f,
                "`{name}` has fallbacks and is not a model_name group, but a request for it goes to {how}: its chain is judged"
            ),
            Notice::SameDeployment { primary, fallback } => write!(
                f,
                "fallback `{fallback}` of `{primary}` sends the request to the same deployment (identical litellm_params under two group names): a retry, not a failover (it survives no outage of that deployment)"
            ),
            Notice::SameModel {
                primary,
                fallback,
                provider,
                model,
            } => write!(
                f,
                "fallback `{fallback}` of `{primary}` serves the same model (`{model}`) on the same provider (`{provider}`) through another key: it survives a rate limit on one key, not an outage of `{provider}`, and costs the same"
            ),
            Notice::NotRead { why } => write!(f, "skipped: {why}"),
            Notice::Loop { cycle, more } => {
                write!(
                    f,
                    "fallbacks loop: {}",
                    cycle
                        .iter()
                        .map(|g| format!("`{g}`"))
                        .collect::<Vec<_>>()
                        .join(" -> ")
                )?;
                if *more > 0 {
                    write!(
                        f,
                        " ({more} more group{} loop with them)",
                        if *more == 1 { "" } else { "s" }
                    )?;
                }
                write!(
                    f,
                    "; LiteLLM bounds the loop with max_fallbacks (default 5), and each fallback is judged once per chain here"
                )
            }
            Notice::SelfFallback { group } => write!(
                f,
                "`{group}` falls back to itself: a retry on the same group, not a fallback (it survives no outage)"
            ),
            Notice::Empty { what } => write!(f, "{what} is empty: no fallback declared"),
            Notice::NoModel { target } => write!(
                f,
                "{target} sets no model, not even through a parent's override_params (it uses the request's model): not priced, so its chain cannot be judged there"
            ),
            Notice::Ignored { what, why } => write!(f, "{what} never fires: {why}"),
            Notice::Wildcard {
                name,
                primary,
                in_chain,
            } => {
                write!(
                    f,
                    "`{name}` is a wildcard route, not a model: its price depends on the model requested, so it is not priced"
                )?;
                match (primary, in_chain) {
                    (Some(p), _) => write!(f, "; the chain of `{p}` cannot be judged there"),
                    (None, true) => write!(f, "; its fallbacks cannot be judged"),
                    (None, false) => Ok(()),
                }
            }
        }
    }
}

/// A gateway config, read: its chains, and what else is worth saying about it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// The chains, in file order.
    pub chains: Vec<Chain>,
    /// Notices with the place they are about.
    pub notices: Vec<(Place, Notice)>,
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
        _ => Err(v.error(
            file,
            InputErrorKind::Invalid,
            format!("{field}.{key}"),
            format!(
                "USD per token must be a finite number in [0, 1]; got {}",
                v.describe()
            ),
        )),
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
    fn merge_keys_merge_under_explicit_keys_and_aliases_sit_at_the_alias() {
        let text = "base: &base {a: 1, b: 2}\nmore: &more {b: 3, c: 4}\none:\n  <<: *base\n  a: 9\nmany:\n  <<: [*more, *base]\nlist: &l [x]\nuse: *l\n";
        let n = parse_yaml("c.yaml", text).unwrap().unwrap();
        let one = n.get("one").unwrap();
        let Value::Map(entries) = &one.value else {
            panic!("{one:?}")
        };
        // PyYAML order: merged keys first, the explicit value winning in the merged key's place.
        let keys: Vec<_> = entries
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_f64()))
            .collect();
        assert_eq!(keys, vec![(Some("a"), Some(9.0)), (Some("b"), Some(2.0))]);
        // Copied values are placed at the `<<: *base` line, not at the anchor's.
        assert_eq!(one.get("b").unwrap().line, 4);
        // In a list of merged mappings, earlier ones win.
        let many = n.get("many").unwrap();
        assert_eq!(many.get("b").unwrap().as_f64(), Some(3.0));
        assert_eq!(many.get("a").unwrap().as_f64(), Some(1.0));
        assert_eq!(many.get("c").unwrap().as_f64(), Some(4.0));
        let used = n.get("use").unwrap();
        let Value::Seq(items) = &used.value else {
            panic!("{used:?}")
        };
        assert_eq!((items[0].as_str(), items[0].line), (Some("x"), 9));
    }

    #[test]
    fn json_reader_keeps_positions_escapes_and_the_last_duplicate() {
        let text = "\u{feff}{\"a\": \"\\u00e9\\ud83d\\ude00\\n\", \"b\": [1, -2.5e3, true, null],\n \"c\": {\"d\": \"é\", \"d\": \"x\"}, \"a\": 7}";
        let n = parse_json("c.json", text).unwrap();
        assert_eq!(
            n.get("a").unwrap().as_f64(),
            Some(7.0),
            "the last value wins"
        );
        let Value::Map(entries) = &n.value else {
            panic!()
        };
        assert_eq!(entries.len(), 3);
        let b = n.get("b").unwrap();
        let Value::Seq(items) = &b.value else {
            panic!()
        };
        assert_eq!(items[1].as_f64(), Some(-2500.0));
        assert_eq!(items[2].value, Value::Bool(true));
        assert_eq!(items[3].value, Value::Null);
        let d = n.get("c").unwrap().get("d").unwrap();
        assert_eq!((d.as_str(), d.line, d.col), (Some("x"), 2, 23));
        let reparsed = parse_json("c.json", "{\"s\": \"\\u00e9\\ud83d\\ude00\\n\"}").unwrap();
        assert_eq!(reparsed.get("s").unwrap().as_str(), Some("é😀\n"));
        let e = parse_json("c.json", "\u{feff}{\"a\": }").unwrap_err();
        assert_eq!(e.location.unwrap().col, 7);
    }

    #[test]
    fn near_misses_need_the_same_stem_and_skip_valid_keys() {
        let n = parse_yaml("c.yaml", "callbacks: [x]\nfallbaks: []\n")
            .unwrap()
            .unwrap();
        let e = n
            .refuse_near_misses("c.yaml", "s", &["fallbacks"], &[], 2, 2)
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("s.fallbaks"));
        let ok = parse_yaml("c.yaml", "callbacks: [x]\ncallback: [y]\n")
            .unwrap()
            .unwrap();
        assert!(
            ok.refuse_near_misses("c.yaml", "s", &["fallbacks"], &[], 2, 2)
                .is_ok()
        );
        let valid = parse_yaml("c.yaml", "fallbackz: 1\n").unwrap().unwrap();
        assert!(
            valid
                .refuse_near_misses("c.yaml", "s", &["fallbacks"], &["fallbackz"], 2, 2)
                .is_ok()
        );
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
