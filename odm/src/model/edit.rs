//! [`Doc::field_mut`], [`Doc::push`] and [`Doc::extend`]: a change the
//! `Doc` sees field by field, so a save knows the fields it did not reach
//! unchanged, and the stored elements of a sequence only appended to,
//! without comparing them.
//!
//! `Doc` derefs mutably to the whole value: after that any field may have
//! changed, and a save finds out by comparing (`model::shadow`) and by the
//! diff. A field reached through `field_mut` is the only one that may have
//! changed through it, since the accessor is generated code that borrows
//! that field and nothing else (`fields::machinery::Member`). So while every change
//! since the snapshot went through `field_mut`, a field not reached is
//! what the snapshot holds, if its type cannot change behind `&`
//! (`Same::__odm_sealed`): the save skips it, neither serialized nor
//! compared nor copied.

use crate::fields::machinery::TopLevel;
use crate::fields::FieldPath;
use crate::model::doc::{Doc, Edits};
use crate::model::Document;

impl<T: Document> Doc<T> {
    /// The top-level field `path` of the value, to change: what
    /// `&mut doc.field` gives, and the `Doc` notes which field it was.
    ///
    /// A save then knows that every other field is unchanged without
    /// looking at it, as long as the value was reached only this way since
    /// it was loaded or last saved (a `DerefMut` access, `doc.x = ..`,
    /// reaches the whole value): saving one number of a large document
    /// then costs about what the update alone costs. A field whose type
    /// can change behind `&` (a `Cell`, a `Mutex`, a `HashMap`, which is
    /// not compared) is looked at anyway. What the save sends is the same
    /// either way.
    ///
    /// `path` is a top-level path of `T` (`T::fields().counter()`); a
    /// nested path or another model's does not compile.
    ///
    /// ```
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// pub struct Post {
    ///     #[serde(rename = "_id")]
    ///     pub id: ObjectId,
    ///     pub views: i64,
    ///     pub tags: Vec<String>,
    /// }
    ///
    /// # fn edit(doc: &mut Doc<Post>) {
    /// let f = Post::fields();
    /// *doc.field_mut(f.views()) += 1;
    /// doc.field_mut(f.tags()).push("rust".into());
    /// # }
    /// ```
    pub fn field_mut<V, P>(&mut self, path: FieldPath<V, P>) -> &mut V
    where
        P: TopLevel<T, V>,
    {
        let _ = path;
        P::get(self.reach(P::INDEX))
    }

    /// Appends `value` to the top-level sequence `path`: what
    /// `doc.field.push(value)` does, and the `Doc` notes that the field was
    /// only appended to.
    ///
    /// A save then knows the field's stored elements unchanged without
    /// comparing them, as it knows the fields [`field_mut`](Doc::field_mut)
    /// did not reach: it writes the new elements only, and sends their
    /// `$push`, whatever the length of the array. That holds while the
    /// field was reached no other way since the value was loaded or last
    /// saved; after `field_mut` of the same field, or any `DerefMut`
    /// access, the save compares the field as usual (and finds the same
    /// `$push`). A field written through `serialize_with`, or whose
    /// elements can change behind `&`, is compared anyway. What the save
    /// sends is the same either way.
    ///
    /// ```
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// pub struct Post {
    ///     #[serde(rename = "_id")]
    ///     pub id: ObjectId,
    ///     pub comments: Vec<String>,
    /// }
    ///
    /// # fn edit(doc: &mut Doc<Post>) {
    /// doc.push(Post::fields().comments(), "first!".into());
    /// # }
    /// ```
    pub fn push<E, P>(&mut self, path: FieldPath<Vec<E>, P>, value: E)
    where
        P: TopLevel<T, Vec<E>>,
    {
        let _ = path;
        let value_of = self.appending(P::INDEX, |v| P::get(v).len());
        P::get(value_of).push(value);
    }

    /// Appends every element of `values` to the top-level sequence
    /// `path`, as [`push`](Doc::push) appends one: the save writes and
    /// `$push`es the new elements only.
    ///
    /// ```
    /// # use odm::prelude::*;
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Debug, Clone, Serialize, Deserialize, Document)]
    /// # pub struct Post {
    /// #     #[serde(rename = "_id")]
    /// #     pub id: ObjectId,
    /// #     pub tags: Vec<String>,
    /// # }
    /// # fn edit(doc: &mut Doc<Post>) {
    /// doc.extend(Post::fields().tags(), ["rust".into(), "mongodb".into()]);
    /// # }
    /// ```
    pub fn extend<E, P, I>(&mut self, path: FieldPath<Vec<E>, P>, values: I)
    where
        P: TopLevel<T, Vec<E>>,
        I: IntoIterator<Item = E>,
    {
        let _ = path;
        let value_of = self.appending(P::INDEX, |v| P::get(v).len());
        P::get(value_of).extend(values);
    }
}

/// Makes `doc` count as reached only in the top-level fields `names`
/// (stored names) since its snapshot, and as only appended to in the
/// fields of `appended` (each with its length at the snapshot), as if
/// every change since went through [`Doc::field_mut`] and [`Doc::push`]:
/// for the suite's random histories, which change values through
/// `DerefMut` and name the fields that changed (and a few that did not).
/// A name of no field compared makes it the whole value. Not public API.
#[doc(hidden)]
pub fn reached_only<T: Document>(doc: &mut Doc<T>, names: &[&str], appended: &[(&str, usize)]) {
    let fields = T::__odm_tracked();
    let index = |name: &str| fields.iter().position(|f| *f == name).unwrap_or(usize::MAX);
    let mut edits = Edits::NONE;
    for name in names {
        edits.reached(index(name));
    }
    for &(name, len) in appended {
        edits.appends::<T>(index(name), len);
    }
    doc.set_edits(edits);
}
