//! The space `fallcost tune` searches: scenario keys (as `--set` takes them) and the values to
//! try, the defaults a team would try, `--vary KEY=FROM:TO:STEP` (or `KEY=A,B,C`) and
//! `--space FILE`, and the combinations they make.
//!
//! Two values are not numbers: `none` on `policy.breaker.threshold` or `policy.hedge_delay_s`
//! turns the breaker or the hedge delay off (`--set policy.breaker=none`), and
//! `policy.warm_fallback` takes `always`, `never` or `after=N`. A combination leaves out the
//! keys that cannot matter in it (a cooldown without a breaker, a backoff without retries), and
//! one whose hedge delay is not below its timeout (or its primary's own link timeout, which
//! follows the model onto any chain the space builds) is not a valid policy and is skipped.

use crate::error::ValueError;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::input::document::Document;
use crate::input::duration::parse_seconds;
use crate::model::policy::WarmPolicy;
use crate::model::{Caching, Chain};
use crate::number::round_noise;

/// The most combinations one chain's search takes on.
pub const MAX_COMBINATIONS: usize = 200_000;

/// The longest chain `--candidate` builds.
pub const MAX_CHAIN: usize = 3;

/// `policy.timeout_s`.
pub const TIMEOUT: &str = "policy.timeout_s";
/// `policy.retries`.
pub const RETRIES: &str = "policy.retries";
/// `policy.backoff.base_s`.
pub const BACKOFF: &str = "policy.backoff.base_s";
/// `policy.breaker.threshold` (LiteLLM's `allowed_fails`, plus one).
pub const THRESHOLD: &str = "policy.breaker.threshold";
/// `policy.breaker.cooldown_s` (LiteLLM's `cooldown_time`).
pub const COOLDOWN: &str = "policy.breaker.cooldown_s";
/// `policy.hedge_delay_s`.
pub const HEDGE_DELAY: &str = "policy.hedge_delay_s";
/// `policy.warm_fallback`.
pub const WARM: &str = "policy.warm_fallback";

/// The `--set` key of chain `name`'s models: `chain.NAME.models`, NAME quoted where it is not a
/// bare key (a gateway config's `chat (router_settings.fallbacks)`), as `--set` splits it.
pub fn models_key(name: &str) -> String {
    use crate::input::document::{PathSegment, path_string};
    path_string(&[
        PathSegment::Key("chain".into()),
        PathSegment::Key(name.into()),
        PathSegment::Key("models".into()),
    ])
}

/// The timeouts a hedge delay must stay below ([`Space::combos`]): the chain's policy timeout
/// (`policy.timeout_s`, unless the space varies it) and the primary's own link timeout
/// (`link_timeouts_s`), which is its model's on whatever chain the space builds (MODEL.md §10).
#[derive(Debug, Clone, Default)]
pub struct Timeouts {
    /// The chain's `policy.timeout_s`.
    pub policy_s: f64,
    /// The chain's `chain.NAME.models` key: a value of it puts another model first.
    pub models_key: String,
    /// The chain's own primary, by id.
    pub primary: String,
    /// Each model's own link timeout on the chain, by id.
    pub own: Vec<(String, f64)>,
}

impl Timeouts {
    /// `chain`'s.
    pub fn of(chain: &Chain) -> Timeouts {
        Timeouts {
            policy_s: chain.policy.timeout_s,
            models_key: models_key(&chain.name),
            primary: chain.links[0].price.id.clone(),
            own: chain
                .links
                .iter()
                .filter_map(|l| l.timeout_s.map(|t| (l.price.id.clone(), t)))
                .collect(),
        }
    }

    /// A policy timeout of `policy_s` seconds, and no link timeouts.
    pub fn policy(policy_s: f64) -> Timeouts {
        Timeouts {
            policy_s,
            ..Timeouts::default()
        }
    }

