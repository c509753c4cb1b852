//! One test binary for every trybuild case. Refresh the expected errors with
//! `TRYBUILD=overwrite cargo test -p ui-tests`, then review every changed `.stderr`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
