//! The [`Node`] tree gateway configs are read into: every YAML or JSON value with the line and
//! column it starts at (and the included file it came from), so an error can name `file:line:col`.
//!
//! YAML is parsed through `saphyr`, with YAML merge keys (`<<: *anchor`) resolved as PyYAML
//! resolves them and values copied from an anchor placed at the alias; JSON through a small
//! reader of its own ([`parse_json`]), after `serde_json` has validated it, with a duplicate
//! key's last value winning as in JavaScript.

use std::collections::HashMap;
use std::sync::Arc;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData, YamlLoader};
use saphyr_parser::Parser;

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
    pub value: NodeValue,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
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
            NodeValue::Map(entries) => entries
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
            NodeValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is an integer or a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            NodeValue::Int(i) => Some(i as f64),
            NodeValue::Float(f) => Some(f),
            _ => None,
        }
    }

    /// What kind of value this is, for messages: `a string`, `a list`, ...
    pub fn kind(&self) -> &'static str {
        match self.value {
            NodeValue::Null => "null",
            NodeValue::Bool(_) => "a boolean",
            NodeValue::Int(_) | NodeValue::Float(_) => "a number",
            NodeValue::Str(_) => "a string",
            NodeValue::Seq(_) => "a list",
            NodeValue::Map(_) => "a mapping",
        }
    }

    /// The value for messages: a scalar as written (`-1`, `"x"`), else its kind.
    pub fn describe(&self) -> String {
        match &self.value {
            NodeValue::Int(i) => i.to_string(),
            NodeValue::Float(f) => f.to_string(),
            NodeValue::Str(s) => format!("{s:?}"),
            NodeValue::Bool(b) => b.to_string(),
            _ => self.kind().to_string(),
        }
    }

    /// The value as one string that ignores where it was written: mapping keys sorted, scalars
    /// as JSON would write them. Two values with the same canonical string say the same thing
    /// (`{model: a, api_key: k}` and `{api_key: k, model: a}` on other lines).
    pub fn canonical(&self) -> String {
        match &self.value {
            NodeValue::Null => "null".into(),
            NodeValue::Bool(b) => b.to_string(),
            NodeValue::Int(i) => i.to_string(),
            NodeValue::Float(f) => format!("{f:?}"),
            NodeValue::Str(s) => format!("{s:?}"),
            NodeValue::Seq(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(Node::canonical)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            NodeValue::Map(entries) => {
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
            NodeValue::Seq(items) => items.iter_mut().for_each(|n| n.set_file(file)),
            NodeValue::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
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
        let NodeValue::Map(entries) = &self.value else {
            return Ok(());
        };
        for (k, _) in entries {
            let Some(key) = k.as_str() else { continue };
            if valid.contains(&key) {
                continue;
            }
            let nearest = crate::suggest::near_miss(key, read, max_edits, stem);
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
            YamlData::Sequence(items) => NodeValue::Seq(
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
                        NodeValue::Map(entries) if merge_key => merged.push(entries),
                        NodeValue::Seq(items)
                            if merge_key
                                && items.iter().all(|i| matches!(i.value, NodeValue::Map(_))) =>
                        {
                            // PyYAML: the earlier mappings of the list win, so they go last.
                            for item in items.into_iter().rev() {
                                if let NodeValue::Map(entries) = item.value {
                                    merged.push(entries);
                                }
                            }
                        }
                        value => explicit.push((key, Node { value, ..val })),
                    }
                }
                if merged.is_empty() {
                    NodeValue::Map(explicit)
                } else {
                    let mut out = Vec::new();
                    let mut index = HashMap::new();
                    for (k, v) in merged.into_iter().flatten().chain(explicit) {
                        insert_last_wins(&mut out, &mut index, k, v);
                    }
                    NodeValue::Map(out)
                }
            }
            YamlData::Tagged(_, inner) => return Node::from_marked(inner, floor),
            YamlData::Alias(_) | YamlData::BadValue => NodeValue::Null,
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

fn scalar(s: &Scalar) -> NodeValue {
    match s {
        Scalar::Null => NodeValue::Null,
        Scalar::Boolean(b) => NodeValue::Bool(*b),
        Scalar::Integer(i) => NodeValue::Int(*i),
        Scalar::FloatingPoint(f) => NodeValue::Float(f.into_inner()),
        Scalar::String(s) => NodeValue::Str(s.to_string()),
    }
}

/// Parse the first document of a YAML file (`None` for an empty file).
///
/// Errors: [`InputErrorKind::Syntax`] with the parser's line and column.
pub fn parse_yaml(file: &str, text: &str) -> Result<Option<Node>, InputError> {
    Ok(parse_yaml_documents(file, text)?.into_iter().next())
}

/// Parse every document of a YAML file (`---` separated), in order. A key given twice in one
/// mapping keeps its last value, as PyYAML's `safe_load` (which LiteLLM reads its config with)
/// keeps it; [`duplicate_key`] finds the first such key, for a warning.
///
/// Errors: [`InputErrorKind::Syntax`] with the parser's line and column.
pub fn parse_yaml_documents(file: &str, text: &str) -> Result<Vec<Node>, InputError> {
    let mut loader: YamlLoader<'_, MarkedYaml> = YamlLoader::default();
    loader.allow_duplicate_keys(true);
    let mut parser = Parser::new_from_str(text);
    let loaded = parser.load(&mut loader, true).err();
    let error = loaded.or_else(|| loader.error().cloned());
    if let Some(e) = error {
        return Err(InputError {
            file: file.to_string(),
            location: Some(Location {
                line: e.marker().line().max(1),
                col: e.marker().col() + 1,
            }),
            field: None,
            message: format!("invalid YAML: {}", e.info()),
            kind: InputErrorKind::Syntax,
        });
    }
    let docs = loader.into_documents();
    Ok(docs.iter().map(|d| Node::from_marked(d, (0, 0))).collect())
}

/// The first key of `text` given twice in one mapping (its second place: 1-based line and
/// column, and the key as written), which [`parse_yaml_documents`] reads as PyYAML does (the
/// last value wins); `None` when there is none, or when the text does not parse.
pub fn duplicate_key(text: &str) -> Option<(usize, usize, String)> {
    let e = MarkedYaml::load_from_str(text).err()?;
    if e.info() != "duplicated key in mapping" {
        return None;
    }
    let (line, col) = (e.marker().line().max(1), e.marker().col() + 1);
    let key: String = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.get(col - 1..))
        .map(|rest| {
            rest.split(':')
                .next()
                .unwrap_or(rest)
                .trim()
                .trim_matches(['"', '\''])
                .to_string()
        })
        .unwrap_or_default();
    Some((line, col, key))
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
                NodeValue::Map(out)
            }
            '[' => {
                let mut items = Vec::new();
                self.items(']', |r| {
                    items.push(r.value()?);
                    Ok(())
                })?;
                NodeValue::Seq(items)
            }
            '"' => NodeValue::Str(self.string()?),
            _ => {
                let rest = &self.text[self.pos..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.')))
                    .unwrap_or(rest.len());
                let word = &rest[..len];
                self.pos += len;
                self.col += len;
                match word {
                    "true" => NodeValue::Bool(true),
                    "false" => NodeValue::Bool(false),
                    "null" => NodeValue::Null,
                    _ => match word.parse::<i64>() {
                        Ok(i) => NodeValue::Int(i),
                        Err(_) => NodeValue::Float(word.parse::<f64>().map_err(|_| ())?),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_and_json_nodes_carry_lines() {
        let n = parse_yaml("c.yaml", "a: 1\nb:\n  - x\n  - {\"c\": [\"d\", 2.5]}\n")
            .unwrap()
            .unwrap();
        let b = n.get("b").unwrap();
        let NodeValue::Seq(items) = &b.value else {
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
        let NodeValue::Map(entries) = &one.value else {
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
        let NodeValue::Seq(items) = &used.value else {
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
        let NodeValue::Map(entries) = &n.value else {
            panic!()
        };
        assert_eq!(entries.len(), 3);
        let b = n.get("b").unwrap();
        let NodeValue::Seq(items) = &b.value else {
            panic!()
        };
        assert_eq!(items[1].as_f64(), Some(-2500.0));
        assert_eq!(items[2].value, NodeValue::Bool(true));
        assert_eq!(items[3].value, NodeValue::Null);
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
}
