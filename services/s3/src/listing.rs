//! ListObjects and ListObjectsV2: keys after a marker, under a prefix, rolled up into common
//! prefixes at a delimiter, one page at a time.

/// One page of a listing.
#[derive(Debug, PartialEq, Eq)]
pub struct Page<T> {
    pub contents: Vec<T>,
    pub common_prefixes: Vec<String>,
    pub truncated: bool,
    /// The last key or common prefix on the page: where the next page starts after.
    pub last: Option<String>,
}

/// Lists `entries` (sorted by key, all after the marker and under `prefix`) as S3 does: a key
/// with `delimiter` after the prefix counts once, as its common prefix; at most `max_keys`
/// keys and prefixes together.
pub fn page<T>(
    entries: impl IntoIterator<Item = (String, T)>,
    prefix: &str,
    delimiter: Option<&str>,
    max_keys: usize,
) -> Page<T> {
    let mut page = Page {
        contents: Vec::new(),
        common_prefixes: Vec::new(),
        truncated: false,
        last: None,
    };
    for (key, entry) in entries {
        let rolled_up = delimiter.filter(|d| !d.is_empty()).and_then(|d| {
            key[prefix.len()..]
                .find(d)
                .map(|at| key[..prefix.len() + at + d.len()].to_owned())
        });
        if let Some(common) = &rolled_up {
            if page.common_prefixes.last() == Some(common) {
                continue;
            }
        }
        if page.contents.len() + page.common_prefixes.len() == max_keys {
            page.truncated = true;
            break;
        }
        match rolled_up {
            Some(common) => {
                page.last = Some(common.clone());
                page.common_prefixes.push(common);
            }
            None => {
                page.last = Some(key);
                page.contents.push(entry);
            }
        }
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(names: &[&str]) -> Vec<(String, String)> {
        names.iter().map(|k| ((*k).to_owned(), (*k).to_owned())).collect()
    }

    #[test]
    fn delimiter_rolls_keys_up() {
        let all = keys(&["a.txt", "photos/2024/x.jpg", "photos/2024/y.jpg", "photos/z.jpg", "z"]);
        let p = page(all.clone(), "", Some("/"), 1000);
        assert_eq!(p.contents, vec!["a.txt", "z"]);
        assert_eq!(p.common_prefixes, vec!["photos/"]);
        assert!(!p.truncated);
        let under: Vec<_> = all.into_iter().filter(|(k, _)| k.starts_with("photos/")).collect();
        let p = page(under, "photos/", Some("/"), 1000);
        assert_eq!(p.contents, vec!["photos/z.jpg"]);
        assert_eq!(p.common_prefixes, vec!["photos/2024/"]);
    }

    #[test]
    fn pages_count_prefixes_and_keys() {
        let all = keys(&["a", "b/1", "b/2", "c", "d"]);
        let p = page(all, "", Some("/"), 2);
        assert_eq!(
            (p.contents.clone(), p.common_prefixes.clone()),
            (vec!["a".to_owned()], vec!["b/".to_owned()])
        );
        assert!(p.truncated);
        assert_eq!(p.last.as_deref(), Some("b/"));
    }
}
