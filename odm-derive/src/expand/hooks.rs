//! `#[odm(hooks)]`: the `Document` hook methods call the model's
//! `odm::Hooks` impl. The trait bound is spanned at the attribute, so a
//! model without the impl is reported there.

use proc_macro2::TokenStream;
use quote::quote_spanned;

use crate::ast::Container;

pub fn hook_methods(cont: &Container) -> TokenStream {
    let Some((span, ())) = cont.attrs.hooks else {
        return TokenStream::new();
    };
    let hooks = quote_spanned!(span=> <Self as ::odm::__private::Hooks>);
    let ctx = quote_spanned!(span=> &mut ::odm::__private::HookContext<'_>);
    let future = quote_spanned!(span=> impl ::core::future::Future<Output = ::odm::__private::Result<()>> + ::core::marker::Send);
    quote_spanned! {span=>
        fn __odm_before_save(&mut self, ctx: #ctx) -> #future {
            #hooks::before_save(self, ctx)
        }
        fn __odm_after_save(&self, ctx: #ctx) -> #future {
            #hooks::after_save(self, ctx)
        }
        fn __odm_before_delete(&self, ctx: #ctx) -> #future {
            #hooks::before_delete(self, ctx)
        }
        fn __odm_after_delete(&self, ctx: #ctx) -> #future {
            #hooks::after_delete(self, ctx)
        }
    }
}
