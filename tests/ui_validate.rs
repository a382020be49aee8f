//! Compile errors of the validation attributes: each case is spanned at the
//! mistake and says how to fix it.

#[test]
fn ui_validate() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/validate-*.rs");
}
