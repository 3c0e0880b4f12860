//! Which chain of BASE is which chain of HEAD: by the traffic they serve first (a gateway
//! chain's primary group and primary model, a scenario chain's name and primary), then by
//! name, then by a primary model only one unpaired chain of each side has (a chain moved
//! between formats). A BASE chain left over whose group HEAD still serves without a fallback
//! is the same traffic on the primary alone ([`Pairing::Lost`]). A renamed chain keeps the
//! `[usage.chains]` traffic BASE's name had ([`carry_renamed_traffic`]); a key that matches no
//! chain is a warning ([`unmatched_keys`]).

use super::DiffSide;
use crate::input::settings::UsageSettings;
use crate::model::Chain;
use crate::model::provenance::Served;

/// One chain of the diff: indices into BASE's and HEAD's chains.
#[derive(Debug, Clone, PartialEq)]
pub enum Pairing {
    /// The same traffic on both sides (BASE, HEAD); the names may differ (a rename or move).
    Both(usize, usize),
    /// Only in HEAD.
    Added(usize),
    /// Only in BASE.
    Removed(usize),
    /// BASE's chain whose group HEAD still serves, on this deployment, with no fallback.
    Lost(usize, Served),
}

/// The traffic a chain serves: a gateway chain's (group, primary model as the config names
/// it), a scenario chain's (name, primary's price id).
fn key(side: &DiffSide, c: &Chain) -> (String, String) {
    match side.served(&c.name) {
        Some(s) => (s.group.clone(), s.primary.clone()),
        None => (c.name.clone(), primary(c)),
    }
}

fn primary(c: &Chain) -> String {
    c.links
        .first()
        .map(|l| l.price.id.clone())
        .unwrap_or_default()
}

fn config(side: &DiffSide, c: &Chain) -> Option<String> {
    side.served(&c.name).map(|s| s.config.clone())
}

/// Pair BASE's chains with HEAD's; `lone` is every deployment HEAD's groups serve
/// ([`crate::input::gateway::price::served_groups`]). In HEAD's order, then BASE's leftovers.
pub fn pair(base: &DiffSide, head: &DiffSide, lone: &[Served]) -> Vec<Pairing> {
    let (bc, hc) = (&base.scenario.chains, &head.scenario.chains);
    let mut of_head: Vec<Option<usize>> = vec![None; hc.len()];
    let mut taken = vec![false; bc.len()];
    // 1. the same traffic: among several candidates the same config and name first
    for (i, h) in hc.iter().enumerate() {
        let k = key(head, h);
        let best = (0..bc.len())
            .filter(|&j| !taken[j] && key(base, &bc[j]) == k)
            .max_by_key(|&j| {
                let same_config = config(base, &bc[j]) == config(head, h);
                let same_name = bc[j].name == h.name;
                (
                    same_config && same_name,
                    same_name,
                    same_config,
                    usize::MAX - j,
                )
            });
        if let Some(j) = best {
            taken[j] = true;
            of_head[i] = Some(j);
        }
    }
    // 2. by name
    for (i, h) in hc.iter().enumerate() {
        if of_head[i].is_some() {
            continue;
        }
        if let Some(j) = (0..bc.len()).find(|&j| !taken[j] && bc[j].name == h.name) {
            taken[j] = true;
            of_head[i] = Some(j);
        }
    }
    // 3. a primary model only one unpaired chain of each side has
    for (i, h) in hc.iter().enumerate() {
        if of_head[i].is_some() {
            continue;
        }
        let p = primary(h);
        let heads = (0..hc.len())
            .filter(|&x| of_head[x].is_none() && primary(&hc[x]) == p)
            .count();
        let bases: Vec<usize> = (0..bc.len())
            .filter(|&j| !taken[j] && primary(&bc[j]) == p)
            .collect();
        if heads == 1 && bases.len() == 1 {
            taken[bases[0]] = true;
            of_head[i] = Some(bases[0]);
        }
    }
    let mut out: Vec<Pairing> = of_head
        .iter()
        .enumerate()
        .map(|(i, j)| match j {
            Some(j) => Pairing::Both(*j, i),
            None => Pairing::Added(i),
        })
        .collect();
    for (j, b) in bc.iter().enumerate() {
        if taken[j] {
            continue;
        }
        let still = base.served(&b.name).and_then(|s| {
            lone.iter()
                .find(|g| g.group == s.group && g.primary == s.primary)
        });
        out.push(match still {
            Some(g) if b.links.len() > 1 => Pairing::Lost(j, g.clone()),
            _ => Pairing::Removed(j),
        });
    }
    out
}

