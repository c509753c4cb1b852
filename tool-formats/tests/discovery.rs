//! Deferred tool lists against the providers' documented examples and published schemas
//! (fixtures in `tests/fixtures/discovery/`, each with its source), and the attacks a model
//! or a lying provider could try: names not offered, namespaces spoofed, huge and malformed
//! payloads.

use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, Tool};
use toolwright_formats::discovery::parse::{Step, parse_anthropic, parse_chat, parse_responses};
use toolwright_formats::discovery::reply::{anthropic_search_result, responses_search_output};
use toolwright_formats::discovery::{
    DeferPlan, DiscoveryError, Grouping, MAX_ANTHROPIC_TOOLS, SearchTool, export_deferred,
};
use toolwright_formats::schema::Format;

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/discovery/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    Tool::builder(name)
        .description(description)
        .input_schema(schema)
        .handler(|_| async { "ok" })
        .build()
        .unwrap()
}

fn plain(name: &str) -> Tool {
    tool(name, "A tool.", json!({"type": "object", "properties": {}}))
}

fn documented_weather() -> Tool {
    let doc = fixture("anthropic_tool_search.json");
    let weather = &doc["request_tools"][1];
    tool(
        "get_weather",
        weather["description"].as_str().unwrap(),
        weather["input_schema"].clone(),
    )
}

#[test]
fn anthropic_export_is_the_documented_request() {
    let doc = fixture("anthropic_tool_search.json");
    let plan = DeferPlan::new().search(SearchTool::ProviderRegex);
    let list = export_deferred(&[documented_weather()], Format::Anthropic, &plan).unwrap();
    assert_eq!(Value::Array(list.tools().to_vec()), doc["request_tools"]);
}

#[test]
fn anthropic_documented_response_parses_to_search_load_and_call() {
    let doc = fixture("anthropic_tool_search.json");
    let plan = DeferPlan::new().search(SearchTool::ProviderRegex);
    let list = export_deferred(&[documented_weather()], Format::Anthropic, &plan).unwrap();
    let steps = parse_anthropic(&doc["response"], &list).unwrap();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert_eq!(
        steps[0],
        Step::Searched {
            id: "srvtoolu_01ABC123".into(),
            query: "weather".into()
        }
    );
    assert_eq!(
        steps[1],
        Step::Loaded {
            id: "srvtoolu_01ABC123".into(),
            tools: vec!["get_weather".into()],
            refused: vec![]
        }
    );
    let Step::Call(call) = &steps[2] else {
        panic!("{steps:?}")
    };
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("toolu_01XYZ789", "get_weather")
    );
    assert_eq!(
        call.arguments,
        json!({"location": "San Francisco", "unit": "fahrenheit"})
    );

    let error = json!({"role": "assistant", "content": [doc["error_result"].clone()]});
    assert_eq!(
        parse_anthropic(&error, &list).unwrap(),
        vec![Step::SearchFailed {
            id: "srvtoolu_01ABC123".into(),
            code: "invalid_tool_input".into()
        }]
    );
}

#[test]
fn anthropic_custom_search_answer_has_the_documented_shape_and_reads_back() {
    let doc = fixture("anthropic_tool_search.json");
    let tools = [plain("discovered_tool_name"), plain("read_notes")];
    let plan = DeferPlan::new()
        .core_names(["read_notes"])
        .search(SearchTool::Ours);
    let list = export_deferred(&tools, Format::Anthropic, &plan).unwrap();
    assert_eq!(list.tools()[0]["name"], "search_tools");
    assert!(list.tools()[0].get("defer_loading").is_none());
    let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_your_tool_id",
        "name": "search_tools", "input": {"query": "discover"}}]});
    let Step::Search(request) = &parse_anthropic(&call, &list).unwrap()[0] else {
        panic!("not a search")
    };
    let answer = anthropic_search_result(request, &["discovered_tool_name".into()], &list);
    assert_eq!(answer, doc["custom_search_result"]);
    let next = json!({"role": "user", "content": [answer]});
    assert!(matches!(&parse_anthropic(&next, &list).unwrap()[0],
        Step::Loaded { tools, .. } if tools == &["discovered_tool_name"]));
}

