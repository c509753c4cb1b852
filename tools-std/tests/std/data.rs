//! calculate, json_query, current_time.

use serde_json::json;

use crate::harness::Harness;

#[tokio::test]
async fn calculate_evaluates_arithmetic_without_code() {
    let h = Harness::new();
    for (expression, expected) in [
        ("1 + 2 * 3", "7"),
        ("7/2", "3.5"),
        ("sqrt(144) + 2^10 / 4", "268"),
        ("2 * pi", "6.283185307179586"),
        ("round(e * 100) / 100", "2.72"),
        ("max(3, 9) - min(4, 1)", "8"),
        ("1e3 + 1", "1001"),
        ("sin(PI / 2)", "1"),
        ("log10(1000)", "3"),
        // Precedence and associativity (issue 18): a sign binds looser than `^`.
        ("2^3^2", "512"),
        ("-2^2", "-4"),
        ("(-2)^2", "4"),
        ("2*-3", "-6"),
        ("2^-1", "0.5"),
        ("-2^-2", "-0.25"),
        ("--2", "2"),
        ("-(2)^2", "-4"),
        ("1-2-3", "-4"),
        ("2*3^2", "18"),
    ] {
        assert_eq!(
            h.ok("calculate", json!({"expression": expression})).await,
            expected,
            "{expression}"
        );
    }
    let error = h.err("calculate", json!({"expression": "1/0"})).await;
    assert_eq!(
        error,
        "tool `calculate` failed: cannot evaluate `1/0`: division by zero (the divisor of this `/` is 0) at position 2"
    );
    let error = h.err("calculate", json!({"expression": "2^"})).await;
    assert!(
        error.contains(
            "cannot evaluate `2^`: expected a number, a constant, a function or `(` after `^` at position 3 (the end of the expression); use numbers"
        ),
        "{error}"
    );
    let error = h.err("calculate", json!({"expression": "("})).await;
    assert!(error.contains("after `(` at position 2"), "{error}");
    let error = h.err("calculate", json!({"expression": "10^400"})).await;
    assert!(error.contains("is not a finite number (inf)"), "{error}");
    let error = h.err("calculate", json!({"expression": "x + 1"})).await;
    assert!(error.contains("cannot evaluate `x + 1`"), "{error}");
    let error = h
        .err("calculate", json!({"expression": "std::process::exit(1)"}))
        .await;
    assert!(error.contains("cannot evaluate"), "{error}");
    let error = h
        .err("calculate", json!({"expression": "1".repeat(2000)}))
        .await;
    assert!(error.contains("the limit is 1000"), "{error}");
    let error = h.err("calculate", json!({"expression": " "})).await;
    assert!(error.contains("empty"), "{error}");
}

#[tokio::test]
async fn json_query_follows_pointers_and_paths() {
    let h = Harness::new();
    let document = json!({"items": [{"name": "a", "tags": ["x"]}, {"name": "b"}], "a/b": 1});
    for (query, expected) in [
        ("/items/0/name", "\"a\""),
        ("items[1].name", "\"b\""),
        (".items.0.tags", "[\"x\"]"),
        ("/a~1b", "1"),
        ("", &document.to_string()),
    ] {
        assert_eq!(
            h.ok("json_query", json!({"document": document, "query": query}))
                .await,
            expected,
            "{query}"
        );
    }
    let as_text = h
        .ok(
            "json_query",
            json!({"document": document.to_string(), "query": "items[0].name"}),
        )
        .await;
    assert_eq!(as_text, "\"a\"");
    let error = h
        .err(
            "json_query",
            json!({"document": document, "query": "items[5]"}),
        )
        .await;
    assert_eq!(
        error,
        "tool `json_query` failed: nothing at `items[5]`: `/items` is an array of 2 items (indexes 0 to 1)"
    );
    let error = h
        .err("json_query", json!({"document": document, "query": "itms"}))
        .await;
    assert!(
        error.contains("the document is an object with keys `items`, `a/b`"),
        "{error}"
    );
    let error = h
        .err("json_query", json!({"document": "{not json", "query": ""}))
        .await;
    assert!(
        error.contains("`document` is a string that is not JSON text"),
        "{error}"
    );
}

#[tokio::test]
async fn current_time_is_time_zone_aware() {
    let h = Harness::new();
    let utc = h.ok("current_time", json!({})).await;
    assert!(utc.contains("+00:00 ("), "{utc}");
    assert!(utc.contains("UTC"), "{utc}");
    let tokyo = h
        .ok("current_time", json!({"timezone": "Asia/Tokyo"}))
        .await;
    assert!(tokyo.contains("+09:00 ("), "{tokyo}");
    let year: i32 = tokyo[..4].parse().unwrap();
    assert!(year >= 2025);
    let error = h.err("current_time", json!({"timezone": "Paris"})).await;
    assert!(
        error.contains("unknown time zone `Paris`: did you mean `Europe/Paris`"),
        "{error}"
    );
    let error = h.err("current_time", json!({"timezone": "Pairs"})).await;
    assert!(
        error.contains("unknown time zone `Pairs`: did you mean `Europe/Paris`"),
        "{error}"
    );
    let error = h
        .err("current_time", json!({"timezone": "Mars/Olympus"}))
        .await;
    assert!(error.contains("use an IANA name"), "{error}");
}
