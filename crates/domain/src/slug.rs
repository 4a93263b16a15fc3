//! Slugs and short url ids (decisions §1): `url` is `/<slug>-<urlId>`.

use rand::{distributions::Uniform, Rng};

/// The longest slug a title makes in a url, in characters (decisions §1).
pub const TITLE_SLUG_MAX: usize = 60;
/// The length of a `urlId`: characters of `[a-z0-9]`.
pub const URL_ID_LEN: usize = 10;
const URL_ID_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// Lowercase ASCII words joined by single `-`, at most `max` characters, non-ASCII
/// transliterated; `None` when nothing is left.
///
/// ```
/// use sounding_domain::slug::{slugify, title_slug};
///
/// assert_eq!(slugify("  Crème brûlée, please!! ", 60).as_deref(), Some("creme-brulee-please"));
/// // Cut at a word boundary when the whole would be too long.
/// assert_eq!(slugify("alpha beta gamma", 11).as_deref(), Some("alpha-beta"));
/// assert_eq!(slugify("???", 60), None);
/// assert_eq!(title_slug("???"), "untitled");
/// ```
pub fn slugify(raw: &str, max: usize) -> Option<String> {
    let mut slug = String::new();
    push_slug(raw, max, &mut slug).then_some(slug)
}

/// Appends the slug of `raw` (as `slugify` makes it) to `out`; whether it was not empty.
///
/// One pass over the characters, transliterating one at a time, which stops at the word that
/// no longer fits: every item of a list answer has its url made again, and a title may be
/// long (`deunicode` on the whole title, then lowercasing it, were most of a list's cost of
/// urls; docs/benchmarks.md).
fn push_slug(raw: &str, max: usize, out: &mut String) -> bool {
    let start = out.len();
    // Where the word being read began in `out`, past its `-`; `None` between words.
    let mut word: Option<usize> = None;
    for ch in raw.chars() {
        let mut utf8 = [0; 4];
        // Below DEL as it is, like `deunicode` does (which makes DEL itself nothing).
        let ascii = if u32::from(ch) < 0x7f {
            ch.encode_utf8(&mut utf8)
        } else {
            // An unknown character becomes deunicode's placeholder, which only separates.
            deunicode::deunicode_char(ch).unwrap_or(" ")
        };
        for byte in ascii.bytes() {
            if !byte.is_ascii_alphanumeric() {
                word = None;
                continue;
            }
            let begin = *word.get_or_insert_with(|| {
                if out.len() > start {
                    out.push('-');
                }
                out.len()
            });
            out.push(char::from(byte.to_ascii_lowercase()));
            if out.len() - start > max {
                // The word does not fit: the slug ends before it, or, when it is the first,
                // is its first `max` characters.
                let keep = if begin == start {
                    start + max
                } else {
                    begin - 1
                };
                out.truncate(keep);
                return out.len() > start;
            }
        }
    }
    out.len() > start
}

/// The slug used in a feedback or topic url: `untitled` when the title has no letters or digits.
pub fn title_slug(title: &str) -> String {
    let mut slug = String::new();
    push_title_slug(title, &mut slug);
    slug
}

/// Appends `title_slug(title)` to `out`.
fn push_title_slug(title: &str, out: &mut String) {
    if !push_slug(title, TITLE_SLUG_MAX, out) {
        out.push_str("untitled");
    }
}

/// Ten random characters of `[a-z0-9]`.
pub fn new_url_id(rng: &mut impl Rng) -> String {
    let pick = Uniform::from(0..URL_ID_ALPHABET.len());
    (0..URL_ID_LEN)
        .map(|_| URL_ID_ALPHABET[rng.sample(pick)] as char)
        .collect()
}

/// The `url` of a feedback item, topic or document: `/<title-slug>-<urlId>`.
///
/// ```
/// use sounding_domain::slug::{url_id_from_slug, url_path};
///
/// let url = url_path("Dark mode, please", "k3x9q0a7bz");
/// assert_eq!(url, "/dark-mode-please-k3x9q0a7bz");
/// assert_eq!(url_id_from_slug(&url), Some("k3x9q0a7bz"));
/// assert_eq!(url_id_from_slug("dark-mode-NOT-AN-ID"), None);
/// ```
pub fn url_path(title: &str, url_id: &str) -> String {
    let mut url = String::with_capacity(TITLE_SLUG_MAX + url_id.len() + 2);
    url.push('/');
    push_title_slug(title, &mut url);
    url.push('-');
    url.push_str(url_id);
    url
}

