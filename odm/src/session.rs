//! One way to run an action with or without a session.
//!
//! Every operation that talks to the server takes an optional
//! `&mut ClientSession`; the driver's actions and odm's own builders each
//! have a `.session(..)` setter. [`send`] attaches it when there is one,
//! so no call site repeats the "with or without a session" match.

use std::future::IntoFuture;

use mongodb::action::{
    CountDocuments, Delete, Distinct, FindOne, FindOneAndUpdate, InsertOne, RunCommand, Update,
};
use mongodb::ClientSession;

use crate::document::Document;
use crate::save::Save;

/// An action that can run inside a session.
pub(crate) trait Sessioned<'a>: IntoFuture + Sized {
    /// The action, run inside `session`.
    fn with_session(self, session: &'a mut ClientSession) -> Self;
}

/// Runs `action`, inside `session` when one is given.
pub(crate) async fn send<'a, A>(action: A, session: Option<&'a mut ClientSession>) -> A::Output
where
    A: Sessioned<'a>,
{
    match session {
        Some(s) => action.with_session(s).await,
        None => action.await,
    }
}

macro_rules! sessioned {
    ($($action:ty),* $(,)?) => {$(
        impl<'a> Sessioned<'a> for $action {
            fn with_session(self, session: &'a mut ClientSession) -> Self {
                self.session(session)
            }
        }
    )*};
}

sessioned!(
    InsertOne<'a>,
    Update<'a>,
    Delete<'a>,
    CountDocuments<'a>,
    Distinct<'a>,
    RunCommand<'a>,
);

impl<'a, T> Sessioned<'a> for FindOne<'a, T>
where
    T: serde::de::DeserializeOwned + Send + Sync,
{
    fn with_session(self, session: &'a mut ClientSession) -> Self {
        self.session(session)
    }
}

impl<'a, T> Sessioned<'a> for FindOneAndUpdate<'a, T>
where
    T: serde::de::DeserializeOwned + Send + Sync,
{
    fn with_session(self, session: &'a mut ClientSession) -> Self {
        self.session(session)
    }
}

impl<'a, T: Document> Sessioned<'a> for Save<'a, T> {
    fn with_session(self, session: &'a mut ClientSession) -> Self {
        self.session(session)
    }
}
