//! The price table the years read: every sample's duration and its chains' prices, priced once
//! before any year is drawn, with rows and columns alike to the bit stored once.

use std::collections::HashMap;

use super::{IncidentPrice, ProviderHistory, Sample};

/// Columns of a row are padded to a multiple of this (one AVX2 vector of `f64`).
pub(super) const LANE_WIDTH: usize = 4;

/// The price table: per process, its samples as rows; per row its duration and its distinct
/// price columns side by side (one drawn incident reads one contiguous run).
///
/// Samples alike to the bit (duration and every price) share one row: a history's windows of
/// one shape cost the same, and a drawn year's random reads then stay in the processor's cache
/// (issue 21 item 9). Columns alike to the bit over every row (a chain's failed requests on
/// three of its four patterns, the no-fallback pattern on every chain: it tries the primary
/// alone) are stored once (issue 33 item 6): a column's yearly sum is the same sum, term by
/// term, whichever of its chains reads it.
pub(super) struct Table {
    /// Per process, its first sample in `rows` and its count.
    pub spans: Vec<(u32, u32)>,
    /// Per sample (processes one after another), its length in seconds and its row (one load
    /// where a drawn sample is looked up).
    pub samples: Vec<(f64, u32)>,
    /// Distinct columns, padded with zeros to a multiple of [`LANE_WIDTH`]: a row's stride.
    pub width: usize,
    /// Distinct columns before the padding.
    pub columns: usize,
    /// Row-major, `width` per row.
    pub prices: Vec<f64>,
    /// Per chain, the columns of its premium and of its failed requests.
    pub chain_columns: Vec<(usize, usize)>,
}

#[cfg(test)]
impl Table {
    /// The row of sample `i` of process `p`.
    pub fn row(&self, p: usize, i: usize) -> u32 {
        self.samples[self.spans[p].0 as usize + i].1
    }

    /// Per sample, its row.
    pub fn rows(&self) -> Vec<u32> {
        self.samples.iter().map(|s| s.1).collect()
    }

    /// Per row, its length.
    pub fn durations(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.prices.len() / self.width];
        for &(d, row) in &self.samples {
            out[row as usize] = d;
        }
        out
    }

    /// The `chains` prices of `row`, as the pricing function gave them.
    pub fn of(&self, row: u32) -> Vec<IncidentPrice> {
        let at = row as usize * self.width;
        self.chain_columns
            .iter()
            .map(|&(p, f)| IncidentPrice {
                premium_usd: self.prices[at + p],
                failed_requests: self.prices[at + f],
            })
            .collect()
    }
}

/// [`distinct_rows`]' result: per provider its samples' span of the row list, per sample its
/// row, per row its duration, and per row its `2 × chains` prices.
type DistinctRows = (Vec<(u32, u32)>, Vec<u32>, Vec<f64>, Vec<f64>);

/// The distinct rows: per sample its row, per row its duration and its `2 × chains` prices
/// (premium, failed per chain).
fn distinct_rows<S: Sample>(
    providers: &[ProviderHistory<S>],
    chains: usize,
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
) -> DistinctRows {
    let (mut spans, mut rows, mut durations) = (Vec::new(), Vec::new(), Vec::new());
    let mut full: Vec<f64> = Vec::new();
    let mut seen: HashMap<Vec<u64>, u32> = HashMap::new();
    for (p, h) in providers.iter().enumerate() {
        let first = u32::try_from(rows.len()).expect("fewer than 2³² samples");
        for s in &h.samples {
            let duration = s.duration_s().max(0.0);
            let prices: Vec<f64> = (0..chains)
                .map(|c| price(c, p, s))
                .flat_map(|x| [x.premium_usd, x.failed_requests])
                .collect();
            let key = std::iter::once(duration)
                .chain(prices.iter().copied())
                .map(f64::to_bits)
                .collect();
            let next = u32::try_from(durations.len()).expect("fewer than 2³² rows");
            let row = *seen.entry(key).or_insert_with(|| {
                durations.push(duration);
                full.extend_from_slice(&prices);
                next
            });
            rows.push(row);
        }
        let n = u32::try_from(h.samples.len()).expect("fewer than 2³² samples");
        spans.push((first, n));
    }
    (spans, rows, durations, full)
}

/// Price every sample of `providers` for `chains` chains (`price(chain, process, sample)`, once
/// each) into a [`Table`].
pub(super) fn table<S: Sample>(
    providers: &[ProviderHistory<S>],
    chains: usize,
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
) -> Table {
    let (spans, rows, durations, full) = distinct_rows(providers, chains, price);
    let n_rows = durations.len();
    let stride = 2 * chains;
    // the distinct columns, in first-seen order: column j of the full rows is kept[of[j]]
    let mut seen: HashMap<Vec<u64>, usize> = HashMap::new();
    let mut kept: Vec<usize> = Vec::new();
    let of: Vec<usize> = (0..stride)
        .map(|j| {
            let key: Vec<u64> = (0..n_rows)
                .map(|r| full[r * stride + j].to_bits())
                .collect();
            let next = kept.len();
            *seen.entry(key).or_insert_with(|| {
                kept.push(j);
                next
            })
        })
        .collect();
    let columns = kept.len();
    let width = columns.div_ceil(LANE_WIDTH).max(1) * LANE_WIDTH;
    let mut prices = vec![0.0; n_rows * width];
    for r in 0..n_rows {
        for (k, &j) in kept.iter().enumerate() {
            prices[r * width + k] = full[r * stride + j];
        }
    }
    Table {
        spans,
        samples: rows.iter().map(|&r| (durations[r as usize], r)).collect(),
        width,
        columns,
        prices,
        chain_columns: (0..chains).map(|c| (of[2 * c], of[2 * c + 1])).collect(),
    }
}
