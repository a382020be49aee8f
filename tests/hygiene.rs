//! The generated code names everything by absolute path: it compiles in a
//! module without the prelude whose own `Result`, `Option`, `Document`,
//! `String`, `Vec`, `Some`, `None`, `core` and `odm` shadow the real ones,
//! for a valid model and for a generic one, and the typed paths of both.

#[no_implicit_prelude]
#[allow(dead_code, non_camel_case_types)]
mod shadowed {
    pub struct Result;
    pub struct Option;
    pub struct Document;
    pub struct String;
    pub struct Vec;
    pub struct Send;
    pub struct Meta;
    pub struct Some;
    pub struct None;
    pub mod core {}
    pub mod odm {}
    pub mod __private {}

    #[derive(::serde::Serialize, ::serde::Deserialize, ::odm::Document)]
    #[odm(collection = "hygienic", optimistic_concurrency(include(name)))]
    pub struct Thing {
        #[serde(rename = "_id")]
        pub id: i64,
        pub name: ::std::string::String,
        #[odm(skip_versioning)]
        pub tags: ::std::vec::Vec<::std::string::String>,
    }

    #[derive(::serde::Serialize, ::serde::Deserialize, ::odm::Fields)]
    pub struct Inner {
        pub note: ::std::string::String,
    }

    // Typed paths, and nested listed paths through a struct and a map.
    #[derive(::serde::Serialize, ::serde::Deserialize, ::odm::Document)]
    #[odm(optimistic_concurrency(include(inner.note, notes."k".note, notes.*)))]
    pub struct Gadget {
        #[serde(rename = "_id")]
        pub id: i64,
        pub inner: Inner,
        pub notes: ::std::collections::BTreeMap<::std::string::String, Inner>,
    }

    // An enum model (issue 33): a newtype variant with an index through
    // its typed paths, a struct variant with rules, timestamps and hooks.
    #[derive(::serde::Serialize, ::serde::Deserialize, ::odm::Document)]
    #[odm(timestamps, hooks, validate = Kinded::check)]
    #[serde(tag = "kind")]
    pub enum Kinded {
        #[odm(index(keys(note = 1), unique), nested)]
        Inner(Inner),
        Other {
            #[serde(rename = "_id")]
            id: i64,
            #[odm(min = 1)]
            n: i32,
            #[serde(rename = "createdAt")]
            created: ::std::option::Option<::odm::bson::DateTime>,
            #[serde(rename = "updatedAt")]
            updated: ::std::option::Option<::odm::bson::DateTime>,
        },
    }

    impl Kinded {
        fn check(&self) -> ::std::result::Result<(), ::odm::ValidationError> {
            ::std::result::Result::Ok(())
        }
    }

    impl ::odm::Hooks for Kinded {}

    impl ::odm::Validate for Inner {
        fn validate_at(&self, _: &::odm::validate::Path<'_>, _: &mut ::odm::ValidationErrors) {}
    }

    // Referential rules, on both sides.
    #[derive(::std::clone::Clone, ::serde::Serialize, ::serde::Deserialize, ::odm::Document)]
    #[odm(referenced_by(Linking))]
    pub struct Target {
        #[serde(rename = "_id")]
        pub id: i64,
    }

    #[derive(::std::clone::Clone, ::serde::Serialize, ::serde::Deserialize, ::odm::Document)]
    pub struct Linking {
        #[serde(rename = "_id")]
        pub id: i64,
        #[odm(reference(on_delete = clear))]
        pub to: ::std::option::Option<::odm::Ref<Target>>,
        #[odm(reference(on_delete = pull))]
        pub many: ::std::vec::Vec<::odm::Ref<Target>>,
        #[odm(reference(on_delete = refuse))]
        pub one: ::odm::Ref<Target>,
    }

    #[derive(::serde::Serialize, ::serde::Deserialize, ::odm::Document)]
    #[odm(versioning = false)]
    pub struct Boxed<T>
    where
        T: ::std::clone::Clone,
    {
        #[serde(rename = "_id")]
        pub id: i64,
        pub value: T,
    }
}

use mongodb::bson::{doc, rawdoc};
use odm::{Document, Model};

#[tokio::test]
async fn derive_compiles_without_the_prelude() {
    let client = mongodb::Client::with_uri_str("mongodb://127.0.0.1:9/")
        .await
        .unwrap();
    let db = client.database("hygiene");

    let things: Model<shadowed::Thing> = shadowed::Thing::model(&db);
    assert_eq!(things.name(), "hygienic");
    let mut thing = things
        .hydrate(&rawdoc! { "_id": 1_i64, "name": "a", "tags": [], "__v": 4 })
        .unwrap();
    thing.name = "b".into();
    thing.tags.push("t".into());
    assert_eq!(
        thing.changes(),
        Some((
            doc! { "_id": 1_i64, "__v": 4 },
            doc! {
                "$set": { "name": "b" },
                "$push": { "tags": { "$each": ["t"] } },
                "$inc": { "__v": 1 },
            },
        ))
    );

    use odm::Fields;
    assert_eq!(shadowed::Gadget::fields().inner().note(), "inner.note");
    assert_eq!(shadowed::Boxed::<u8>::fields().value(), "value");
    let gadgets = shadowed::Gadget::model(&db);
    let mut gadget = gadgets
        .hydrate(&rawdoc! { "_id": 3_i64, "inner": { "note": "a" }, "notes": {}, "__v": 0 })
        .unwrap();
    gadget.inner.note = "b".into();
    assert_eq!(gadget.changes().unwrap().0.get("__v"), Some(&0.into()));

    let kinded = shadowed::Kinded::model(&db);
    assert_eq!(kinded.variant::<shadowed::Inner>().name(), "Inner");
    assert_eq!(kinded.indexes()[0].get_str("name").unwrap(), "note_1_Inner");

    use odm::refs::Linked;
    assert_eq!(<shadowed::Linking as Linked>::RULES.len(), 3);
    assert_eq!(<shadowed::Target as Linked>::REFERRERS.len(), 1);
    let links = shadowed::Linking::model(&db);
    let mut link = links
        .hydrate(&rawdoc! { "_id": 4_i64, "to": null, "many": [1_i64], "one": 1_i64, "__v": 0 })
        .unwrap();
    link.to = ::std::option::Option::Some(odm::Ref::new(2_i64));
    assert_eq!(link.changes().unwrap().1, doc! { "$set": { "to": 2_i64 } });

    let boxes = Model::<shadowed::Boxed<u32>>::new(&db);
    assert_eq!(boxes.name(), "boxeds");
    let boxed = boxes
        .hydrate(&rawdoc! { "_id": 2_i64, "value": 7 })
        .unwrap();
    assert_eq!((boxed.value, boxed.version()), (7, None));

    client.shutdown().await;
}
