//! Compile errors of `#[odm(timestamps)]`.

#[test]
fn timestamps_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/atomic/*.rs");
}
