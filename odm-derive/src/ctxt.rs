//! Collects every error of one derive, so all are reported together.

use std::cell::{Cell, RefCell};
use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
    /// Another derive (serde) reports a mistake we saw: emit the stub only.
    deferred: Cell<bool>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            deferred: Cell::new(false),
        }
    }

    /// An error spanned at `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.syn_error(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    pub fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// A mistake serde's derive reports itself (a malformed
    /// `#[serde(..)]`): no message from us, but no real impl either.
    pub fn defer_to_serde(&self) {
        self.deferred.set(true);
    }

    /// All errors, or `Ok` when there were none. `Err` may hold no error
    /// when the mistake is reported by serde.
    pub fn check(self) -> Result<(), Vec<syn::Error>> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        if errors.is_empty() && !self.deferred.get() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}