/// The `[usage.chains]` key chain `name` (primary group `group`) takes its traffic from.
fn usage_key<'u>(usage: &'u UsageSettings, name: &str, group: Option<&str>) -> Option<&'u str> {
    let group = group.unwrap_or_else(|| name.split([' ', '(']).next().unwrap_or(name));
    usage
        .chains
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| usage.chains.iter().find(|(k, _)| k == group))
        .map(|(k, _)| k.as_str())
}

fn key_of<'u>(usage: &'u UsageSettings, side: &DiffSide, c: &Chain) -> Option<&'u str> {
    usage_key(
        usage,
        &c.name,
        side.served(&c.name).map(|s| s.group.as_str()),
    )
}

/// A HEAD chain matched to a BASE chain whose `[usage.chains]` key matches nothing in HEAD
/// (the group or chain was renamed) keeps BASE's traffic for it, said in a warning: a rename
/// moves no traffic.
pub fn carry_renamed_traffic(
    (usage_b, usage): (&UsageSettings, &UsageSettings),
    (base, head): (&DiffSide, &DiffSide),
    pairs: &[Pairing],
    head_traffic: &mut [super::sides::Traffic],
    warnings: &mut Vec<String>,
) {
    let head_keys: Vec<Option<&str>> = head
        .scenario
        .chains
        .iter()
        .map(|c| key_of(usage, head, c))
        .collect();
    for p in pairs {
        let Pairing::Both(j, i) = *p else {
            continue;
        };
        let (b, h) = (&base.scenario.chains[j], &head.scenario.chains[i]);
        let Some(k) = key_of(usage_b, base, b) else {
            continue;
        };
        if head_keys[i].is_some() || head_keys.contains(&Some(k)) {
            continue;
        }
        let Some(n) = usage.chains.iter().find(|(x, _)| x == k).map(|x| x.1) else {
            continue;
        };
        let share = match head.served(&h.name) {
            _ if k == b.name => 1.0,
            Some(s) => s.share,
            None => h.traffic_share.unwrap_or(1.0),
        };
        head_traffic[i] = Some((
            n * share,
            format!(
                "{} [usage.chains] \"{k}\" × {share}, BASE's name of this chain",
                usage.file
            ),
        ));
        warnings.push(format!(
            "{} [usage.chains] \"{k}\" names BASE's `{}`, renamed `{}` in HEAD: HEAD keeps its traffic; add the new name to {} to say so",
            usage.file, b.name, h.name, usage.file
        ));
    }
}

/// A warning for each `[usage.chains]` key that matches no chain of either side: its traffic
/// is priced nowhere.
pub fn unmatched_keys(
    usage: &UsageSettings,
    (base, head): (&DiffSide, &DiffSide),
    out: &mut Vec<String>,
) {
    for (k, n) in &usage.chains {
        let used = [base, head].iter().any(|side| {
            side.scenario
                .chains
                .iter()
                .any(|c| key_of(usage, side, c) == Some(k.as_str()))
        });
        if !used {
            let names: Vec<String> = head
                .scenario
                .chains
                .iter()
                .map(|c| {
                    head.served(&c.name)
                        .map_or(c.name.clone(), |s| s.group.clone())
                })
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            out.push(format!(
                "{} [usage.chains] \"{k}\" ({} requests/month) matches no chain or group of BASE or HEAD: priced nowhere (HEAD has: {})",
                usage.file,
                crate::number::count(*n),
                names.join(", ")
            ));
        }
    }
}
