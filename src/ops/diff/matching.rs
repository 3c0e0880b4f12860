//! Which chain of BASE is which chain of HEAD: by the traffic they serve first (a gateway
//! chain's primary group and primary model, a scenario chain's name and primary), then by
//! name, then by a primary model only one unpaired chain of each side has (a chain moved
//! between formats). A BASE chain left over whose group HEAD still serves without a fallback
//! is the same traffic on the primary alone ([`Pairing::Lost`]).

use super::Side;
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
fn key(side: &Side, c: &Chain) -> (String, String) {
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

fn config(side: &Side, c: &Chain) -> Option<String> {
    side.served(&c.name).map(|s| s.config.clone())
}

/// Pair BASE's chains with HEAD's; `lone` is every deployment HEAD's groups serve
/// ([`crate::input::gateway::price::served_groups`]). In HEAD's order, then BASE's leftovers.
pub fn pair(base: &Side, head: &Side, lone: &[Served]) -> Vec<Pairing> {
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
