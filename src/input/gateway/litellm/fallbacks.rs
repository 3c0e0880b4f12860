//! The fallback lists of a LiteLLM config (`fallbacks`, `default_fallbacks`,
//! `context_window_fallbacks`, `content_policy_fallbacks`) as its router looks them up
//! (`get_fallback_model_group`), and the walk through them that finds every group a chain reaches
//! (with loops and self-links).

use std::collections::{HashMap, HashSet};

use super::Out;
use super::model_list::{ModelList, string_list};
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{Node, NodeValue, Notice, Place};
use crate::model::PriceTable;

/// One declared fallback entry: a group (or `*`) and the groups it falls back to.
pub(super) struct FallbackEntry<'n> {
    /// The group, as written.
    pub(super) key: &'n str,
    /// Where the key is.
    pub(super) at: Place,
    /// The fallbacks, each with its place.
    pub(super) targets: Vec<(&'n str, Place)>,
}

/// One kind of fallback list as LiteLLM acts on it: `get_fallback_model_group` for `fallbacks`
/// (exact key, else the key without the provider prefix, else `*`), an exact key only for the
/// other kinds.
pub(super) struct Lists<'n> {
    /// The effective list's field, e.g. `router_settings.fallbacks`.
    pub(super) field: String,
    pub(super) entries: Vec<FallbackEntry<'n>>,
    /// The first entry of each key (exact matches stop there).
    pub(super) first: HashMap<&'n str, usize>,
    /// The last entry of each key (a stripped match keeps looking).
    pub(super) last: HashMap<&'n str, usize>,
    /// The `*` fallbacks and the field they come from (`default_fallbacks` or `fallbacks["*"]`).
    pub(super) star: Option<(FallbackEntry<'n>, String)>,
    /// Whether stripped keys and `*` apply (`fallbacks` only).
    pub(super) generic: bool,
}

impl<'n> Lists<'n> {
    /// The entry LiteLLM uses for a request for `group` (`get_fallback_model_group`), with the
    /// field it is declared in: the group's own entry, else `*`.
    pub(super) fn lookup(
        &self,
        group: &str,
        providers: &Providers,
    ) -> Option<(&FallbackEntry<'n>, &str)> {
        self.specific(group, providers)
            .or_else(|| self.star.as_ref().map(|(e, field)| (e, field.as_str())))
    }

    /// The entry LiteLLM uses on a fallback hop to `group` from a walk that started at `root`
    /// (`fallback_lookup_groups`, `get_fallback_model_group_for_lookup_groups`): `group`'s own
    /// entry, else the root's own entry (the hop resumes the original group's chain), else `*`.
    pub(super) fn lookup_hop(
        &self,
        group: &str,
        root: &str,
        providers: &Providers,
    ) -> Option<(&FallbackEntry<'n>, &str)> {
        self.specific(group, providers)
            .or_else(|| self.specific(root, providers))
            .or_else(|| self.star.as_ref().map(|(e, field)| (e, field.as_str())))
    }

    /// `group`'s own entry, as `get_fallback_model_group` matches it: the first entry keyed by
    /// the group, else (for `fallbacks`) the last keyed by the group without its provider prefix
    /// (`_check_stripped_model_group`) or, for a group without one, by the group with the
    /// provider LiteLLM infers for it (`_provider_prefixed_model_group`: a key
    /// `openai/gpt-4o-mini` applies to a group `gpt-4o-mini`).
    pub(super) fn specific(
        &self,
        group: &str,
        providers: &Providers,
    ) -> Option<(&FallbackEntry<'n>, &str)> {
        if let Some(&i) = self.first.get(group) {
            return Some((&self.entries[i], &self.field));
        }
        if !self.generic {
            return None;
        }
        let key = match providers.strip(group) {
            Some(bare) => self.last.get(bare),
            None => providers
                .prefixed(group)
                .and_then(|prefixed| self.last.get(prefixed.as_str())),
        };
        key.map(|&i| (&self.entries[i], self.field.as_str()))
    }
}

/// The provider prefixes LiteLLM strips from a group name to find its fallbacks, and the price
/// table that says which provider a bare model id belongs to.
pub(super) struct Providers<'p> {
    /// The prefixes (`litellm.provider_list` and the price table's providers).
    pub(super) prefixes: HashSet<&'p str>,
    /// The table: a bare id's provider is its entry's (`gpt-4o-mini` is `openai`'s).
    pub(super) prices: &'p PriceTable,
}

