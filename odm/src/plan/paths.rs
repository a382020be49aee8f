//! How a modified path stands to a path listed in
//! `optimistic_concurrency(include(..))` / `exclude(..)`, as Mongoose
//! decides it.
//!
//! Paths are dotted BSON paths. A listed segment `$*` stands for any one
//! segment (a map key). A modified path's numeric segments below the top
//! level are array positions that a listed path does not spell: listed
//! `comments.text` covers the modified `comments.3.text` (such a segment
//! may also match a listed segment equal to it, as a map key). A document's
//! top level holds no array, so its first segment is never skipped.

/// Where a modified path stands relative to a listed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relation {
    /// Neither contains the other.
    Apart,
    /// The modified path is above the listed one: writing it rewrites it
    /// (`profile` for listed `profile.name`).
    Above,
    /// The modified path is the listed one or under it.
    AtOrUnder,
}

/// The listed segment that matches any one segment.
const ANY: &str = "$*";

/// Listed paths up to this many segments are matched without allocating.
const INLINE: usize = 32;

fn is_position(segment: &str) -> bool {
    !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit())
}

/// Where `modified` stands relative to `listed`.
pub(crate) fn relation(listed: &str, modified: &str) -> Relation {
    let n = listed.split('.').count();
    // `reached[i]`: the listed segments before `i` are matched by the
    // modified segments read so far (with positions skipped).
    let mut inline = [false; 2 * (INLINE + 1)];
    let mut heap = Vec::new();
    let states: &mut [bool] = if n <= INLINE {
        &mut inline[..2 * (n + 1)]
    } else {
        heap.resize(2 * (n + 1), false);
        &mut heap
    };
    let (mut reached, mut next) = states.split_at_mut(n + 1);
    reached[0] = true;
    for (depth, segment) in modified.split('.').enumerate() {
        next.fill(false);
        let skippable = depth > 0 && is_position(segment);
        let mut alive = false;
        for (i, wanted) in listed.split('.').enumerate() {
            if !reached[i] {
                continue;
            }
            if skippable {
                next[i] = true;
                alive = true;
            }
            if wanted == ANY || wanted == segment {
                if i + 1 == n {
                    return Relation::AtOrUnder;
                }
                next[i + 1] = true;
                alive = true;
            }
        }
        if !alive {
            return Relation::Apart;
        }
        std::mem::swap(&mut reached, &mut next);
    }
    Relation::Above
}

/// `include(..)`: whether writing `modified` touches a listed path (at,
/// under or above one).
pub(crate) fn touches_any(listed: &[&str], modified: &str) -> bool {
    listed
        .iter()
        .any(|l| relation(l, modified) != Relation::Apart)
}

/// `exclude(..)`: whether `modified` is at or under a listed path. A write
/// above one (`profile` for listed `profile.name`) is not: it also rewrites
/// what is not listed.
pub(crate) fn covered_by_any(listed: &[&str], modified: &str) -> bool {
    listed
        .iter()
        .any(|l| relation(l, modified) == Relation::AtOrUnder)
}

#[cfg(test)]
mod tests;