/// Every key of `value` is one the published type allows, and the required ones are there.
fn conforms(value: &Value, schema: &Value) {
    let object = value.as_object().unwrap_or_else(|| panic!("{value}"));
    for key in object.keys() {
        assert!(
            schema["allowed"].as_array().unwrap().contains(&json!(key)),
            "`{key}` is not in the published type: {value}"
        );
    }
    for key in schema["required"].as_array().unwrap() {
        assert!(
            object.contains_key(key.as_str().unwrap()),
            "`{key}` missing: {value}"
        );
    }
}

#[test]
fn openai_export_conforms_to_the_published_types() {
    let doc = fixture("openai_tool_search.json");
    let schemas = &doc["schemas"];
    let tools = [
        plain("crm_list_open_orders"),
        plain("crm_get_customer"),
        plain("read_notes"),
        plain("ping"),
    ];
    for search in [SearchTool::ProviderBm25, SearchTool::Ours] {
        let plan = DeferPlan::new()
            .core_names(["read_notes"])
            .group_by(Grouping::Prefixes(vec!["crm".into()]))
            .search(search);
        let list = export_deferred(&tools, Format::OpenAiResponses, &plan).unwrap();
        let exported = list.tools();
        conforms(&exported[0], &schemas["tool_search"]);
        assert_eq!(exported[0]["type"], "tool_search");
        assert_eq!(
            exported[0].get("execution").is_some(),
            search == SearchTool::Ours
        );
        for entry in &exported[1..] {
            match entry["type"].as_str() {
                Some("namespace") => {
                    conforms(entry, &schemas["namespace"]);
                    for member in entry["tools"].as_array().unwrap() {
                        conforms(member, &schemas["function"]);
                        assert_eq!(member["defer_loading"], true);
                    }
                }
                _ => conforms(entry, &schemas["function"]),
            }
        }
        assert_eq!(
            exported.len(),
            4,
            "search, read_notes, ping (deferred), crm"
        );
        assert_eq!(exported[2]["defer_loading"], true);
        let answer = responses_search_output(
            &toolwright_formats::discovery::parse::SearchRequest {
                id: "call_search_1".into(),
                query: "orders".into(),
                limit: 3,
            },
            &["crm_list_open_orders".into(), "ping".into()],
            &list,
        );
        conforms(&answer, &schemas["tool_search_output"]);
        assert_eq!(answer["tools"][0]["name"], "crm");
        assert_eq!(answer["tools"][0]["tools"][0]["name"], "list_open_orders");
        assert_eq!(answer["tools"][1]["name"], "ping");
        // Our answer reads back as the tools it loads.
        let steps = parse_responses(&json!([answer]), &list).unwrap();
        assert!(matches!(&steps[0], Step::Loaded { tools, refused, .. }
            if tools == &["crm_list_open_orders", "ping"] && refused.is_empty()));
    }
}

#[test]
fn openai_documented_items_parse() {
    let doc = fixture("openai_tool_search.json");
    let tools = [plain("crm_list_open_orders")];
    let plan = DeferPlan::new()
        .group_by(Grouping::Prefixes(vec!["crm".into()]))
        .search(SearchTool::Ours);
    let list = export_deferred(&tools, Format::OpenAiResponses, &plan).unwrap();
    let steps = parse_responses(&doc["response"], &list).unwrap();
    assert_eq!(steps.len(), 4, "{steps:?}");
    assert!(matches!(&steps[0], Step::Search(search)
        if search.id == "call_search_1" && search.query == "customer orders" && search.limit == 3));
    assert!(matches!(&steps[1], Step::Searched { query, .. } if query.contains("paths")));
    assert!(matches!(&steps[2], Step::Loaded { tools, .. } if tools == &["crm_list_open_orders"]));
    assert!(matches!(&steps[3], Step::Call(call)
        if call.name == "crm_list_open_orders" && call.arguments == json!({"customer_id": "C-17"})));
}

