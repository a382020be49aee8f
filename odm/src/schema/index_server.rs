//! Which server versions accept which declared index: a pure reading of
//! the version string `buildInfo` reports.

use std::fmt;

/// A server version, as far as index support depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub major: u32,
    pub minor: u32,
}

/// MongoDB 6.0: the first version that accepts `$in` and `$or` (and `$and`
/// below the top level) in a `partialFilterExpression`. Amazon DocumentDB
/// reports 5.0 and accepts neither.
pub(crate) const PARTIAL_IN_OR: Version = Version { major: 6, minor: 0 };

impl Version {
    /// `"5.0.3"`, `"8.2.11"`, `"7.0.0-rc1"`: the first two numbers; `None`
    /// when the text does not start with them.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().split(['.', '-', '+']);
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(Version { major, minor })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Whether a server reporting version `reported` accepts what needs
/// `minimum`. A version that cannot be read is let through: the server
/// then decides, and its refusal is reported as it is.
pub(crate) fn accepts(reported: &str, minimum: Version) -> bool {
    Version::parse(reported).is_none_or(|v| v >= minimum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_before_six_refuse_in_and_or() {
        assert!(!accepts("5.0.3", PARTIAL_IN_OR));
        assert!(!accepts("4.4.29", PARTIAL_IN_OR));
        assert!(!accepts("5.3.0-rc2", PARTIAL_IN_OR));
        // Amazon DocumentDB 5.0 reports this.
        assert!(!accepts("5.0.0", PARTIAL_IN_OR));
    }

    #[test]
    fn six_and_later_accept_them() {
        assert!(accepts("6.0.0", PARTIAL_IN_OR));
        assert!(accepts("6.0.19", PARTIAL_IN_OR));
        assert!(accepts("7.0.0-rc1", PARTIAL_IN_OR));
        assert!(accepts("8.2.11", PARTIAL_IN_OR));
        assert!(accepts("10.0.1", PARTIAL_IN_OR));
    }

    #[test]
    fn an_unreadable_version_leaves_the_decision_to_the_server() {
        assert!(accepts("", PARTIAL_IN_OR));
        assert!(accepts("unknown", PARTIAL_IN_OR));
        assert!(accepts("6", PARTIAL_IN_OR));
    }

    #[test]
    fn versions_parse_to_major_and_minor() {
        assert_eq!(
            Version::parse("8.2.11"),
            Some(Version { major: 8, minor: 2 })
        );
        assert_eq!(
            Version::parse(" 6.0.0 "),
            Some(Version { major: 6, minor: 0 })
        );
        assert_eq!(Version::parse("x.1"), None);
        assert_eq!(PARTIAL_IN_OR.to_string(), "6.0");
    }
}
