//! An attacker's URIs against the matcher, and the parser's refusals.

use super::*;

fn t(s: &str) -> UriTemplate {
    UriTemplate::parse(s).unwrap()
}

#[test]
fn simple_variable_is_one_nonempty_segment() {
    let notes = t("notes://{id}");
    assert_eq!(notes.matches("notes://42").unwrap().get("id"), Some("42"));
    assert!(notes.matches("notes://").is_none(), "empty value");
    assert!(notes.matches("notes://a/b").is_none(), "raw slash");
    assert!(notes.matches("notes://a%2Fb").is_none(), "encoded slash");
    assert!(
        notes.matches("notes://a%2fb").is_none(),
        "encoded slash, lowercase"
    );
    assert!(notes.matches("notes://.").is_none());
    assert!(notes.matches("notes://..").is_none());
    assert!(notes.matches("notes://%2e%2e").is_none(), "encoded dots");
    assert!(notes.matches("notes://%2E.").is_none());
    assert!(
        notes.matches("notes://...").is_some(),
        "three dots are a name"
    );
    assert!(notes.matches("other://42").is_none());
}

#[test]
fn reserved_variable_holds_paths_but_no_dot_segments() {
    let files = t("file:///{+path}");
    assert_eq!(
        files.matches("file:///src/lib.rs").unwrap().get("path"),
        Some("src/lib.rs")
    );
    for evil in [
        "file:///../etc/passwd",
        "file:///a/../../etc/passwd",
        "file:///a/%2e%2e/%2E%2E/etc",
        "file:///a%2F..%2F..%2Fetc",
        "file:///a/./b",
        "file:///a//b",
        "file:///",
        "file:///a/",
        "file:///a%00b",
        "file:///a%0Ab",
    ] {
        assert!(files.matches(evil).is_none(), "{evil} matched");
    }
    // An encoded slash is a slash once decoded, and may be one in a path.
    assert_eq!(
        files.matches("file:///a%2Fb").unwrap().get("path"),
        Some("a/b")
    );
}

#[test]
fn broken_encodings_do_not_match() {
    let notes = t("notes://{id}");
    for evil in ["notes://%", "notes://%2", "notes://%zz", "notes://%ff%fe"] {
        assert!(notes.matches(evil).is_none(), "{evil} matched");
    }
}

#[test]
fn unicode_raw_and_encoded() {
    let notes = t("notes://{id}");
    assert_eq!(
        notes.matches("notes://café").unwrap().get("id"),
        Some("café")
    );
    assert_eq!(
        notes.matches("notes://caf%C3%A9").unwrap().get("id"),
        Some("café")
    );
    let vars: UriVariables = [("id", "café ü/x")].into_iter().collect();
    let uri = notes.expand(&vars);
    assert_eq!(uri, "notes://caf%C3%A9%20%C3%BC%2Fx");
    // A value with `/` cannot round-trip through `{id}`: the matcher refuses it.
    assert!(notes.matches(&uri).is_none());
}

#[test]
fn huge_uris_match_nothing_and_do_not_explode() {
    let notes = t("notes://{a}-{b}-{c}-{d}.md");
    let huge = format!("notes://{}", "-".repeat(MAX_URI_LEN * 100));
    assert!(notes.matches(&huge).is_none());
    // Just under the limit, every split possible and none ending in `.md`: each (part,
    // position) is tried once, so this returns instead of trying every split.
    let near = format!("notes://{}x", "-".repeat(MAX_URI_LEN - 20));
    assert!(notes.matches(&near).is_none());
    let many = format!("notes://{}", "a-".repeat(2000));
    assert!(notes.matches(&many).is_none());
}

#[test]
fn several_variables_and_literals() {
    let t2 = t("notes://{folder}/{id}.md");
    let vars = t2.matches("notes://work/a.b.md").unwrap();
    assert_eq!(
        (vars.get("folder"), vars.get("id")),
        (Some("work"), Some("a.b"))
    );
    assert!(t2.matches("notes://work/x/a.md").is_none());
    assert_eq!(t2.expand(&vars), "notes://work/a.b.md");
    let mixed = t("repo://{owner}/{+path}");
    let vars = mixed.matches("repo://me/src/a/b.rs").unwrap();
    assert_eq!(
        (vars.get("owner"), vars.get("path")),
        (Some("me"), Some("src/a/b.rs"))
    );
}

#[test]
fn round_trip_of_expand_and_matches() {
    let tpl = t("notes://{id}/v/{+rest}");
    let vars: UriVariables = [("id", "a b%c"), ("rest", "x/y z")].into_iter().collect();
    let uri = tpl.expand(&vars);
    assert_eq!(tpl.matches(&uri), Some(vars));
}

#[test]
fn parser_refusals() {
    use UriTemplateError as E;
    let err = |s: &str| UriTemplate::parse(s).unwrap_err();
    assert_eq!(err(""), E::Empty);
    assert_eq!(err("{id}"), E::MissingScheme);
    assert_eq!(err("/notes/{id}"), E::MissingScheme);
    assert_eq!(err("notes://{id"), E::Unclosed { at: 8 });
    assert_eq!(err("notes://id}"), E::StrayClose { at: 10 });
    assert!(matches!(err("notes://{1d}"), E::InvalidName { .. }));
    assert!(matches!(err("notes://{}"), E::InvalidName { .. }));
    assert!(matches!(err("notes://{a-b}"), E::InvalidName { .. }));
    assert!(matches!(
        err("notes://{?q}"),
        E::UnsupportedOperator { operator: '?', .. }
    ));
    assert!(matches!(err("notes://{#q}"), E::UnsupportedOperator { .. }));
    assert!(matches!(
        err("notes://{a,b}"),
        E::UnsupportedExpression { .. }
    ));
    assert!(matches!(
        err("notes://{a*}"),
        E::UnsupportedExpression { .. }
    ));
    assert!(matches!(
        err("notes://{a:3}"),
        E::UnsupportedExpression { .. }
    ));
    assert!(matches!(
        err("notes://{a}/{a}"),
        E::DuplicateVariable { .. }
    ));
    assert_eq!(err("notes://{a}{b}"), E::AdjacentVariables { at: 11 });
    assert!(matches!(err("notes://{a{b}}"), E::Unclosed { .. }));
    let many: String = (0..=MAX_VARIABLES).map(|i| format!("{{v{i}}}/")).collect();
    assert_eq!(err(&format!("n://{many}")), E::TooManyVariables);
    assert_eq!(err(&format!("n://{}", "a".repeat(MAX_URI_LEN))), E::TooLong);
    // Every refusal says what to do.
    assert!(err("notes://{?q}").to_string().contains("{+name}"));
}

#[test]
fn fixed_uris_parse_as_templates_without_variables() {
    let fixed = t("notes://all");
    assert_eq!(fixed.variables().len(), 0);
    assert!(fixed.matches("notes://all").unwrap().is_empty());
    assert!(fixed.matches("notes://all2").is_none());
    assert_eq!(fixed.as_str(), "notes://all");
}