impl Providers<'_> {
    /// `group` without its provider prefix (`anthropic/claude-sonnet-5` → `claude-sonnet-5`), as
    /// `_check_stripped_model_group` matches it; `None` when it has none.
    pub(super) fn strip<'g>(&self, group: &'g str) -> Option<&'g str> {
        group
            .split_once('/')
            .filter(|(p, _)| self.prefixes.contains(p))
            .map(|(_, bare)| bare)
    }

    /// A bare `group` with the provider LiteLLM infers for it (`gpt-4o-mini` →
    /// `openai/gpt-4o-mini`), as `_provider_prefixed_model_group` builds it; `None` for a group
    /// with a `/` or one the price table does not know.
    pub(super) fn prefixed(&self, group: &str) -> Option<String> {
        if group.contains('/') {
            return None;
        }
        let provider = &self.prices.models.get(group)?.provider;
        Some(format!("{provider}/{group}"))
    }
}

impl<'n> Lists<'n> {
    pub(super) fn new(field: String, entries: Vec<FallbackEntry<'n>>, generic: bool) -> Lists<'n> {
        let (mut first, mut last) = (HashMap::new(), HashMap::new());
        let mut star = None;
        let mut kept = Vec::new();
        for e in entries {
            if e.key == "*" {
                if generic {
                    star = Some(e);
                }
                continue;
            }
            first.entry(e.key).or_insert(kept.len());
            last.insert(e.key, kept.len());
            kept.push(e);
        }
        let star = star.map(|e| (e, format!("{field}[\"*\"]")));
        Lists {
            field,
            entries: kept,
            first,
            last,
            star,
            generic,
        }
    }
}

/// What one fallbacks list is read against: its file, its field and its kind.
struct ListContext<'a> {
    file: &'a str,
    field: &'a str,
    kind: &'a str,
}

impl ListContext<'_> {
    /// A schema error at `node`, in field `field`.
    fn schema(&self, node: &Node, field: String, message: String) -> InputError {
        node.error(self.file, InputErrorKind::Schema, field, message)
    }
}

/// Parse one fallbacks list (`None` when it is null). Warns about what LiteLLM never reads:
/// a later entry for the same group, an earlier `*` entry, a second key of a
/// `context_window_fallbacks` entry; notes empty lists and self-fallbacks.
///
/// Errors: not a list of `{group: [groups]}` maps; a `fallbacks` or `content_policy_fallbacks`
/// entry without exactly one key (LiteLLM's router refuses it at startup).
pub(super) fn parse_list<'n>(
    file: &str,
    list: &'n Node,
    field: &str,
    kind: &str,
    out: &mut Out,
) -> Result<Option<Vec<FallbackEntry<'n>>>, InputError> {
    let cx = ListContext { file, field, kind };
    let Some(items) = list_items(&cx, list, out)? else {
        return Ok(None);
    };
    let mut entries: Vec<FallbackEntry> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let entry = parse_entry(&cx, i, item, out)?;
        check_entry(&cx, &entry, &entries, &mut seen, out);
        entries.push(entry);
    }
    Ok(Some(entries))
}

/// The items of a fallbacks list (`None` when it is null); notes an empty list.
///
/// Errors: the list is neither null nor a sequence.
fn list_items<'n>(
    cx: &ListContext,
    list: &'n Node,
    out: &mut Out,
) -> Result<Option<&'n [Node]>, InputError> {
    let items = match &list.value {
        NodeValue::Null => return Ok(None),
        NodeValue::Seq(items) => items,
        _ => {
            return Err(cx.schema(
                list,
                cx.field.to_string(),
                format!(
                    "expected a list of {{group: [fallback groups]}} maps, e.g. [{{\"a\": [\"b\"]}}]; got {}",
                    list.kind()
                ),
            ));
        }
    };
    if items.is_empty() {
        out.notice(
            Place::of(list),
            Notice::Empty {
                what: cx.field.to_string(),
            },
        );
    }
    Ok(Some(items))
}

/// Item `i` of a fallbacks list as an entry: its first key and that key's target list; warns
/// about (or, outside `context_window_fallbacks`, refuses) further keys and notes an empty
/// target list.
///
/// Errors: not a map, an empty map, a second key where LiteLLM refuses one, a key that is not a
/// string, targets that are not a list of strings.
fn parse_entry<'n>(
    cx: &ListContext,
    i: usize,
    item: &'n Node,
    out: &mut Out,
) -> Result<FallbackEntry<'n>, InputError> {
    let (field, at) = (cx.field, format!("{}[{i}]", cx.field));
    let NodeValue::Map(pairs) = &item.value else {
        return Err(cx.schema(
            item,
            at,
            format!(
                "expected a {{group: [fallback groups]}} map; got {}",
                item.kind()
            ),
        ));
    };
    let Some((k, v)) = pairs.first() else {
        return Err(cx.schema(
            item,
            at,
            "expected a {group: [fallback groups]} map with one key; got an empty mapping".into(),
        ));
    };
    extra_keys(cx, &at, pairs, out)?;
    let Some(from) = k.as_str() else {
        return Err(cx.schema(
            k,
            at,
            format!("expected a group name as key; got {}", k.kind()),
        ));
    };
    let targets = string_list(cx.file, v, &format!("{at}.{from}"))?;
    if targets.is_empty() {
        out.notice(
            Place::of(v),
            Notice::Empty {
                what: format!("{field} of `{from}`"),
            },
        );
    }
    Ok(FallbackEntry {
        key: from,
        at: Place::of(k),
        targets,
    })
}

