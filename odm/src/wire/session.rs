//! One way to run an action with or without a session.
//!
//! Every operation that talks to the server takes an optional
//! `&mut ClientSession`; the driver's actions and odm's own builders each
//! have a `.session(..)` setter. [`send`] attaches it when there is one,
//! so no call site repeats the "with or without a session" match.
//!
//! odm's builders are made awaitable by one macro, [`awaitable!`]: it
//! writes a builder's `IntoFuture` (a [`BoxFuture`]), and for a builder
//! with a `session` field its `.session(..)` setter and its [`Sessioned`]
//! impl, so every operation takes its session the same way.

use std::future::{Future, IntoFuture};
use std::pin::Pin;

use mongodb::action::{
    BulkWrite, CountDocuments, Delete, Distinct, FindOne, FindOneAndUpdate, InsertOne, RunCommand,
    Update,
};
use mongodb::results::VerboseBulkWriteResult;
use mongodb::ClientSession;

/// The future of an `odm` operation: boxed, `Send`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Makes an operation builder awaitable:
///
/// ```text
/// awaitable! {
///     impl['a, T: Document] Save<'a, T> => Result<()>;
///     /// Runs the save inside `session` (..).
///     session;
///     into_future(self) run(self.doc, self.session, self.fence)
/// }
/// ```
///
/// writes `IntoFuture for Save<'a, T>` whose future is the last
/// expression, boxed; with `session;` (documented by the doc comments
/// before it) also `.session(..)`, which stores the session in the
/// builder's `session: Option<&'a mut ClientSession>` field, and
/// [`Sessioned`], so the builder can be passed to [`send`]. The builder's
/// lifetime is the first generic parameter; a `where [..]` clause may
/// follow the type. `self` is mutable in the expression.
macro_rules! awaitable {
    (
        impl[$a:lifetime $(, $($g:tt)+)?] $ty:ty $(where [$($w:tt)+])? => $out:ty;
        $(#[$doc:meta])* session;
        into_future($this:ident) $body:expr $(;)?
    ) => {
        impl<$a $(, $($g)+)?> $ty $(where $($w)+)? {
            $(#[$doc])*
            pub fn session(mut self, session: &$a mut ::mongodb::ClientSession) -> Self {
                self.session = ::core::option::Option::Some(session);
                self
            }
        }

        impl<$a $(, $($g)+)?> $crate::wire::session::Sessioned<$a> for $ty $(where $($w)+)? {
            fn with_session(self, session: &$a mut ::mongodb::ClientSession) -> Self {
                self.session(session)
            }
        }

        $crate::wire::session::awaitable! {
            impl[$a $(, $($g)+)?] $ty $(where [$($w)+])? => $out;
            into_future($this) $body
        }
    };
    (
        impl[$a:lifetime $(, $($g:tt)+)?] $ty:ty $(where [$($w:tt)+])? => $out:ty;
        into_future($this:ident) $body:expr $(;)?
    ) => {
        impl<$a $(, $($g)+)?> ::std::future::IntoFuture for $ty $(where $($w)+)? {
            type Output = $out;
            type IntoFuture = $crate::wire::session::BoxFuture<$a, $out>;

            #[allow(unused_mut)]
            fn into_future(mut $this) -> Self::IntoFuture {
                ::std::boxed::Box::pin($body)
            }
        }
    };
}
pub(crate) use awaitable;

/// An action that can run inside a session.
pub(crate) trait Sessioned<'a>: IntoFuture + Sized {
    /// The action, run inside `session`.
    fn with_session(self, session: &'a mut ClientSession) -> Self;
}

/// Runs `action`, inside `session` when one is given: its future, to
/// await. Not an `async fn`: the action (a driver's builder holds its
/// options, several hundred bytes) becomes its own future here, which
/// for the driver's actions and odm's builders is a pointer to a boxed
/// one, instead of being moved into a wrapping future and again on every
/// move of that.
pub(crate) fn send<'a, A>(action: A, session: Option<&'a mut ClientSession>) -> A::IntoFuture
where
    A: Sessioned<'a>,
{
    match session {
        Some(s) => action.with_session(s).into_future(),
        None => action.into_future(),
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

impl<'a> Sessioned<'a> for BulkWrite<'a, VerboseBulkWriteResult> {
    fn with_session(self, session: &'a mut ClientSession) -> Self {
        self.session(session)
    }
}

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
