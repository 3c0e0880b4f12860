//! "Did you mean …?" for misspelled keys and model ids.

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
        .map(|c| (edit_distance(&word, &c.to_lowercase()), *c))
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

/// The edit distance between two strings, in characters: insertions, deletions,
/// substitutions, and swaps of two neighbouring characters (optimal string alignment), so
/// `chian` is one edit from `chain`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j]
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        // a swap of neighbours is one edit
        assert_eq!(edit_distance("chian", "chain"), 1);
        assert_eq!(edit_distance("ipnut", "input"), 1);
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
    }
}
