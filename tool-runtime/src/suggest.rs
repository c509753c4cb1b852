//! "Did you mean" suggestions for names a model (or a person) got almost right.

/// The candidate closest to `given` by edit distance, if it is close enough to be a likely
/// typo (at most a third of the longer name, and never more than 3 edits).
pub(crate) fn did_you_mean<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(given, candidate), candidate))
        .filter(|(distance, candidate)| {
            let longest = given.chars().count().max(candidate.chars().count());
            *distance > 0 && *distance <= (longest / 3).clamp(1, 3)
        })
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    // Optimal string alignment: Levenshtein plus transposition of adjacent characters,
    // the most common typo.
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
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
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("pth", ["path", "max_bytes"]), Some("path"));
        assert_eq!(
            did_you_mean("read_fil", ["read_file", "write_file"]),
            Some("read_file")
        );
        assert_eq!(did_you_mean("zzz", ["path"]), None);
        assert_eq!(did_you_mean("path", ["path"]), None);
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("shuot", "shout"), 1);
        assert_eq!(did_you_mean("shuot", ["word", "shout"]), Some("shout"));
    }
}
