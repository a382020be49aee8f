use std::marker::PhantomData;

use super::*;

// What the derive generates for `struct Comment { text: String }` and
// `struct Post { comments: Vec<Comment>, pinned: Option<Comment> }`, by hand.
struct Comment;
struct Post;
enum CommentText {}
enum PostComments {}
enum PostPinned {}

impl Segment for CommentText {
    const NAME: &'static str = "text";
}
impl Segment for PostComments {
    const NAME: &'static str = "comments";
}
impl Segment for PostPinned {
    const NAME: &'static str = "pinnedComment";
}

struct CommentFields<P>(PhantomData<fn() -> P>);
struct PostFields<P>(PhantomData<fn() -> P>);

impl<P: Prefix> PathSet for CommentFields<P> {
    const REF: &'static Self = &CommentFields(PhantomData);
}
impl<P: Prefix> PathSet for PostFields<P> {
    const REF: &'static Self = &PostFields(PhantomData);
}

impl<P: Prefix> CommentFields<P> {
    const fn text(&self) -> FieldPath<String, Join<P, CommentText>> {
        FieldPath::NEW
    }
}
impl<P: Prefix> PostFields<P> {
    const fn comments(&self) -> FieldPath<Vec<Comment>, Join<P, PostComments>> {
        FieldPath::NEW
    }
    const fn pinned(&self) -> FieldPath<Option<Comment>, Join<P, PostPinned>> {
        FieldPath::NEW
    }
}

impl Fields for Comment {
    type Paths<P: Prefix> = CommentFields<P>;
}
impl Fields for Post {
    type Paths<P: Prefix> = PostFields<P>;
}

#[test]
fn paths_join_the_bson_names() {
    assert_eq!(Post::fields().comments().as_str(), "comments");
    assert_eq!(Post::fields().comments().text().as_str(), "comments.text");
    assert_eq!(
        Post::fields().pinned().text().as_str(),
        "pinnedComment.text"
    );
    assert_eq!(Comment::fields().text().as_str(), "text");
}

#[test]
fn paths_are_constants() {
    const PINNED_TEXT: &str = sub(&root::<Post>().pinned()).text().as_str();
    const COMMENTS: &str = path(&root::<Post>().comments());
    assert_eq!((PINNED_TEXT, COMMENTS), ("pinnedComment.text", "comments"));
}

#[test]
fn a_path_converts_displays_and_compares_as_its_text() {
    let path = Post::fields().comments().text();
    assert_eq!(path.to_string(), "comments.text");
    assert_eq!(format!("{path:?}"), "FieldPath(\"comments.text\")");
    assert_eq!(String::from(path), "comments.text");
    assert_eq!(path.as_ref(), "comments.text");
    assert!(path == "comments.text");
    assert!(path != *"comments");
}

#[test]
fn joined_skips_empty_parts() {
    static JOINED: Joined = Joined::new(&["", "prefs", "dark mode", "", "on"]);
    assert_eq!(JOINED.as_str(), "prefs.dark mode.on");
    static EMPTY: Joined = Joined::new(&["", ""]);
    assert_eq!(EMPTY.as_str(), "");
}

#[test]
fn joined_holds_512_bytes() {
    const A: &str = match std::str::from_utf8(&[b'a'; 255]) {
        Ok(s) => s,
        Err(_) => panic!(),
    };
    const B: &str = A.split_at(254).0;
    // 254 + 1 + 255 + 1 + 1 bytes.
    static FULL: Joined = Joined::new(&[B, A, "x"]);
    assert_eq!(FULL.as_str().len(), 512);
}
