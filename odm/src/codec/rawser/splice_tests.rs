//! The spliced document is byte for byte the whole serialization, for
//! random values and random edits, whatever is copied.

use serde::Serialize;

use super::splice::{self, Splice};
use crate::codec::same::{Same, Unchanged, SAME};

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Sub {
    a: String,
    b: i32,
}

impl Same for Sub {
    fn __odm_same(&self, other: &Self) -> bool {
        self.a.__odm_same(&other.a) && self.b.__odm_same(&other.b)
    }
    fn __odm_sync_from(&mut self, from: &Self) {
        self.a.__odm_sync_from(&from.a);
        self.b.__odm_sync_from(&from.b);
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Model {
    #[serde(rename = "_id")]
    id: i32,
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    numbers: Vec<i64>,
    subs: Vec<Sub>,
    score: f64,
}

pub(crate) const NAMES: &[&str] = &["_id", "title", "note", "numbers", "subs", "score"];

/// What a derive would find: fields the same, and sequence prefixes.
pub(crate) fn unchanged(new: &Model, old: &Model) -> Unchanged {
    let mut out = Unchanged::NONE;
    let mut field = |i: usize, n: usize| match n {
        SAME => out.fields |= 1 << i,
        0 => {}
        n => out.prefixes.push((i, n)),
    };
    field(0, new.id.__odm_compare(&old.id));
    field(1, new.title.__odm_compare(&old.title));
    field(2, new.note.__odm_compare(&old.note));
    field(3, new.numbers.__odm_compare(&old.numbers));
    field(4, new.subs.__odm_compare(&old.subs));
    field(5, new.score.__odm_compare(&old.score));
    out
}

/// What a derive would generate as `Schema::__odm_tail`: the two
/// sequences write their tails, the other fields cannot.
pub(crate) fn tail(
    m: &Model,
    i: usize,
    from: usize,
    out: &mut crate::codec::tail::TailOut<'_>,
) -> Option<bool> {
    use crate::codec::tail::Tail;
    match i {
        3 => Some(m.numbers.__odm_tail(from, out)),
        4 => Some(m.subs.__odm_tail(from, out)),
        _ => None,
    }
}

pub(crate) struct Rng(pub u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
    fn text(&mut self) -> String {
        let len = self.next(20) as usize;
        (0..len)
            .map(|_| (b'a' + self.next(26) as u8) as char)
            .collect()
    }
    fn sub(&mut self) -> Sub {
        Sub {
            a: self.text(),
            b: self.next(5) as i32,
        }
    }
    pub fn model(&mut self) -> Model {
        Model {
            id: 1,
            title: self.text(),
            note: (self.next(2) == 0).then(|| self.text()),
            numbers: (0..self.next(4)).map(|i| i as i64).collect(),
            subs: (0..self.next(6)).map(|_| self.sub()).collect(),
            score: [0.0, -0.0, 1.5, f64::NAN][self.next(4) as usize],
        }
    }
    /// A few random edits of `m`.
    pub fn edit(&mut self, m: &mut Model) {
        for _ in 0..self.next(3) {
            match self.next(8) {
                0 => m.title = self.text(),
                1 => m.note = (self.next(2) == 0).then(|| self.text()),
                2 => m.numbers.push(self.next(9) as i64),
                3 => m.numbers.clear(),
                4 => m.subs.push(self.sub()),
                5 if !m.subs.is_empty() => {
                    let i = self.next(m.subs.len() as u64) as usize;
                    m.subs[i].b += 1;
                }
                6 => {
                    m.subs.pop();
                }
                _ => m.score = [0.0, -0.0, 2.5][self.next(3) as usize],
            }
        }
    }
}

pub(crate) fn whole(value: &Model) -> Vec<u8> {
    super::to_vec(value, 0).expect("on the fast path")
}

#[test]
fn spliced_bytes_are_the_whole_serialization() {
    let mut rng = Rng(0x36);
    let (mut copied, mut prefixed) = (0, 0);
    for _ in 0..20_000 {
        let old = rng.model();
        let mut new = old.clone();
        rng.edit(&mut new);
        let from = whole(&old);
        let known = unchanged(&new, &old);
        copied += known.fields.count_ones();
        prefixed += known.prefixes.len();
        let splice = Splice {
            from: &from,
            names: NAMES,
            unchanged: &known,
        };
        let (spliced, starts) = splice::to_vec_noting(&new, 0, &splice).expect("spliced");
        assert_eq!(spliced, whole(&new), "{old:?} -> {new:?}");
        // The offsets noted as it wrote are those a walk of it reads.
        let walked = crate::codec::offsets::starts(&spliced);
        assert_eq!(Some(&starts), walked.as_ref(), "{old:?} -> {new:?}");
        // So are those noted by a whole write, which are its bytes too.
        let noted = super::noting::to_vec_noting(&new, 0).expect("noted");
        assert_eq!(noted, (spliced, starts), "{new:?}");
    }
    // The cases the test is for did happen.
    assert!(copied > 50_000 && prefixed > 2_000, "{copied} {prefixed}");
}

#[test]
fn a_prefix_longer_than_the_array_gives_up() {
    let old = Model {
        id: 1,
        title: String::new(),
        note: None,
        numbers: vec![1, 2, 3],
        subs: Vec::new(),
        score: 0.0,
    };
    let from = whole(&old);
    let mut new = old.clone();
    new.numbers.truncate(1);
    // Not what `compare` says: the copy must not write a longer array.
    let wrong = Unchanged {
        fields: 0,
        prefixes: vec![(3, 2)],
    };
    let splice = Splice {
        from: &from,
        names: NAMES,
        unchanged: &wrong,
    };
    assert_eq!(splice::to_vec(&new, 0, &splice), None);
}

#[test]
fn a_value_that_is_no_document_gives_up() {
    let from = whole(&Rng(1).model());
    let known = Unchanged::NONE;
    let splice = Splice {
        from: &from,
        names: NAMES,
        unchanged: &known,
    };
    let id = mongodb::bson::oid::ObjectId::new();
    assert_eq!(splice::to_vec(&id, 0, &splice), None);
    assert_eq!(
        splice::to_vec(&mongodb::bson::DateTime::now(), 0, &splice),
        None
    );
    assert_eq!(splice::to_vec(&7i32, 0, &splice), None);
    assert_eq!(super::noting::to_vec_noting(&id, 0), None);
    assert_eq!(super::noting::to_vec_noting(&7i32, 0), None);
    let map = std::collections::BTreeMap::from([("a", 1)]);
    assert_eq!(super::noting::to_vec_noting(&map, 0), None);
}