    /// The own link timeout of the primary of `models` (a value of the models key; `None`:
    /// the chain's own primary), if it has one.
    fn primary_own(&self, models: Option<&str>) -> Option<f64> {
        let first = models.and_then(|v| models_of(v).into_iter().next());
        let primary = first.as_deref().unwrap_or(&self.primary);
        self.own.iter().find(|(m, _)| m == primary).map(|(_, t)| *t)
    }
}

/// One key of the space and the values tried, as `--set` values (`none`, `after=3` and a
/// chain's `["a", "b"]` included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dim {
    /// The scenario key.
    pub key: String,
    /// The values, in the order tried.
    pub values: Vec<String>,
}

/// A space: its keys in the order they vary (the last fastest).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Space {
    /// The keys and their values.
    pub dims: Vec<Dim>,
}

/// One combination: the `--set` pairs that make it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combo {
    /// `(KEY, VALUE)` as `--set` takes them, in the space's key order.
    pub set: Vec<(String, String)>,
    /// Whether its hedge delay is the space's first (the hedge delay does not change the
    /// unhedged patterns: they are priced on one combination of each).
    pub first_hedge: bool,
}

/// A number as `--set` writes it.
pub fn num(v: f64) -> String {
    format!("{}", round_noise(v))
}

/// `v` added to `values` (kept in order, numbers sorted) unless it is there.
fn with(values: &[f64], v: Option<f64>) -> Vec<String> {
    let mut all: Vec<f64> = values.to_vec();
    if let Some(v) = v
        && !all.contains(&v)
    {
        all.push(v);
    }
    all.sort_by(f64::total_cmp);
    all.into_iter().map(num).collect()
}

/// The `--set` value of a warm-fallback policy.
fn warm_value(w: WarmPolicy) -> String {
    match w {
        WarmPolicy::Always => "always".into(),
        WarmPolicy::Never => "never".into(),
        WarmPolicy::After(n) => format!("after={n}"),
    }
}

/// The chains `--candidate` builds: every order of every 1 to [`MAX_CHAIN`] distinct models of
/// the chain's own and the candidates, the chain's own order first, as `--set` values.
pub fn chains_of(own: &[String], candidates: &[String]) -> Vec<String> {
    let mut pool: Vec<String> = own.to_vec();
    for c in candidates {
        if !pool.contains(c) {
            pool.push(c.clone());
        }
    }
    let mut out = vec![own.to_vec()];
    let mut frontier: Vec<Vec<String>> = vec![vec![]];
    for _ in 0..MAX_CHAIN.min(pool.len()) {
        let mut next = Vec::new();
        for prefix in &frontier {
            for m in &pool {
                if !prefix.contains(m) {
                    let mut c = prefix.clone();
                    c.push(m.clone());
                    if !out.contains(&c) {
                        out.push(c.clone());
                    }
                    next.push(c);
                }
            }
        }
        frontier = next;
    }
    out.iter().map(|c| toml_list(c)).collect()
}