/// The urlId at the end of `<title-slug>-<urlId>` (or a bare urlId).
pub fn url_id_from_slug(slug: &str) -> Option<&str> {
    let candidate = slug.trim_start_matches('/').rsplit('-').next()?;
    let valid = candidate.len() == URL_ID_LEN
        && candidate
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    valid.then_some(candidate)
}

/// A board slug chosen by a client: already slug-shaped.
pub fn is_valid_slug(raw: &str) -> bool {
    slugify(raw, usize::MAX).as_deref() == Some(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slugs_collapse_and_transliterate() {
        assert_eq!(slugify("  Hello,   World!! ", 60).unwrap(), "hello-world");
        assert_eq!(
            slugify("Crème brûlée à la carte", 60).unwrap(),
            "creme-brulee-a-la-carte"
        );
        assert_eq!(slugify("!!!", 60), None);
        assert_eq!(title_slug("???"), "untitled");
    }

    #[test]
    fn slugs_cut_at_a_word_boundary() {
        assert_eq!(slugify("alpha beta gamma", 11).unwrap(), "alpha-beta");
        assert_eq!(slugify("abcdefghijkl", 5).unwrap(), "abcde");
    }

    #[test]
    fn url_ids_come_back_out_of_urls() {
        let mut rng = rand::thread_rng();
        let id = new_url_id(&mut rng);
        assert_eq!(id.len(), URL_ID_LEN);
        let url = url_path("Dark mode, please", &id);
        assert_eq!(url, format!("/dark-mode-please-{id}"));
        assert_eq!(url_id_from_slug(&url), Some(id.as_str()));
        assert_eq!(url_id_from_slug("dark-mode-NOTANID123"), None);
    }

    /// The definition `push_slug` must agree with: transliterate the whole text, lowercase
    /// it, split it into words of ASCII letters and digits, and join them while they fit.
    fn slugify_by_definition(raw: &str, max: usize) -> Option<String> {
        let ascii = deunicode::deunicode(raw).to_ascii_lowercase();
        let mut slug = String::new();
        for word in ascii
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let sep = usize::from(!slug.is_empty());
            if slug.len() + sep + word.len() > max {
                if slug.is_empty() {
                    slug.push_str(&word[..max]);
                }
                break;
            }
            if sep == 1 {
                slug.push('-');
            }
            slug.push_str(word);
        }
        (!slug.is_empty()).then_some(slug)
    }

    #[test]
    fn slugs_match_the_definition_at_the_edges() {
        for (raw, max) in [
            ("abc def", 7),
            ("abc def", 6),
            ("abc def", 3),
            ("abcdef", 3),
            ("  ab  ", 1),
            ("北京 café", 60),
            ("北京", 4),
            ("a\u{7f}b\u{10ffff}c", 60),
            ("Ⅻ ⅷ — ½", 60),
            ("", 60),
        ] {
            assert_eq!(
                slugify(raw, max),
                slugify_by_definition(raw, max),
                "{raw:?} at {max}"
            );
        }
    }

    proptest! {
        #[test]
        fn slugs_agree_with_their_definition(raw in "\\PC{0,120}", max in 1usize..80) {
            prop_assert_eq!(slugify(&raw, max), slugify_by_definition(&raw, max));
            let url = url_path(&raw, "k3x9q0a7bz");
            let slug = slugify_by_definition(&raw, TITLE_SLUG_MAX).unwrap_or_else(|| "untitled".into());
            prop_assert_eq!(url, format!("/{slug}-k3x9q0a7bz"));
        }

        #[test]
        fn slugs_are_always_well_formed(raw in ".{0,200}") {
            let slug = title_slug(&raw);
            prop_assert!(slug.len() <= TITLE_SLUG_MAX);
            prop_assert!(!slug.starts_with('-') && !slug.ends_with('-'));
            prop_assert!(!slug.contains("--"));
            prop_assert!(slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
        }
    }
}