#[test]
fn categories_group_into_namespaces_with_the_operator_description() {
    let tracker = |name: &str| {
        Tool::builder(name)
            .description("Tracker.")
            .categories(["issue tracker"])
            .handler(|_| async { "ok" })
            .build()
            .unwrap()
    };
    let plan = DeferPlan::new()
        .group_by(Grouping::Categories)
        .namespace_description("issue_tracker", "Issues.");
    let list = export_deferred(
        &[tracker("open_issue"), tracker("close_issue"), plain("ping")],
        Format::OpenAiResponses,
        &plan,
    )
    .unwrap();
    let namespace = list
        .tools()
        .iter()
        .find(|t| t["type"] == "namespace")
        .unwrap();
    assert_eq!(namespace["name"], "issue_tracker", "sanitised");
    assert_eq!(namespace["description"], "Issues.");
    assert_eq!(
        list.resolve(Some("issue_tracker"), "open_issue").unwrap(),
        "open_issue"
    );
    // Outside its namespace the function is not what was offered.
    assert!(list.resolve(None, "open_issue").is_err());
}

#[test]
fn chat_and_gemini_get_the_core_the_loaded_and_search_tools() {
    let tools = [
        plain("read_notes"),
        plain("get_weather"),
        plain("send_mail"),
    ];
    for format in [Format::OpenAiChat, Format::Gemini] {
        let plan = DeferPlan::new()
            .core_names(["read_notes"])
            .loaded(["get_weather"]);
        let list = export_deferred(&tools, format, &plan).unwrap();
        assert_eq!(list.search_tool(), SearchTool::Ours);
        let names: Vec<&str> = list
            .tools()
            .iter()
            .map(|t| {
                t.pointer("/function/name")
                    .or(t.get("name"))
                    .and_then(Value::as_str)
                    .unwrap()
            })
            .collect();
        assert_eq!(
            names,
            ["search_tools", "read_notes", "get_weather"],
            "{format}"
        );
        assert!(list.offers("send_mail") && list.is_deferred("send_mail"));
    }
}

// The attacks.