/// The keys after the first of the entry at `at`: an error for `fallbacks` and
/// `content_policy_fallbacks` (LiteLLM's router refuses them), ignored (with a warning) for
/// `context_window_fallbacks`.
fn extra_keys(
    cx: &ListContext,
    at: &str,
    pairs: &[(Node, Node)],
    out: &mut Out,
) -> Result<(), InputError> {
    let field = cx.field;
    let Some((extra, _)) = pairs.get(1) else {
        return Ok(());
    };
    let name = extra
        .as_str()
        .map_or_else(|| extra.describe(), str::to_string);
    if cx.kind != "context_window_fallbacks" {
        return Err(cx.schema(
            extra,
            at.to_string(),
            format!(
                "a {field} entry has exactly one key; this one also has `{name}` (LiteLLM's router refuses the config: \"must have exactly one key\"); give `{name}` its own `- {name}: [...]` item"
            ),
        ));
    }
    for (extra, _) in &pairs[1..] {
        let name = extra
            .as_str()
            .map_or_else(|| extra.describe(), str::to_string);
        out.ignored(
            Place::of(extra),
            format!("`{name}` in {at}"),
            format!(
                "LiteLLM reads only the first key of each entry; give `{name}` its own `- {name}: [...]` item"
            ),
        );
    }
    Ok(())
}

/// Warns about what LiteLLM never reads of `entry`, given the `entries` before it (`seen`: the
/// first entry of each group): a later entry for a group, a `*` entry outside `fallbacks`, an
/// earlier `*` entry; notes self-fallbacks.
fn check_entry<'n>(
    cx: &ListContext,
    entry: &FallbackEntry<'n>,
    entries: &[FallbackEntry<'n>],
    seen: &mut HashMap<&'n str, usize>,
    out: &mut Out,
) {
    let (field, from) = (cx.field, entry.key);
    if from != "*" {
        if let Some(&j) = seen.get(from) {
            out.ignored(
                entry.at.clone(),
                format!("this {field} entry for `{from}`"),
                format!(
                    "LiteLLM uses the first entry for a group (line {}); merge the two",
                    entries[j].at.line
                ),
            );
        } else {
            seen.insert(from, entries.len());
        }
        for (to, at) in &entry.targets {
            if *to == from {
                out.notice(
                    at.clone(),
                    Notice::SelfFallback {
                        group: from.to_string(),
                    },
                );
            }
        }
    } else if cx.kind != "fallbacks" {
        out.ignored(
            entry.at.clone(),
            format!("the `*` entry of {field}"),
            "LiteLLM applies `*` (and default_fallbacks) to `fallbacks` only".into(),
        );
    } else if let Some(prev) = entries.iter().rev().find(|e| e.key == "*") {
        out.ignored(
            prev.at.clone(),
            format!("this `*` entry of {field}"),
            format!("LiteLLM uses the last `*` entry (line {})", entry.at.line),
        );
    }
}

/// A fallback reached by a walk.
pub(super) struct Reached<'n> {
    /// The group whose failure leads to it.
    pub(super) from: &'n str,
    /// The fallback.
    pub(super) to: &'n str,
    /// Where `to` is declared.
    pub(super) at: Place,
    /// The key of the entry it is declared in (`*`, the root's key when the hop resumes the
    /// root's chain, or `from`'s own key).
    pub(super) key: &'n str,
    /// The groups between the primary and `to` (none when `to` is declared in the root's own
    /// entry).
    pub(super) via: Vec<String>,
}

