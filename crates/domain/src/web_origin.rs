//! Web origins (`scheme://host[:port]`): the sites whose pages may call the public operations
//! from a browser (CORS). Compared as browsers send them in `Origin`: the ASCII serialization,
//! lowercase, without a default port or a trailing slash.

use std::fmt;

use url::Url;

use crate::{error::DomainResult, DomainError};

/// An `http` or `https` origin, normalized to the form of a browser's `Origin` header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WebOrigin(String);

impl WebOrigin {
    /// Parses one origin. Refused: another scheme, a path, query, fragment or credentials
    /// (an origin is only where a page comes from), and `*` (every site is not a list).
    ///
    /// ```
    /// use sounding_domain::web_origin::WebOrigin;
    ///
    /// let origin = WebOrigin::parse(" HTTPS://Shop.Example.com:443/ ").unwrap();
    /// assert_eq!(origin.as_str(), "https://shop.example.com");
    /// assert_eq!(WebOrigin::parse("http://localhost:3000").unwrap().as_str(), "http://localhost:3000");
    /// assert!(WebOrigin::parse("https://example.com/app").is_err());
    /// assert!(WebOrigin::parse("*").is_err());
    /// ```
    pub fn parse(raw: &str) -> DomainResult<Self> {
        let raw = raw.trim();
        let refused =
            || DomainError::invalid(format!("{raw:?} is not an origin (scheme://host[:port])"));
        let url = Url::parse(raw).map_err(|_| refused())?;
        // `*` is a legal host character to the URL parser, but no origin a browser sends.
        let bare = matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some_and(|host| !host.contains('*'))
            && url.path() == "/"
            && url.query().is_none()
            && url.fragment().is_none()
            && url.username().is_empty()
            && url.password().is_none();
        if !bare {
            return Err(refused());
        }
        Ok(Self(url.origin().ascii_serialization()))
    }

    /// Parses a comma-separated list; blanks between commas are skipped, duplicates dropped.
    ///
    /// ```
    /// use sounding_domain::web_origin::WebOrigin;
    ///
    /// let list = WebOrigin::parse_list("https://a.example, ,http://b.example:8080,https://a.example").unwrap();
    /// assert_eq!(list.len(), 2);
    /// assert!(WebOrigin::parse_list("https://a.example,ftp://b.example").is_err());
    /// ```
    pub fn parse_list(raw: &str) -> DomainResult<Vec<Self>> {
        let mut origins: Vec<Self> = Vec::new();
        for part in raw.split(',').filter(|p| !p.trim().is_empty()) {
            let origin = Self::parse(part)?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        Ok(origins)
    }

    /// The origin as a browser's `Origin` header carries it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for WebOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_only_scheme_host_and_port() {
        for bad in [
            "",
            "example.com",
            "ftp://example.com",
            "https://example.com/path",
            "https://example.com?x=1",
            "https://example.com#top",
            "https://user:pw@example.com",
            "null",
            "file:///tmp",
            "https://*.example.com",
        ] {
            assert!(WebOrigin::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert_eq!(
            WebOrigin::parse("http://EXAMPLE.com:80").unwrap().as_str(),
            "http://example.com"
        );
        assert_eq!(
            WebOrigin::parse("http://[::1]:5173").unwrap().as_str(),
            "http://[::1]:5173"
        );
    }
}