#[test]
fn a_call_or_reference_of_a_tool_not_offered_is_refused() {
    // The caller's ceiling left `drop_database` out of the list: nothing may bring it back.
    let tools = [plain("github_create_issue"), plain("create_issue_note")];
    let plan = DeferPlan::new().group_by(Grouping::Prefixes(vec!["github".into()]));
    let list = export_deferred(&tools, Format::OpenAiResponses, &plan).unwrap();
    let output = json!([
        {"type": "function_call", "call_id": "a", "name": "drop_database", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "namespace": "github", "name": "drop_database", "arguments": "{}"},
        // The namespaced function named without its namespace: not what was offered.
        {"type": "function_call", "call_id": "c", "name": "create_issue", "arguments": "{}"},
        // A namespace that was never exported, naming an offered tool's full name.
        {"type": "function_call", "call_id": "d", "namespace": "evil", "name": "github_create_issue", "arguments": "{}"},
        {"type": "tool_search_output", "call_id": "e", "execution": "server", "status": "completed",
         "tools": [{"type": "function", "name": "drop_database"}]}
    ]);
    let steps = parse_responses(&output, &list).unwrap();
    for (step, id) in steps.iter().take(4).zip(["a", "b", "c", "d"]) {
        assert!(
            matches!(step, Step::Refused { id: got, error: DiscoveryError::NotOffered { .. } } if got == id),
            "{step:?}"
        );
    }
    assert!(matches!(&steps[4], Step::Loaded { tools, refused, .. }
        if tools.is_empty() && refused == &["drop_database"]));

    let anthropic = export_deferred(&tools, Format::Anthropic, &DeferPlan::new()).unwrap();
    let message = json!({"content": [
        {"type": "tool_search_tool_result", "tool_use_id": "s", "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "drop_database"}]}},
        {"type": "tool_use", "id": "t", "name": "drop_database", "input": {}}
    ]});
    let steps = parse_anthropic(&message, &anthropic).unwrap();
    assert!(matches!(&steps[0], Step::Loaded { tools, .. } if tools.is_empty()));
    assert!(matches!(&steps[1], Step::Refused { .. }));
    // And our own answer never references it, whatever the search returned.
    let request = toolwright_formats::discovery::parse::SearchRequest {
        id: "x".into(),
        query: "drop".into(),
        limit: 5,
    };
    let answer = anthropic_search_result(&request, &["drop_database".into()], &anthropic);
    assert_eq!(answer["content"][0]["type"], "text", "{answer}");
}

#[test]
fn a_tool_above_the_ceiling_is_not_in_the_list_and_cannot_be_called() {
    let dangerous = Tool::builder("wipe_disk")
        .description("Wipe.")
        .safety(SafetyLevel::Dangerous)
        .handler(|_| async { "gone" })
        .build()
        .unwrap();
    let all = [plain("ping"), dangerous];
    // What the caller may see, as the registry's filter gives it.
    let visible: Vec<Tool> = all
        .iter()
        .filter(|t| t.safety() <= SafetyLevel::Cautious)
        .cloned()
        .collect();
    let list = export_deferred(&visible, Format::OpenAiChat, &DeferPlan::new()).unwrap();
    assert!(!list.offers("wipe_disk"));
    let message = json!({"tool_calls": [{"id": "1", "type": "function",
        "function": {"name": "wipe_disk", "arguments": "{}"}}]});
    assert!(matches!(
        &parse_chat(&message, &list).unwrap()[0],
        Step::Refused { .. }
    ));
}

#[test]
fn huge_and_malformed_payloads_are_errors_not_panics() {
    let list = export_deferred(
        &[plain("ping")],
        Format::Anthropic,
        &DeferPlan::new().search(SearchTool::Ours),
    )
    .unwrap();
    // A megabyte name: refused, and the error does not echo it.
    let long = "a".repeat(1 << 20);
    let message = json!({"content": [{"type": "tool_use", "id": "1", "name": long, "input": {}}]});
    let Step::Refused { error, .. } = &parse_anthropic(&message, &list).unwrap()[0] else {
        panic!("not refused")
    };
    assert!(error.to_string().len() < 400, "{}", error.to_string().len());
    // A query of a megabyte: refused, not searched.
    let message = json!({"content": [{"type": "tool_use", "id": "2", "name": "search_tools", "input": {"query": long}}]});
    assert!(matches!(
        &parse_anthropic(&message, &list).unwrap()[0],
        Step::Refused {
            error: DiscoveryError::QueryTooLong { .. },
            ..
        }
    ));
    // A limit of u64::MAX or 0 is clamped.
    let message = json!({"content": [{"type": "tool_use", "id": "3", "name": "search_tools", "input": {"query": "x", "limit": u64::MAX}}]});
    assert!(
        matches!(&parse_anthropic(&message, &list).unwrap()[0], Step::Search(s) if s.limit == 10)
    );
    // 100,000 blocks: every one read, none run.
    let blocks: Vec<Value> = (0..100_000)
        .map(|i| json!({"type": "tool_use", "id": format!("t{i}"), "name": "rm", "input": {}}))
        .collect();
    let steps = parse_anthropic(&json!({"content": blocks}), &list).unwrap();
    assert_eq!(steps.len(), 100_000);
    assert!(steps.iter().all(|s| matches!(s, Step::Refused { .. })));
    // Malformed structure: a typed error naming where.
    for bad in [
        json!({"content": 7}),
        json!({"content": [1]}),
        json!({"content": [{"type": "tool_search_tool_result", "tool_use_id": "x", "content": "??"}]}),
    ] {
        assert!(
            matches!(
                parse_anthropic(&bad, &list),
                Err(DiscoveryError::Malformed(_))
            ),
            "{bad}"
        );
    }
    let responses =
        export_deferred(&[plain("ping")], Format::OpenAiResponses, &DeferPlan::new()).unwrap();
    for bad in [json!({"output": {}}), json!([1]), json!("x")] {
        assert!(
            matches!(
                parse_responses(&bad, &responses),
                Err(DiscoveryError::Malformed(_))
            ),
            "{bad}"
        );
    }
    // Junk of every other kind is skipped, not trusted.
    let junk = json!([
        {"type": "tool_search_output", "tools": "not a list"},
        {"type": "tool_search_output", "tools": [{"type": "namespace", "tools": 5}, 3, null]},
        {"type": "tool_search_call", "execution": "client", "arguments": "{not json"}
    ]);
    let steps = parse_responses(&junk, &responses).unwrap();
    assert_eq!(steps.len(), 3);
}

#[test]
fn the_providers_limits_are_kept() {
    // Tool names are held to 64 when built; a category is not, and names a namespace.
    let long_category = Tool::builder("ping")
        .description("Ping.")
        .categories(["x".repeat(65)])
        .handler(|_| async { "pong" })
        .build()
        .unwrap();
    let by_category = DeferPlan::new().group_by(Grouping::Categories);
    assert!(matches!(
        export_deferred(&[long_category], Format::OpenAiResponses, &by_category),
        Err(DiscoveryError::NameTooLong {
            len: 65,
            max: 64,
            ..
        })
    ));
    assert!(matches!(
        export_deferred(
            &[plain("search_tools")],
            Format::Anthropic,
            &DeferPlan::new().search(SearchTool::Ours)
        ),
        Err(DiscoveryError::NameClash { .. })
    ));
    // A namespace named like a loaded function would be two entries of one name.
    let plan = DeferPlan::new()
        .core_names(["github"])
        .group_by(Grouping::Prefixes(vec!["github".into()]));
    assert!(matches!(
        export_deferred(
            &[plain("github"), plain("github_issue")],
            Format::OpenAiResponses,
            &plan
        ),
        Err(DiscoveryError::NameClash { .. })
    ));
    let many: Vec<Tool> = (0..=MAX_ANTHROPIC_TOOLS)
        .map(|i| plain(&format!("tool_{i}")))
        .collect();
    assert!(matches!(
        export_deferred(&many, Format::Anthropic, &DeferPlan::new()),
        Err(DiscoveryError::TooManyTools { count: 10_001, .. })
    ));
    assert!(matches!(
        export_deferred(&[plain("ping")], Format::Mcp, &DeferPlan::new()),
        Err(DiscoveryError::Unsupported { .. })
    ));
}

#[test]
fn the_export_is_deterministic() {
    let tools: Vec<Tool> = (0..50)
        .map(|i| plain(&format!("svc{}_tool_{i}", i % 5)))
        .collect();
    let plan = DeferPlan::new().group_by(Grouping::Prefixes(
        (0..5).map(|i| format!("svc{i}")).collect(),
    ));
    let a = export_deferred(&tools, Format::OpenAiResponses, &plan).unwrap();
    let b = export_deferred(&tools, Format::OpenAiResponses, &plan).unwrap();
    assert_eq!(
        serde_json::to_string(a.tools()).unwrap(),
        serde_json::to_string(b.tools()).unwrap()
    );
    assert_eq!(a.deferred_count(), 50);
    assert_eq!(a.tools().len(), 6, "the search tool and five namespaces");
}

#[test]
fn the_plain_responses_reader_never_drops_a_namespace() {
    // Dropping it would run our `delete_repo` for a call of the mounted `github` one.
    let output = json!([{"type": "function_call", "call_id": "c", "namespace": "github",
        "name": "delete_repo", "arguments": "{}"}]);
    let calls = toolwright_formats::providers::openai::parse_responses_tool_calls(&output).unwrap();
    assert_eq!(calls[0].name, "github.delete_repo");
    let same_name = Tool::builder(calls[0].name.clone())
        .handler(|_| async { "ok" })
        .build();
    assert!(same_name.is_err(), "no tool can be named so");
}