/// Every fallback LiteLLM tries after `root` fails, in the order it tries them, when every
/// deployment fails (`run_async_fallback`, `litellm/router_utils/fallback_event_handlers.py`):
/// a group's chain ([`Lists::lookup_hop`]) is tried in order, each target's own chain before the
/// next target (a depth-first walk); a target already attempted in this request (the root
/// included) or the failing group itself is skipped without counting (`attempted_targets`);
/// every other target adds one to the fallback depth of its level, and a chain is only entered
/// while the depth is below `max_fallbacks`. A name that resolves to no deployment still goes on
/// to its own fallbacks (the router's "no deployment" error fails over like any other). Each
/// name is reached at most once, so the walk is O(entries).
pub(super) fn walk<'n>(
    root: &'n str,
    lists: &'n Lists<'n>,
    providers: &Providers,
    max_fallbacks: usize,
) -> Vec<Reached<'n>> {
    let mut attempted: HashSet<&str> = HashSet::from([root]);
    let mut out = Vec::new();
    // One frame per group whose chain is being tried: the group, its entry, the next target's
    // index, and the depth so far at that level.
    struct Frame<'n> {
        group: &'n str,
        entry: &'n FallbackEntry<'n>,
        next: usize,
        depth: usize,
    }
    let enter = |group: &'n str, depth: usize| -> Option<Frame<'n>> {
        if depth >= max_fallbacks {
            return None;
        }
        let (entry, _) = lists.lookup_hop(group, root, providers)?;
        Some(Frame {
            group,
            entry,
            next: 0,
            depth,
        })
    };
    let mut stack: Vec<Frame> = enter(root, 0).into_iter().collect();
    while let Some(top) = stack.last_mut() {
        let Some((to, at)) = top.entry.targets.get(top.next) else {
            stack.pop();
            continue;
        };
        top.next += 1;
        if *to == top.group || !attempted.insert(to) {
            continue;
        }
        top.depth += 1;
        let (from, key, depth, entry) = (top.group, top.entry.key, top.depth, top.entry);
        // A target of the root's own entry (a hop that resumes the root's chain) is declared as
        // the root's direct fallback; any other is reached through the groups on the stack.
        let via = if std::ptr::eq(entry, stack[0].entry) {
            Vec::new()
        } else {
            stack[1..].iter().map(|f| f.group.to_string()).collect()
        };
        out.push(Reached {
            from,
            to,
            at: at.clone(),
            key,
            via,
        });
        if let Some(frame) = enter(to, depth) {
            stack.push(frame);
        }
    }
    out
}

/// The loops of one kind of fallbacks: for each set of groups that fall back to each other
/// (a strongly connected set of two or more), the shortest cycle through its first group by
/// name, with where its closing link is declared and how many groups of the set it leaves out.
pub(super) fn loops(
    models: &ModelList,
    lists: &Lists,
    providers: &Providers,
) -> Vec<(Place, Vec<String>, usize)> {
    let edges = loop_edges(models, lists, providers);
    strongly_connected(&edges)
        .into_iter()
        .filter_map(|scc| shortest_cycle(models, &edges, &scc))
        .collect()
}

/// The fallback links between model groups, by group index: each group's targets (other than
/// itself) that are groups, with where each is declared.
fn loop_edges(
    models: &ModelList,
    lists: &Lists,
    providers: &Providers,
) -> Vec<Vec<(usize, Place)>> {
    models
        .groups
        .iter()
        .map(|(g, _)| {
            lists
                .lookup(g, providers)
                .map(|(e, _)| {
                    e.targets
                        .iter()
                        .filter(|(t, _)| t != g)
                        .filter_map(|(t, at)| models.index.get(*t).map(|&j| (j, at.clone())))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// The strongly connected sets of two or more nodes of `edges` (Tarjan's algorithm, iterative),
/// in the order Tarjan completes them.
fn strongly_connected(edges: &[Vec<(usize, Place)>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut sccs, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some((w, _)) = edges[v].get(*i) {
                *i += 1;
                let w = *w;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(p, _)) = work.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    sccs.push(scc);
                }
            }
        }
    }
    sccs
}

/// The shortest cycle within `scc` through its first group by name (breadth-first), with where
/// its closing link is declared and how many groups of the set it leaves out; `None` when no
/// link leads back to that group.
fn shortest_cycle(
    models: &ModelList,
    edges: &[Vec<(usize, Place)>],
    scc: &[usize],
) -> Option<(Place, Vec<String>, usize)> {
    let name = |i: usize| models.groups[i].0.clone();
    let members: HashSet<usize> = scc.iter().copied().collect();
    let start = *scc
        .iter()
        .min_by_key(|&&i| &models.groups[i].0)
        .expect("not empty");
    // Breadth-first from `start` within the set, until a link back to it.
    let mut prev: HashMap<usize, usize> = HashMap::from([(start, start)]);
    let mut queue = std::collections::VecDeque::from([start]);
    let mut closing = None;
    'bfs: while let Some(v) = queue.pop_front() {
        for (w, at) in &edges[v] {
            if *w == start {
                closing = Some((v, at.clone()));
                break 'bfs;
            }
            if members.contains(w) && !prev.contains_key(w) {
                prev.insert(*w, v);
                queue.push_back(*w);
            }
        }
    }
    let (last, at) = closing?;
    let mut cycle = vec![name(start)];
    let mut path = vec![last];
    while *path.last().expect("a path") != start {
        let p = prev[path.last().expect("a path")];
        path.push(p);
    }
    path.pop();
    path.reverse();
    cycle.extend(path.into_iter().map(name));
    cycle.push(name(start));
    let more = scc.len() - (cycle.len() - 1);
    Some((at, cycle, more))
}
