use super::*;
use mongodb::bson::oid::ObjectId;

#[test]
fn version_error_displays_like_mongoose() {
    let id = ObjectId::parse_str("64b7f0c2a1b2c3d4e5f60718").unwrap();
    let e = VersionError::new(
        Bson::ObjectId(id),
        3,
        vec!["tags".into(), "comments.1.text".into()],
    );
    assert_eq!(
        e.to_string(),
        "No matching document found for id \"64b7f0c2a1b2c3d4e5f60718\" version 3 modifiedPaths \"tags, comments.1.text\""
    );
    let e = VersionError::new(Bson::String("u1".into()), 0, vec![]);
    assert_eq!(
        e.to_string(),
        "No matching document found for id \"u1\" version 0 modifiedPaths \"\""
    );
    // What changed in the store is read after the refusal, never shown
    // in the text (which stays Mongoose's).
    let e = e.with_stored_changes(vec!["meta.city".into()]);
    assert_eq!(e.stored_changes(), Some(&["meta.city".to_string()][..]));
    assert_eq!(
        e.to_string(),
        "No matching document found for id \"u1\" version 0 modifiedPaths \"\""
    );
}

#[test]
fn lock_errors_say_what_happened() {
    let lost = LeaseLostError {
        key: "email:a@b.c".into(),
        token: 4,
    };
    assert_eq!(
        lost.to_string(),
        "lease ? (token 4) is no longer held: it expired by the database's clock and may have been taken by another holder"
    );
    let timeout = LeaseTimeoutError {
        key: "k".into(),
        waited: std::time::Duration::from_millis(1500),
    };
    assert_eq!(
        timeout.to_string(),
        "lease ? is still held by another holder after waiting 1.5s"
    );
    let fenced = FencedError {
        collection: "reports".into(),
        filter: mongodb::bson::doc! { "_id": 42 },
        token: 3,
        stored: Some(5),
    };
    assert_eq!(
        fenced.to_string(),
        "fenced write with token 3 refused on collection \"reports\" for \"{ _id: 42 }\": the document holds the newer token 5"
    );
}

/// A subscriber enabled for everything: values are shown under it.
struct All;

impl tracing::Subscriber for All {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn shown<R>(f: impl FnOnce() -> R) -> R {
    tracing::subscriber::with_default(All, f)
}

const SECRET: &str = "s3cret-token";
const EMAIL: &str = "a@b.c";

/// One error of every variant, each carrying the secret or the email.
fn every_error_with_values() -> Vec<Error> {
    let filter = mongodb::bson::doc! { "_id": 7, "resetToken": SECRET, "email": { "$eq": EMAIL } };
    let message = format!(
        "E11000 duplicate key error collection: app.users index: email_1 dup key: {{ email: \"{EMAIL}\" }}"
    );
    let mut from_message = duplicate::parse(Some("users"), message.clone());
    from_message.cause = Cause::default();
    let mut with_value = duplicate::parse(Some("users"), message.clone());
    with_value.key_value = Some(Box::new(mongodb::bson::doc! { "email": EMAIL }));
    let write_error: mongodb::error::Error =
        mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(
            crate::bson_release::testing::from_document(mongodb::bson::doc! {
                "code": 11000, "errmsg": &message
            })
            .unwrap(),
        ))
        .into();
    let mut validation = ValidationErrors::new();
    validation.push(ValidationError::new("email", "must be one of \"x\"").with_value(EMAIL));
    validation.push(ValidationError::new("pin", "must be at least 1000").with_value(SECRET));
    vec![
        Error::NotFound(Box::new(NotFoundError {
            collection: "users".into(),
            filter: filter.clone(),
        })),
        Error::Fenced(Box::new(FencedError {
            collection: "users".into(),
            filter,
            token: 3,
            stored: None,
        })),
        Error::DuplicateKey(Box::new(from_message)),
        Error::DuplicateKey(Box::new(with_value)),
        Error::Driver(write_error),
        Error::Validation(validation),
        Error::Deserialize(Box::new(DeserializeError {
            collection: "users".into(),
            id: Bson::Int32(7),
            path: "pin".into(),
            message: format!("invalid type: string \"{SECRET}\", expected i32"),
        })),
        Error::LeaseLost(Box::new(LeaseLostError {
            key: format!("email:{EMAIL}"),
            token: 4,
        })),
        Error::LeaseTimeout(Box::new(LeaseTimeoutError {
            key: format!("reset:{SECRET}"),
            waited: std::time::Duration::from_secs(1),
        })),
        Error::Index(Box::new(crate::error::IndexError {
            collection: "users".into(),
            index: "email_1".into(),
            declared: mongodb::bson::doc! { "key": { "email": 1 }, "name": "email_1" },
            kind: crate::error::IndexErrorKind::Refused {
                code: 11000,
                message: message.clone(),
            },
            cause: Cause::default(),
        })),
    ]
}

