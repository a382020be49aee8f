use mongodb::bson::rawdoc;

use super::*;
use crate::codec::offsets;
use crate::codec::scan::only_element;

fn at(ms: i64) -> DateTime {
    DateTime::from_millis(ms)
}

/// Where `key`'s element is in `doc`.
fn range(doc: &RawDocumentBuf, key: &str) -> Range<usize> {
    element((doc.as_bytes(), None), key).unwrap().unwrap().0
}

/// A `Doc`'s state with `snapshot`, its offsets `known` or not.
fn tracked(snapshot: &RawDocumentBuf, known: bool) -> Tracked {
    let offsets = match known {
        true => Offsets::of_starts(offsets::starts(snapshot.as_bytes()).unwrap()),
        false => Offsets::new(),
    };
    Tracked::Snapshot {
        id: Bson::Int32(1),
        snapshot: snapshot.clone(),
        offsets,
        missing: crate::plan::diff::Missing::new(),
        base: None,
    }
}

fn snapshot() -> RawDocumentBuf {
    rawdoc! { "_id": 1, "title": "a", "updatedAt": at(1), "tags": ["x"], "z": 5 }
}

#[test]
fn a_patch_takes_the_stamp_as_one_more_piece_in_the_document_s_order() {
    for known in [false, true] {
        patch_takes_the_stamp(known);
    }
}

fn patch_takes_the_stamp(known: bool) {
    let snap = snapshot();
    // The value changed `tags` and `z`; the stamp goes between them.
    let mut patch = Patch {
        written: Vec::new(),
        pieces: Vec::new(),
    };
    patch.put(range(&snap, "z"), &only_element(&rawdoc! { "z": "five" }));
    patch.put(
        range(&snap, "tags"),
        &only_element(&rawdoc! { "tags": ["x", "y"] }),
    );
    let mut current = Current::Patch(patch);
    write_times(
        &mut current,
        &tracked(&snap, known),
        &[("updatedAt", at(99))],
    )
    .unwrap();
    let Current::Patch(patch) = &current else {
        panic!("still a patch: {current:?}");
    };
    let starts: Vec<usize> = patch.pieces.iter().map(|p| p.old.start).collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
    let whole = current.whole(Some(&snap)).into_owned();
    let expected =
        rawdoc! { "_id": 1, "title": "a", "updatedAt": at(99), "tags": ["x", "y"], "z": "five" };
    assert_eq!(whole, expected);
    // The offsets moved by the patch are those of the document it makes.
    let known = offsets::starts(snap.as_bytes()).unwrap();
    let moved = Offsets::of_starts(known).moved(patch.moves());
    assert_eq!(
        moved.known().unwrap(),
        offsets::starts(whole.as_bytes()).unwrap()
    );
}

#[test]
fn a_stamp_replaces_a_piece_of_the_same_field_and_a_second_stamp_the_first() {
    let snap = snapshot();
    let mut patch = Patch {
        written: Vec::new(),
        pieces: Vec::new(),
    };
    // The caller set `updatedAt` to null by hand: the stamp wins.
    let old = range(&snap, "updatedAt");
    patch.put(old, &only_element(&rawdoc! { "updatedAt": null }));
    let mut current = Current::Patch(patch);
    write_times(&mut current, &tracked(&snap, true), &[("updatedAt", at(7))]).unwrap();
    // A restamp (the server's clock) moves it again.
    write_times(
        &mut current,
        &tracked(&snap, false),
        &[("updatedAt", at(8))],
    )
    .unwrap();
    let Current::Patch(patch) = &current else {
        panic!("still a patch");
    };
    assert_eq!(patch.pieces.len(), 1);
    let mut expected = snapshot();
    expected = with_fields(&expected, &[("updatedAt", at(8))]).unwrap();
    assert_eq!(current.whole(Some(&snap)).into_owned(), expected);
}

#[test]
fn a_patch_of_a_snapshot_without_the_field_is_made_whole_with_it_appended() {
    let snap = rawdoc! { "_id": 1, "title": "a" };
    let mut patch = Patch {
        written: Vec::new(),
        pieces: Vec::new(),
    };
    patch.put(
        range(&snap, "title"),
        &only_element(&rawdoc! { "title": "b" }),
    );
    let mut current = Current::Patch(patch);
    let fields = [("updatedAt", at(3)), ("createdAt", at(3))];
    write_times(&mut current, &tracked(&snap, true), &fields).unwrap();
    let Current::Whole(doc, offsets) = &current else {
        panic!("made whole: {current:?}");
    };
    assert!(offsets.known().is_none());
    let expected = rawdoc! { "_id": 1, "title": "b", "updatedAt": at(3), "createdAt": at(3) };
    assert_eq!(doc, &expected);
}

#[test]
fn a_whole_document_holding_dates_takes_the_times_in_place_and_keeps_its_offsets() {
    let doc = rawdoc! { "_id": 1, "createdAt": at(1), "n": 2, "updatedAt": at(1) };
    let starts = offsets::starts(doc.as_bytes()).unwrap();
    let mut current = Current::Whole(doc, Offsets::of_starts(starts.clone()));
    let fields = [("updatedAt", at(5)), ("createdAt", at(6))];
    write_times(&mut current, &Tracked::New, &fields).unwrap();
    let Current::Whole(doc, offsets) = &current else {
        panic!("whole");
    };
    let expected = rawdoc! { "_id": 1, "createdAt": at(6), "n": 2, "updatedAt": at(5) };
    assert_eq!(doc, &expected);
    assert_eq!(offsets.known(), Some(&starts[..]));
}

#[test]
fn a_whole_document_holding_null_is_written_again_and_changes_nothing_first() {
    // `createdAt` is a date, `updatedAt` null (an `Option` never set):
    // nothing is written in place before the null is found.
    let doc = rawdoc! { "_id": 1, "createdAt": at(1), "updatedAt": null };
    let mut bytes = doc.clone();
    let fields = [("createdAt", at(9)), ("updatedAt", at(9))];
    assert!(!put_in_place(&mut bytes, None, &fields).unwrap());
    assert_eq!(bytes, doc);
    let mut current = Current::Whole(doc, Offsets::new());
    write_times(&mut current, &Tracked::New, &fields).unwrap();
    let expected = rawdoc! { "_id": 1, "createdAt": at(9), "updatedAt": at(9) };
    assert_eq!(current.of_new(), &expected);
}

#[test]
fn a_date_element_is_what_bson_writes() {
    assert_eq!(
        date_element("updatedAt", at(-5)),
        only_element(&rawdoc! { "updatedAt": at(-5) })
    );
    let snap = snapshot();
    let starts = offsets::starts(snap.as_bytes()).unwrap();
    for known in [None, Some(&starts[..])] {
        let doc = (snap.as_bytes(), known);
        assert_eq!(element(doc, "nope").unwrap(), None);
        // A key that begins another is not it.
        assert_eq!(element(doc, "updated").unwrap(), None);
        let (r, date) = element(doc, "updatedAt").unwrap().unwrap();
        assert!(date);
        assert_eq!(r.len(), date_element("updatedAt", at(0)).len());
        assert_eq!(&snap.as_bytes()[r.start + 1..r.start + 10], b"updatedAt");
        let (r, date) = element(doc, "z").unwrap().unwrap();
        assert!(!date);
        assert_eq!(r.end, snap.as_bytes().len() - 1);
    }
}
