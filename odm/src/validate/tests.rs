use std::collections::{BTreeMap, HashMap};

use super::builtin::*;
use super::*;

fn run(f: impl FnOnce(&Path, &mut ValidationErrors)) -> Vec<(String, String)> {
    let mut errors = ValidationErrors::new();
    f(&Path::ROOT.field("f"), &mut errors);
    errors
        .errors()
        .iter()
        .map(|e| {
            // The message, and the refused value as a shown text names it.
            let value = e.value().map(|v| format!(" (is {v})"));
            (
                e.path().to_string(),
                format!("{}{}", e.message(), value.unwrap_or_default()),
            )
        })
        .collect()
}

fn one(path: &str, message: &str) -> Vec<(String, String)> {
    vec![(path.to_string(), message.to_string())]
}

#[test]
fn paths_render_dotted_from_the_root() {
    let root = Path::ROOT;
    assert_eq!(root.to_string(), "");
    let comments = root.field("comments");
    let third = comments.index(3);
    assert_eq!(third.field("text").to_string(), "comments.3.text");
    assert_eq!(root.join("avatar"), "avatar");
    assert_eq!(third.join("text"), "comments.3.text");
    assert_eq!(third.join(""), "comments.3");
}

#[test]
fn min_and_max_on_integers_floats_and_options() {
    assert!(run(|p, e| min(&18u8, Num::Int(18), p, e)).is_empty());
    assert_eq!(
        run(|p, e| min(&17u8, Num::Int(18), p, e)),
        one("f", "must be at least 18 (is 17)")
    );
    assert!(run(|p, e| max(&u64::MAX, Num::Int(u64::MAX as i128), p, e)).is_empty());
    assert_eq!(
        run(|p, e| max(&-3i64, Num::Int(-4), p, e)),
        one("f", "must be at most -4 (is -3)")
    );
    assert!(run(|p, e| min(&0.5f64, Num::Int(0), p, e)).is_empty());
    assert_eq!(
        run(|p, e| max(&2.5f32, Num::Float(2.25), p, e)),
        one("f", "must be at most 2.25 (is 2.5)")
    );
    assert_eq!(
        run(|p, e| min(&3i32, Num::Float(3.5), p, e)),
        one("f", "must be at least 3.5 (is 3)")
    );
    assert!(run(|p, e| min(&None::<i32>, Num::Int(1), p, e)).is_empty());
    assert_eq!(
        run(|p, e| min(&Some(0i32), Num::Int(1), p, e)),
        one("f", "must be at least 1 (is 0)")
    );
    assert!(run(|p, e| min(&Box::new(5usize), Num::Int(5), p, e)).is_empty());
}

#[test]
fn nan_fails_both_bounds() {
    assert_eq!(
        run(|p, e| min(&f64::NAN, Num::Int(0), p, e)),
        one("f", "must be at least 0 (is NaN)")
    );
    assert_eq!(
        run(|p, e| max(&f64::NAN, Num::Int(0), p, e)),
        one("f", "must be at most 0 (is NaN)")
    );
}

#[test]
fn lengths_count_characters_and_items() {
    // Four characters, eight bytes.
    assert!(run(|p, e| max_len(&"żółw".to_string(), 4, p, e)).is_empty());
    assert_eq!(
        run(|p, e| min_len(&"ab".to_string(), 3, p, e)),
        one("f", "must be at least 3 characters long (is 2)")
    );
    assert_eq!(
        run(|p, e| max_len(&vec![1, 2, 3], 2, p, e)),
        one("f", "must have at most 2 items (has 3)")
    );
    assert!(run(|p, e| min_len(&None::<String>, 3, p, e)).is_empty());
    assert_eq!(
        run(|p, e| min_len(&Some(String::new()), 1, p, e)),
        one("f", "must be at least 1 character long (is 0)")
    );
    let map: BTreeMap<String, i32> = [("a".to_string(), 1)].into();
    assert!(run(|p, e| min_len(&map, 1, p, e)).is_empty());
    assert!(run(|p, e| max_len(&[0u8; 4], 4, p, e)).is_empty());
}

#[test]
fn one_of_is_exact() {
    let choices = ["PENDING", "APPROVED"];
    assert!(run(|p, e| one_of(&"APPROVED".to_string(), &choices, p, e)).is_empty());
    assert_eq!(
        run(|p, e| one_of(&"approved".to_string(), &choices, p, e)),
        one(
            "f",
            "must be one of \"PENDING\", \"APPROVED\" (is \"approved\")"
        )
    );
    assert!(run(|p, e| one_of(&None::<String>, &choices, p, e)).is_empty());
}

#[test]
fn required_wants_some() {
    assert!(run(|p, e| required(&Some(0), p, e)).is_empty());
    assert_eq!(
        run(|p, e| required(&None::<String>, p, e)),
        one("f", "is required")
    );
}

#[test]
fn custom_field_and_container_validators() {
    #[allow(clippy::ptr_arg)] // the signature a field validator of a `String` has
    fn https(v: &String) -> Result<(), String> {
        if v.starts_with("https://") {
            Ok(())
        } else {
            Err("must be an https URL".into())
        }
    }
    assert!(run(|p, e| field(&"https://x".to_string(), https, p, e)).is_empty());
    assert_eq!(
        run(|p, e| field(&"http://x".to_string(), https, p, e)),
        one("f", "must be an https URL")
    );

    let rule = |v: &i32| {
        if *v > 0 {
            Err(ValidationError::new("inner", "too big"))
        } else {
            Ok(())
        }
    };
    assert_eq!(
        run(|p, e| container(&1, rule, p, e)),
        one("f.inner", "too big")
    );
    let mut errors = ValidationErrors::new();
    container(&1, rule, &Path::ROOT, &mut errors);
    assert_eq!(errors.paths(), ["inner"]);
    let whole = |_: &i32| Err(ValidationError::new("", "bad"));
    assert_eq!(run(|p, e| container(&1, whole, p, e)), one("f", "bad"));
}

struct Item(i32);

impl Validate for Item {
    fn validate_at(&self, path: &Path<'_>, errors: &mut ValidationErrors) {
        min(&self.0, Num::Int(0), &path.field("n"), errors);
    }
}

#[test]
fn nested_values_report_full_paths() {
    let items = vec![Item(1), Item(-1), Item(2), Item(-2)];
    assert_eq!(
        run(|p, e| nested(&items, p, e)),
        vec![
            (
                "f.1.n".to_string(),
                "must be at least 0 (is -1)".to_string()
            ),
            (
                "f.3.n".to_string(),
                "must be at least 0 (is -2)".to_string()
            ),
        ]
    );
    assert!(run(|p, e| nested(&None::<Item>, p, e)).is_empty());
    assert_eq!(run(|p, e| nested(&Some(Box::new(Item(-5))), p, e)).len(), 1);
    let mut by_key: HashMap<String, Vec<Item>> = HashMap::new();
    by_key.insert("b".into(), vec![Item(-1)]);
    by_key.insert("a".into(), vec![Item(0), Item(-1)]);
    assert_eq!(
        run(|p, e| nested(&by_key, p, e))
            .into_iter()
            .map(|(p, _)| p)
            .collect::<Vec<_>>(),
        ["f.a.1.n", "f.b.0.n"]
    );
}