#[test]
fn no_text_shows_a_value_unless_values_are_shown() {
    assert!(!values_shown());
    for e in every_error_with_values() {
        let hidden = e.to_string();
        assert!(
            !hidden.contains(SECRET) && !hidden.contains(EMAIL),
            "a value in {hidden}"
        );
        let with_values = shown(|| {
            assert!(values_shown());
            e.to_string()
        });
        assert!(
            with_values.contains(SECRET) || with_values.contains(EMAIL),
            "no value in {with_values}"
        );
        assert_ne!(hidden, with_values);
    }
}

#[test]
fn hidden_texts_keep_names_and_ids() {
    let texts: Vec<String> = every_error_with_values()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        texts,
        [
            "No document found for query \"{ _id: 7, resetToken: ?, email: { $eq: ? } }\" on collection \"users\"",
            "fenced write with token 3 refused on collection \"users\" for \"{ _id: 7, resetToken: ?, email: { $eq: ? } }\": the document holds a newer token",
            "duplicate key in collection \"users\" on index \"email_1\": { email: ? }",
            "duplicate key in collection \"users\" on index \"email_1\": { email: ? }",
            "the server refused the write: E11000 duplicate key error collection: app.users index: email_1 dup key: { ? } (code 11000)",
            "validation failed: email: must be one of \"x\" (is ?); pin: must be at least 1000 (is ?)",
            "cannot load document \"7\" from collection \"users\": field \"pin\": invalid type: string ?, expected i32",
            "lease ? (token 4) is no longer held: it expired by the database's clock and may have been taken by another holder",
            "lease ? is still held by another holder after waiting 1s",
            "the server refused to create index \"email_1\" { \"key\": { \"email\": 1 }, \"name\": \"email_1\" } on collection \"users\" (code 11000): E11000 duplicate key error collection: app.users index: email_1 dup key: { ? }",
        ]
    );
}

#[test]
fn an_unsigned_integer_too_large_is_a_value() {
    let e = Error::from(
        crate::bson_release::testing::to_document(&mongodb::bson::doc! {})
            .map(|_| ())
            .and_then(|_| {
                #[derive(serde::Serialize)]
                struct Big {
                    n: u64,
                }
                crate::bson_release::testing::to_document(&Big { n: u64::MAX }).map(|_| ())
            })
            .unwrap_err(),
    );
    assert_eq!(
        e.to_string(),
        format!("cannot serialize the document to BSON: the unsigned integer ? is larger than BSON's largest integer ({})", i64::MAX)
    );
    assert!(shown(|| e.to_string()).contains(&u64::MAX.to_string()));
}

#[test]
fn an_application_error_is_its_own_text_and_never_transient() {
    let app = Error::application("insufficient funds");
    assert!(app.labels().is_empty());
    assert!(!app.is_transient());
    assert_eq!(app.to_string(), "insufficient funds");
    assert_eq!(shown(|| app.to_string()), "insufficient funds");
    assert!(app.application_error::<std::fmt::Error>().is_none());
}