/// A TOML array of strings.
fn toml_list(models: &[String]) -> String {
    let quoted: Vec<String> = models.iter().map(|m| format!("{m:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The models of a chain value (`["a", "b"]`).
pub fn models_of(value: &str) -> Vec<String> {
    value
        .trim_matches(['[', ']'])
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The default space for `chain`: timeouts 10, 30 and 60 s, 0–2 retries, no breaker or one
/// opening after 2 or 5 failures for 30 or 60 s (with an incident), no hedge delay or 7 s (on
/// a chain that can hedge), `always`/`never` (on a chain with an explicit-caching fallback and
/// a cacheable prefix),
/// each with the chain's own value added; with `candidates`, the chain's models. Wider
/// ranges: `--vary`.
pub fn defaults(
    chain: &Chain,
    has_incident: bool,
    has_prefix: bool,
    candidates: &[String],
) -> Space {
    let p = &chain.policy;
    let mut dims = Vec::new();
    let own: Vec<String> = chain.links.iter().map(|l| l.price.id.clone()).collect();
    if !candidates.is_empty() {
        dims.push(Dim {
            key: models_key(&chain.name),
            values: chains_of(&own, candidates),
        });
    }
    dims.push(Dim {
        key: TIMEOUT.into(),
        values: with(&[10.0, 30.0, 60.0], Some(p.timeout_s)),
    });
    dims.push(Dim {
        key: RETRIES.into(),
        values: with(&[0.0, 1.0, 2.0], Some(f64::from(p.retries))),
    });
    if has_incident {
        let mut t = vec!["none".to_string()];
        t.extend(with(&[2.0, 5.0], p.breaker.map(|b| f64::from(b.threshold))));
        dims.push(Dim {
            key: THRESHOLD.into(),
            values: t,
        });
        dims.push(Dim {
            key: COOLDOWN.into(),
            values: with(&[30.0, 60.0], p.breaker.map(|b| b.cooldown_s)),
        });
    }
    if chain.links.len() > 1 || !candidates.is_empty() {
        let mut h = vec!["none".to_string()];
        h.extend(with(&[7.0], p.hedge_delay_s));
        dims.push(Dim {
            key: HEDGE_DELAY.into(),
            values: h,
        });
    }
    let explicit_fallback = chain.links[1..]
        .iter()
        .any(|l| l.price.caching == Caching::Explicit);
    if has_prefix && (explicit_fallback || p.warm_fallback != WarmPolicy::Always) {
        let mut w: Vec<String> = ["always", "never"].map(String::from).to_vec();
        let own = warm_value(p.warm_fallback);
        if !w.contains(&own) {
            w.push(own);
        }
        dims.push(Dim {
            key: WARM.into(),
            values: w,
        });
    }
    Space { dims }
}

/// Parse `--vary KEY=FROM:TO:STEP` (both ends included; durations step in seconds) or
/// `KEY=A,B,C` (values as `--set` takes them, `none` and `after=N` included).
///
/// Errors: no `=`, a range whose bounds are not numbers or durations, a step that is not
/// positive, TO below FROM, more than 10,000 values, or an empty value.
pub fn parse_vary(spec: &str) -> Result<Dim, ValueError> {
    let usage = "expected KEY=FROM:TO:STEP or KEY=A,B,C, e.g. policy.timeout_s=5:60:5 or policy.breaker.threshold=none,1,3";
    let (key, range) = spec
        .split_once('=')
        .ok_or_else(|| ValueError::Invalid(format!("`{spec}`: {usage}")))?;
    let key = key.trim().to_string();
    crate::input::document::split_dotted_key(&key)
        .map_err(|e| ValueError::Invalid(format!("`{spec}`: {e}")))?;
    let parts: Vec<&str> = range.split(':').map(str::trim).collect();
    let values = if let [from, to, step] = parts[..] {
        let n = |p: &str| {
            p.parse::<f64>().or_else(|_| parse_seconds(p)).map_err(|_| {
                ValueError::Invalid(format!(
                    "`{spec}`: `{p}` is not a number or a duration; {usage}"
                ))
            })
        };
        let (from, to, step) = (n(from)?, n(to)?, n(step)?);
        if !(from.is_finite() && to.is_finite() && step.is_finite() && step > 0.0) {
            return Err(ValueError::Invalid(format!(
                "`{spec}`: STEP must be a positive finite number"
            )));
        }
        if to < from {
            return Err(ValueError::Invalid(format!(
                "`{spec}`: TO must not be below FROM"
            )));
        }
        let count = ((to - from) / step + 1e-9).floor() + 1.0;
        if count > 10_000.0 {
            return Err(ValueError::Invalid(format!(
                "`{spec}` has {count} values; at most 10,000"
            )));
        }
        (0..count as usize)
            .map(|i| num(from + i as f64 * step))
            .collect()
    } else {
        range
            .split(',')
            .map(|v| v.trim().to_string())
            .collect::<Vec<_>>()
    };
    if values.iter().any(String::is_empty) {
        return Err(ValueError::Invalid(format!(
            "`{spec}`: an empty value; {usage}"
        )));
    }
    Ok(Dim { key, values })
}

/// `--space FILE`: a `[space]` table of keys and their values (numbers or strings), and
/// `defaults = true` to keep the default keys the file does not list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpaceFile {
    defaults: Option<bool>,
    space: BTreeMap<String, Vec<toml::Value>>,
}

/// Parse a `--space` file's `text` (named `file` in errors): the keys and whether the
/// defaults stay for keys it does not list.
///
/// Errors: TOML syntax, an unknown field, a value that is not a number, string or boolean,
/// or a key with no values, each naming the file (and line where the parser knows it).
pub fn parse_space_file(file: &str, text: &str) -> Result<(Vec<Dim>, bool), ValueError> {
    let doc = Document::parse(file, text).map_err(|e| ValueError::Invalid(e.to_string()))?;
    let f: SpaceFile = doc
        .deserialize()
        .map_err(|e| ValueError::Invalid(e.to_string()))?;
    let mut dims = Vec::new();
    for (key, values) in f.space {
        crate::input::document::split_dotted_key(&key)
            .map_err(|e| ValueError::Invalid(format!("{file}: space.{key}: {e}")))?;
        if values.is_empty() {
            return Err(ValueError::Invalid(format!(
                "{file}: space.{key}: give at least one value"
            )));
        }
        let values = values
            .iter()
            .map(|v| match v {
                toml::Value::Integer(i) => Ok(i.to_string()),
                toml::Value::Float(x) => Ok(num(*x)),
                toml::Value::Boolean(b) => Ok(b.to_string()),
                toml::Value::String(s) => Ok(s.clone()),
                toml::Value::Array(a) => Ok(toml::Value::Array(a.clone()).to_string()),
                _ => Err(ValueError::Invalid(format!(
                    "{file}: space.{key}: {v} is not a number, string or list"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        dims.push(Dim { key, values });
    }
    Ok((dims, f.defaults.unwrap_or(false)))
}

impl Space {
    /// `self` with `dim` in place of the key of the same name, or added after the others. A
    /// key that names a whole table (`policy.breaker`) replaces the keys inside it
    /// (`policy.breaker.threshold`, `policy.breaker.cooldown_s`): each of its values sets the
    /// whole table, so the keys inside would only repeat its points.
    pub fn with(mut self, dim: Dim) -> Space {
        let inside = format!("{}.", dim.key);
        self.dims.retain(|d| !d.key.starts_with(&inside));
        match self.dims.iter_mut().find(|d| d.key == dim.key) {
            Some(d) => *d = dim,
            None => self.dims.push(dim),
        }
        self
    }

    /// The number of points of the full grid (before keys that cannot matter are folded).
    pub fn grid(&self) -> usize {
        self.dims
            .iter()
            .map(|d| d.values.len())
            .fold(1usize, usize::saturating_mul)
    }

    /// Every combination, the last key varying fastest; those that differ only in a key that
    /// cannot matter are one, and those with a hedge delay not below the timeout, or below the
    /// primary's own link timeout (`timeouts`), are left out.
    ///
    /// Errors: more than [`MAX_COMBINATIONS`] grid points.
    pub fn combos(&self, timeouts: &Timeouts) -> Result<Vec<Combo>, ValueError> {
        let total = self.grid();
        if total > MAX_COMBINATIONS {
            return Err(ValueError::Invalid(format!(
                "the space has {total} combinations; at most {MAX_COMBINATIONS}: narrow it with --vary or --space"
            )));
        }
        let mut out = Vec::new();
        let mut digits = vec![0usize; self.dims.len()];
        for index in 0..total {
            let mut rest = index;
            for (i, d) in self.dims.iter().enumerate().rev() {
                digits[i] = rest % d.values.len();
                rest /= d.values.len();
            }
            if let Some(c) = self.combo(&digits, timeouts) {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// The combination at `digits`, or `None` where a key that cannot matter is not at its
    /// first value, or the hedge delay is not below the timeout or the primary's own one (a
    /// hedge that never races the primary: the scenario refuses it).
    fn combo(&self, digits: &[usize], timeouts: &Timeouts) -> Option<Combo> {
        let value = |key: &str| {
            self.dims
                .iter()
                .zip(digits)
                .find(|(d, _)| d.key == key)
                .map(|(d, &i)| d.values[i].as_str())
        };
        let no_breaker = value(THRESHOLD) == Some("none");
        let no_retries = value(RETRIES) == Some("0");
        let timeout = value(TIMEOUT)
            .and_then(|t| t.parse::<f64>().ok())
            .unwrap_or(timeouts.policy_s);
        let primary_own = timeouts.primary_own(value(&timeouts.models_key));
        let mut set = Vec::new();
        let mut first_hedge = true;
        for (d, &i) in self.dims.iter().zip(digits) {
            let v = d.values[i].as_str();
            let idle = (no_breaker && d.key == COOLDOWN)
                || (no_retries && d.key.starts_with("policy.backoff."));
            if idle {
                if i != 0 {
                    return None;
                }
                continue;
            }
            if d.key == HEDGE_DELAY {
                first_hedge = i == 0;
                if v.parse::<f64>()
                    .is_ok_and(|h| h >= timeout || primary_own.is_some_and(|t| h >= t))
                {
                    return None;
                }
            }
            set.push(setting(&d.key, v));
        }
        Some(Combo { set, first_hedge })
    }
}

/// The `--set` pair of `key` at value `v`: `none` turns a breaker off as `policy.breaker=none`,
/// `after=N` sets `policy.warm_fallback.after=N`.
pub fn setting(key: &str, v: &str) -> (String, String) {
    if key == THRESHOLD && v == "none" {
        return ("policy.breaker".into(), "none".into());
    }
    if key == WARM
        && let Some(n) = v.strip_prefix("after=")
    {
        return (format!("{WARM}.after"), n.trim().to_string());
    }
    (key.to_string(), v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_lists() {
        let d = parse_vary("policy.timeout_s=5:20:5").unwrap();
        assert_eq!(d.values, ["5", "10", "15", "20"]);
        let d = parse_vary("policy.breaker.cooldown_s=30s:2m:30s").unwrap();
        assert_eq!(d.values, ["30", "60", "90", "120"]);
        let d = parse_vary("policy.breaker.threshold=none,1,3").unwrap();
        assert_eq!(d.values, ["none", "1", "3"]);
        for bad in ["x", "x=1:2:0", "x=2:1:1", "x=a:b:c", "x=1,,2"] {
            assert!(parse_vary(bad).is_err(), "{bad}");
        }
    }

    /// A cooldown without a breaker and a backoff without retries fold into one combination;
    /// a hedge delay at or above the timeout is skipped.
    #[test]
    fn combinations_fold_keys_that_cannot_matter() {
        let dim = |k: &str, v: &[&str]| Dim {
            key: k.into(),
            values: v.iter().map(|s| s.to_string()).collect(),
        };
        let space = Space {
            dims: vec![
                dim(TIMEOUT, &["5", "10"]),
                dim(RETRIES, &["0", "1"]),
                dim(BACKOFF, &["0.5", "2"]),
                dim(THRESHOLD, &["none", "3"]),
                dim(COOLDOWN, &["30", "60"]),
                dim(HEDGE_DELAY, &["none", "7"]),
            ],
        };
        let c = space.combos(&Timeouts::policy(30.0)).unwrap();
        // timeouts 5 and 10; retries 0 (1 backoff) or 1 (2 backoffs): 3; breaker off or 2
        // cooldowns: 3; hedge none, or 7 only below a 10 s timeout: 1 + 1 = 3 over both timeouts
        assert_eq!(c.len(), 3 * 3 * 3);
        assert!(c[0].set.contains(&("policy.breaker".into(), "none".into())));
        assert!(!c[0].set.iter().any(|(k, _)| k == COOLDOWN || k == BACKOFF));
        assert!(
            c.iter()
                .all(|x| !(x.set.contains(&(TIMEOUT.into(), "5".into()))
                    && x.set.contains(&(HEDGE_DELAY.into(), "7".into()))))
        );
    }

    /// A primary's own link timeout (`link_timeouts_s`) is its model's on every chain the
    /// space builds: a hedge delay not below it never races that primary, and is skipped where
    /// the model is first (the scenario refuses it), kept where another model is.
    #[test]
    fn a_hedge_delay_not_below_the_primarys_own_timeout_is_skipped() {
        let dim = |k: &str, v: &[&str]| Dim {
            key: k.into(),
            values: v.iter().map(|s| s.to_string()).collect(),
        };
        let space = Space {
            dims: vec![
                dim(
                    "chain.x.models",
                    &[r#"["a", "b"]"#, r#"["b", "a"]"#, r#"["c"]"#],
                ),
                dim(HEDGE_DELAY, &["none", "7"]),
            ],
        };
        let timeouts = Timeouts {
            policy_s: 30.0,
            models_key: "chain.x.models".into(),
            primary: "a".into(),
            own: vec![("b".into(), 5.0)],
        };
        let c = space.combos(&timeouts).unwrap();
        let hedged: Vec<&str> = c
            .iter()
            .filter(|x| x.set.contains(&(HEDGE_DELAY.into(), "7".into())))
            .map(|x| x.set[0].1.as_str())
            .collect();
        assert_eq!(hedged, [r#"["a", "b"]"#, r#"["c"]"#]);
        assert_eq!(c.len(), 5);
        // without a models key: the chain's own primary's
        let space = Space {
            dims: vec![dim(HEDGE_DELAY, &["none", "4", "7"])],
        };
        let own = Timeouts {
            primary: "b".into(),
            ..timeouts
        };
        assert_eq!(space.combos(&own).unwrap().len(), 2);
    }

    /// `--vary policy.breaker=none` sets the whole breaker table: the default keys inside it
    /// go, so the space is not its points repeated once per default threshold and cooldown.
    #[test]
    fn a_whole_table_replaces_the_keys_inside_it() {
        let dim = |k: &str, v: &[&str]| Dim {
            key: k.into(),
            values: v.iter().map(|s| s.to_string()).collect(),
        };
        let space = Space {
            dims: vec![
                dim(TIMEOUT, &["10", "30"]),
                dim(THRESHOLD, &["none", "2", "5"]),
                dim(COOLDOWN, &["30", "60"]),
            ],
        }
        .with(dim("policy.breaker", &["none"]));
        let keys: Vec<&str> = space.dims.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, [TIMEOUT, "policy.breaker"]);
        assert_eq!(space.combos(&Timeouts::policy(30.0)).unwrap().len(), 2);
        // a key inside a table replaces only itself
        let space = space.with(dim(COOLDOWN, &["90"]));
        assert_eq!(space.dims.len(), 3);
    }

    #[test]
    fn candidate_chains_are_every_order_up_to_three() {
        let own = vec!["a".to_string(), "b".to_string()];
        let c = chains_of(&own, &["c".to_string()]);
        // the own order first, then 3 + 6 + 6 distinct orders of 1, 2 and 3 models
        assert_eq!(c[0], r#"["a", "b"]"#);
        assert_eq!(c.len(), 3 + 6 + 6);
        assert_eq!(models_of(&c[0]), own);
        assert_eq!(
            setting(WARM, "after=3"),
            (format!("{WARM}.after"), "3".into())
        );
    }
}
