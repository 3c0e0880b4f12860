//! "Did you mean …?" for misspelled keys and model ids. A leaf: it uses no other module, and
//! both [`crate::input`] (file keys) and [`crate::model`] (price table ids) use it.

/// The candidate closest to `word` by edit distance (a swap of two neighbouring letters counts
/// as one edit), if it is close enough to be a likely typo: at most a third of the word's
/// length, and at least 1, edits away. A word of three or more letters that a single candidate
/// begins with (`p50` for `p50_s`) is suggested too, when nothing is closer.
pub fn nearest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(1);
    let word = word.to_lowercase();
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let close = candidates
        .iter()
        .map(|c| (edits(&word, &c.to_lowercase(), true), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    close.or_else(|| {
        let mut starting = candidates
            .iter()
            .filter(|c| word.chars().count() >= 3 && c.to_lowercase().starts_with(&word));
        match (starting.next(), starting.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    })
}

/// The key of `read` that `key` is a near miss of, if any: at most `max_edits` edits away and
/// starting with the same `stem` characters (ignoring case; 2 for most keys), the nearest first. `key` itself being
/// one of `read`, or a read key followed by `_` (`input_cost_per_token_batches`, a different key),
/// is not a near miss. The rule the third-party formats use, where unknown keys are accepted but
/// a misspelling of a key fallcost reads would silently drop a price or a fallback.
pub fn near_miss<'r>(
    key: &str,
    read: &[&'r str],
    max_edits: usize,
    stem: usize,
) -> Option<&'r str> {
    let stem = |s: &str| {
        s.chars()
            .take(stem)
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    if read.contains(&key) || read.iter().any(|n| key.starts_with(&format!("{n}_"))) {
        return None;
    }
    read.iter()
        .filter(|n| stem(n) == stem(key))
        .map(|n| (levenshtein(key, n), *n))
        .filter(|(d, _)| *d <= max_edits)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// The Levenshtein distance between two strings, in characters.
pub fn levenshtein(a: &str, b: &str) -> usize {
    edits(a, b, false)
}

/// The edit distance between two strings, in characters: insertions, deletions and
/// substitutions, and with `swaps` also a swap of two neighbours (`chian` is one edit from
/// `chain`; the optimal string alignment distance).
fn edits(a: &str, b: &str, swaps: bool) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the table, each b.len() + 1 long.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if swaps && i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
        assert_eq!(levenshtein("chian", "chain"), 2);
        assert_eq!(edits("chian", "chain", true), 1);
        assert_eq!(edits("ab", "ba", true), 1);
        assert_eq!(edits("ca", "abc", true), 3);
    }

    #[test]
    fn suggests_only_close_words() {
        let keys = ["failure_rate", "failure_rates", "gray_fraction"];
        assert_eq!(nearest("failur_rate", keys), Some("failure_rate"));
        assert_eq!(nearest("grey_fraction", keys), Some("gray_fraction"));
        assert_eq!(nearest("session", keys), None);
        // swapped letters and short words (a tester found these got no suggestion)
        let keys = [
            "name",
            "chain",
            "input_tokens",
            "quota",
            "after",
            "p50_s",
            "p99_s",
        ];
        assert_eq!(nearest("naem", keys), Some("name"));
        assert_eq!(nearest("chian", keys), Some("chain"));
        assert_eq!(nearest("cahin", keys), Some("chain"));
        assert_eq!(nearest("qouta", keys), Some("quota"));
        assert_eq!(nearest("afetr", keys), Some("after"));
        assert_eq!(nearest("p50", keys), Some("p50_s"));
        // a prefix shared by two candidates suggests neither
        assert_eq!(nearest("p", keys), None);
        assert_eq!(nearest("zzz", keys), None);
        assert_eq!(nearest("chian", ["chain", "name"]), Some("chain"));
    }
}
