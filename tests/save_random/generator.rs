//! The generator: the workspace's seeded random source with the history's
//! flavour, the values it draws and one random change to a `Vec`.

use std::cmp::Ordering;
use std::fmt::Debug;

use odm_testing::random;

/// The workspace's one seeded generator (`odm_testing::random`), and the
/// history's flavour.
pub struct Rng {
    inner: random::Rng,
    /// About a third of the histories stay clear of the awkward inputs of
    /// issue 9 (keys that are not paths, fields missing from the store,
    /// values equal across types or signs): plain histories reach deeper
    /// into ordinary edits than histories that keep hitting those.
    pub plain: bool,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut inner = random::Rng::new(seed);
        let plain = inner.chance(33);
        Rng { inner, plain }
    }
}

impl std::ops::Deref for Rng {
    type Target = random::Rng;

    fn deref(&self) -> &random::Rng {
        &self.inner
    }
}

impl std::ops::DerefMut for Rng {
    fn deref_mut(&mut self) -> &mut random::Rng {
        &mut self.inner
    }
}

pub const KEYS: &[&str] = &["a.b", "$x", "", "ok", "ü.ñ", "k", "ü", "x.y.z"];
pub const PLAIN_KEYS: &[&str] = &["ok", "k", "ü", "m"];
const STRS: &[&str] = &["a", "b", "c", "d", "x", "y", "a.b", "$x", "", "ü"];
const FLOATS: &[f64] = &[0.0, -0.0, 1.0, -1.0, 2.5, 0.1, 1e300, -1e-300];
const PLAIN_FLOATS: &[f64] = &[0.0, 1.0, -1.0, 2.5, 0.1, 1e300, -1e-300];

pub fn float(rng: &mut Rng) -> f64 {
    if rng.plain {
        rng.pick(PLAIN_FLOATS)
    } else {
        rng.pick(FLOATS)
    }
}
pub const SPECIAL_FLOATS: &[f64] = &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 1.0];

pub fn s(rng: &mut Rng) -> String {
    rng.pick(STRS).to_string()
}

pub fn strings(rng: &mut Rng, max: usize) -> Vec<String> {
    (0..rng.below(max + 1)).map(|_| s(rng)).collect()
}

pub fn ints(rng: &mut Rng, max: usize) -> Vec<i32> {
    (0..rng.below(max + 1))
        .map(|_| rng.below(5) as i32)
        .collect()
}

fn push_one<T: Debug>(
    name: &str,
    v: &mut Vec<T>,
    rng: &mut Rng,
    gen: &mut dyn FnMut(&mut Rng) -> T,
) -> String {
    let x = gen(rng);
    let d = format!("{name}: push {x:?}");
    v.push(x);
    d
}

/// One random change to a `Vec`: push, remove, insert, reorder, replace,
/// edit in place, pop, shift, clear, and the changes that end one element
/// different (a pop then a push, an assignment).
pub fn mutate_vec<T: Clone + Debug + PartialEq>(
    name: &str,
    v: &mut Vec<T>,
    rng: &mut Rng,
    gen: &mut dyn FnMut(&mut Rng) -> T,
    cmp: &dyn Fn(&T, &T) -> Ordering,
    edit: &mut dyn FnMut(&mut T, &mut Rng) -> String,
) -> String {
    let len = v.len();
    let op = rng.weighted(&[3, 1, 3, 1, 2, 1, 1, 1, 1, 3, 2, 1, 1, 1, 1, 1]);
    match op {
        0 => push_one(name, v, rng, gen),
        1 => {
            let n = 2 + rng.below(2);
            let xs: Vec<T> = (0..n).map(|_| gen(rng)).collect();
            let d = format!("{name}: push {xs:?}");
            v.extend(xs);
            d
        }
        2 if len > 0 => {
            let i = rng.below(len);
            let x = v.remove(i);
            format!("{name}: remove at {i} ({x:?})")
        }
        3 if len >= 2 => {
            let i = rng.below(len);
            let x = v.remove(i);
            let j = rng.below(len - 1);
            let y = v.remove(j);
            format!("{name}: remove at {i} ({x:?}), then at {j} ({y:?})")
        }
        4 => {
            let i = rng.below(len + 1);
            let x = gen(rng);
            let d = format!("{name}: insert {x:?} at {i}");
            v.insert(i, x);
            d
        }
        5 if len >= 2 => {
            let i = rng.below(len);
            let j = rng.below(len);
            v.swap(i, j);
            format!("{name}: swap {i} and {j}")
        }
        6 => {
            v.reverse();
            format!("{name}: reverse")
        }
        7 => {
            v.sort_by(cmp);
            format!("{name}: sort")
        }
        8 => {
            let new: Vec<T> = (0..len).map(|_| gen(rng)).collect();
            let d = format!("{name}: replace by {new:?}");
            *v = new;
            d
        }
        9 if len > 0 => {
            let i = rng.below(len);
            let d = edit(&mut v[i], rng);
            format!("{name}[{i}]: {d}")
        }
        10 if len > 0 => {
            let i = rng.below(len);
            let x = gen(rng);
            let d = format!("{name}[{i}] = {x:?}");
            v[i] = x;
            d
        }
        11 if len > 0 => {
            let x = v.pop();
            format!("{name}: pop ({x:?})")
        }
        12 if len > 0 => {
            let x = v.remove(0);
            format!("{name}: shift ({x:?})")
        }
        13 => {
            v.clear();
            format!("{name}: clear")
        }
        14 | 15 if len > 0 => {
            let how = if op == 14 {
                Rewrite::PopPush
            } else {
                Rewrite::Assign
            };
            let changed = if rng.chance(50) {
                one_different(name, v, rng, &mut anew(gen), Some(how))
            } else {
                one_different(name, v, rng, &mut edited(edit), Some(how))
            };
            match changed {
                Some((d, _)) => d,
                None => format!("{name}: unchanged (no different value drawn)"),
            }
        }
        _ => push_one(name, v, rng, gen),
    }
}

