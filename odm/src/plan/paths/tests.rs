use super::Relation::{Above, Apart, AtOrUnder};
use super::{covered_by_any, relation, touches_any};

#[test]
fn top_level_fields() {
    assert_eq!(relation("status", "status"), AtOrUnder);
    assert_eq!(relation("status", "status.code"), AtOrUnder);
    assert_eq!(relation("status", "statuses"), Apart);
    assert_eq!(relation("status", "avatar"), Apart);
    assert_eq!(relation("tags", "tags.2"), AtOrUnder);
}

#[test]
fn nested_paths_at_under_and_above() {
    let listed = "profile.name.first";
    assert_eq!(relation(listed, "profile.name.first"), AtOrUnder);
    assert_eq!(relation(listed, "profile.name.first.x"), AtOrUnder);
    assert_eq!(relation(listed, "profile.name"), Above);
    assert_eq!(relation(listed, "profile"), Above);
    assert_eq!(relation(listed, "profile.name.last"), Apart);
    assert_eq!(relation(listed, "profile.age"), Apart);
    assert_eq!(relation(listed, "name.first"), Apart);
    assert_eq!(relation(listed, "profile.name.firstly"), Apart);
}

#[test]
fn array_positions_are_not_spelled() {
    assert_eq!(relation("comments.text", "comments.3.text"), AtOrUnder);
    assert_eq!(relation("comments.text", "comments.3"), Above);
    assert_eq!(relation("comments.text", "comments"), Above);
    assert_eq!(relation("comments.text", "comments.3.author"), Apart);
    // Nested arrays: every position is skipped.
    assert_eq!(relation("grid.cell.v", "grid.0.cell.12.v"), AtOrUnder);
    assert_eq!(relation("grid.cell.v", "grid.0.7.cell.12.v"), AtOrUnder);
    // A position may also be a map key that is listed.
    assert_eq!(relation("counts.7", "counts.7"), AtOrUnder);
    assert_eq!(relation("counts.7", "counts.8"), Above);
    assert_eq!(relation("counts.7.n", "counts.7.n"), AtOrUnder);
}

#[test]
fn the_top_level_has_no_positions() {
    assert_eq!(relation("text", "0.text"), Apart);
    assert_eq!(relation("0", "0"), AtOrUnder);
}

#[test]
fn a_wildcard_matches_any_one_key() {
    assert_eq!(relation("prefs.$*", "prefs.theme"), AtOrUnder);
    assert_eq!(relation("prefs.$*", "prefs.theme.dark"), AtOrUnder);
    assert_eq!(relation("prefs.$*", "prefs"), Above);
    assert_eq!(relation("prefs.$*.on", "prefs.a.on"), AtOrUnder);
    assert_eq!(relation("prefs.$*.on", "prefs.a.off"), Apart);
    assert_eq!(relation("prefs.$*.on", "prefs.a"), Above);
    assert_eq!(relation("prefs.$*", "other.theme"), Apart);
}

#[test]
fn map_keys_are_literal() {
    assert_eq!(relation("prefs.dark mode", "prefs.dark mode"), AtOrUnder);
    assert_eq!(relation("prefs.dark mode", "prefs.dark"), Apart);
}

#[test]
fn long_listed_paths() {
    let listed: Vec<String> = (0..40).map(|i| format!("s{i}")).collect();
    let listed = listed.join(".");
    assert_eq!(relation(&listed, &listed), AtOrUnder);
    assert_eq!(relation(&listed, "s0.s1"), Above);
    assert_eq!(relation(&listed, "s0.x"), Apart);
    let with_positions = listed.replace("s3.", "s3.0.");
    assert_eq!(relation(&listed, &with_positions), AtOrUnder);
}

#[test]
fn include_touches_at_under_or_above() {
    let listed = ["profile.name", "status"];
    assert!(touches_any(&listed, "profile.name"));
    assert!(touches_any(&listed, "profile"));
    assert!(touches_any(&listed, "profile.name.first"));
    assert!(touches_any(&listed, "status"));
    assert!(!touches_any(&listed, "profile.age"));
    assert!(!touches_any(&listed, "avatar"));
}

#[test]
fn exclude_covers_at_or_under_only() {
    let listed = ["profile.name", "log"];
    assert!(covered_by_any(&listed, "profile.name"));
    assert!(covered_by_any(&listed, "profile.name.first"));
    assert!(covered_by_any(&listed, "log"));
    assert!(!covered_by_any(&listed, "profile"));
    assert!(!covered_by_any(&listed, "profile.age"));
}