/// How [`one_different`] writes its change.
#[derive(Clone, Copy, PartialEq)]
pub enum Rewrite {
    /// A pop, then a push of another value: the last element differs.
    PopPush,
    /// A whole new array, equal to the old one but at one index.
    Assign,
}

/// One element of `v` made different, written as a whole-array change
/// (issue 35): a pop then a push of the new value, or an assignment of a
/// new array that differs at one index (`how`, or either at random). The
/// new element is `vary` of the old one (a sub-document keeping its `_id`
/// stays the same element). The diff sees both as an in-place edit of
/// that element (no version bump). Returns the description and the index;
/// `None` when `v` is empty or no different value was drawn.
pub fn one_different<T: Clone + Debug + PartialEq>(
    name: &str,
    v: &mut Vec<T>,
    rng: &mut Rng,
    vary: &mut dyn FnMut(&T, &mut Rng) -> T,
    how: Option<Rewrite>,
) -> Option<(String, usize)> {
    if v.is_empty() {
        return None;
    }
    let how = how.unwrap_or(if rng.chance(50) {
        Rewrite::PopPush
    } else {
        Rewrite::Assign
    });
    let i = match how {
        Rewrite::PopPush => v.len() - 1,
        Rewrite::Assign => rng.below(v.len()),
    };
    let x = (0..4).map(|_| vary(&v[i], rng)).find(|x| *x != v[i])?;
    let d = match how {
        Rewrite::PopPush => {
            let old = v.pop();
            let d = format!("{name}: pop ({old:?}), push {x:?}");
            v.push(x);
            d
        }
        Rewrite::Assign => {
            let mut new = v.clone();
            new[i] = x;
            let d = format!("{name} = {new:?} (assigned: only [{i}] differs)");
            *v = new;
            d
        }
    };
    Some((d, i))
}

/// A value drawn anew by `gen` (for [`one_different`]).
pub fn anew<T>(gen: &mut dyn FnMut(&mut Rng) -> T) -> impl FnMut(&T, &mut Rng) -> T + '_ {
    move |_, rng| gen(rng)
}

/// The old value changed by `edit` (for [`one_different`]).
pub fn edited<T: Clone>(
    edit: &mut dyn FnMut(&mut T, &mut Rng) -> String,
) -> impl FnMut(&T, &mut Rng) -> T + '_ {
    move |old, rng| {
        let mut x = old.clone();
        edit(&mut x, rng);
        x
    }
}

/// An in-place edit of element `i` of `v` by `edit` (the second half of
/// issue 35's pattern), described; `None` when `v` has no element `i`.
pub fn edit_at<T>(
    name: &str,
    v: &mut [T],
    i: usize,
    rng: &mut Rng,
    edit: &mut dyn FnMut(&mut T, &mut Rng) -> String,
) -> Option<String> {
    let x = v.get_mut(i)?;
    Some(format!("{name}[{i}]{} (in place)", edit(x, rng)))
}

/// A string replaced by a drawn one (an element edit), described.
pub fn new_str(x: &mut String, rng: &mut Rng) -> String {
    *x = s(rng);
    format!(" = {x:?}")
}

pub fn str_vec(name: &str, v: &mut Vec<String>, rng: &mut Rng) -> String {
    mutate_vec(name, v, rng, &mut s, &|a, b| a.cmp(b), &mut |x, rng| {
        *x = s(rng);
        format!("= {x:?}")
    })
}

pub fn int_vec(name: &str, v: &mut Vec<i32>, rng: &mut Rng) -> String {
    mutate_vec(
        name,
        v,
        rng,
        &mut |rng| rng.below(5) as i32,
        &|a, b| a.cmp(b),
        &mut |x, rng| {
            *x = rng.below(5) as i32;
            format!("= {x}")
        },
    )
}
