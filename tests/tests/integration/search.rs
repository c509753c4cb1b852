//! Tool search: the right tool among a thousand.

use serde_json::json;
use toolwright::runtime::ToolFilter;
use toolwright::{SafetyLevel, Tool, ToolRegistry};

const VERBS: [&str; 10] = [
    "get", "list", "update", "create", "archive", "sync", "export", "import", "count", "validate",
];
const NOUNS: [&str; 25] = [
    "invoice",
    "customer",
    "order",
    "ticket",
    "shipment",
    "product",
    "coupon",
    "review",
    "lead",
    "campaign",
    "employee",
    "payroll",
    "asset",
    "license",
    "vendor",
    "contract",
    "budget",
    "meeting",
    "project",
    "sprint",
    "deployment",
    "alert",
    "dashboard",
    "report",
    "backup",
];
const SYSTEMS: [&str; 4] = ["crm", "erp", "hr", "ops"];

/// 1,000 plausible business tools plus a handful of distinctive ones to find.
fn big_registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    for (i, ((verb, noun), system)) in VERBS
        .iter()
        .flat_map(|v| NOUNS.iter().map(move |n| (*v, *n)))
        .flat_map(|pair| SYSTEMS.iter().map(move |s| (pair, *s)))
        .enumerate()
    {
        let name = format!("{system}_{verb}_{noun}");
        let tool = Tool::builder(name)
            .description(format!(
                "{verb} a {noun} record in the {system} system. Returns the {noun} as JSON."
            ))
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": format!("The {noun} id")},
                    "page": {"type": "integer", "description": "Result page"}
                }
            }))
            .categories([system])
            .tags([noun])
            .safety(if i % 3 == 0 {
                SafetyLevel::Cautious
            } else {
                SafetyLevel::Safe
            })
            .handler(|_| async { "ok" })
            .build()
            .unwrap();
        registry.register(tool).unwrap();
    }
    assert_eq!(registry.len(), 1000);
    let special = [
        (
            "read_file",
            "Read a UTF-8 text file from the workspace and return its contents.",
            &["filesystem"][..],
            SafetyLevel::Safe,
        ),
        (
            "send_email",
            "Send an email message to a recipient address with a subject and body.",
            &["communication"][..],
            SafetyLevel::Dangerous,
        ),
        (
            "get_weather",
            "Get the current weather forecast (temperature, rain, wind) for a city.",
            &["weather"][..],
            SafetyLevel::Safe,
        ),
        (
            "convert_currency",
            "Convert an amount of money between currencies (US dollars USD, euros EUR, yen JPY) using exchange rates.",
            &["finance"][..],
            SafetyLevel::Safe,
        ),
        (
            "delete_directory",
            "Delete a directory and everything in it, permanently.",
            &["filesystem"][..],
            SafetyLevel::Dangerous,
        ),
    ];
    for (name, description, categories, safety) in special {
        registry
            .register(
                Tool::builder(name)
                    .description(description)
                    .categories(categories.iter().copied())
                    .safety(safety)
                    .handler(|_| async { "ok" })
                    .build()
                    .unwrap(),
            )
            .unwrap();
    }
    registry
}

fn top(registry: &ToolRegistry, query: &str) -> String {
    registry
        .search(query, 5)
        .first()
        .map(|hit| hit.tool.name().to_owned())
        .unwrap_or_default()
}

#[test]
fn finds_the_right_tool_among_a_thousand() {
    let registry = big_registry();
    for (query, expected) in [
        ("what is in the file notes.txt", "read_file"),
        ("email my boss that I am late", "send_email"),
        ("will it rain in Paris tomorrow", "get_weather"),
        ("how many euros is 100 dollars", "convert_currency"),
        ("convert 100 USD to EUR", "convert_currency"),
        ("remove the build directory", "delete_directory"),
        ("export invoices from the erp", "erp_export_invoice"),
        ("archive an old support ticket in crm", "crm_archive_ticket"),
        ("count employees in hr", "hr_count_employee"),
    ] {
        assert_eq!(top(&registry, query), expected, "query: {query}");
    }
}

#[test]
fn results_are_scored_limited_and_deterministic() {
    let registry = big_registry();
    let hits = registry.search("invoice", 7);
    assert_eq!(hits.len(), 7);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(hits.iter().all(|hit| hit.tool.name().contains("invoice")));
    let again: Vec<String> = registry
        .search("invoice", 7)
        .iter()
        .map(|h| h.tool.name().to_owned())
        .collect();
    let first: Vec<String> = hits.iter().map(|h| h.tool.name().to_owned()).collect();
    assert_eq!(first, again);
    // A word nothing matches gets best guesses (score 0), never nothing; an empty query
    // asks for nothing.
    let guesses = registry.search("zyzzyva", 5);
    assert_eq!(guesses.len(), 5);
    assert!(guesses.iter().all(|hit| hit.score == 0.0));
    assert!(registry.search("", 5).is_empty());
}

#[test]
fn search_respects_the_safety_ceiling_and_enabled_flags() {
    let registry = big_registry();
    let safe = ToolFilter::new().max_safety(SafetyLevel::Safe);
    let hits = registry.search_filtered("send an email", 5, &safe);
    assert!(
        hits.iter()
            .all(|hit| hit.tool.safety() == SafetyLevel::Safe)
    );
    assert!(hits.iter().all(|hit| hit.tool.name() != "send_email"));

    registry.set_enabled("get_weather", false).unwrap();
    assert_ne!(top(&registry, "weather forecast for a city"), "get_weather");
    registry.set_enabled("get_weather", true).unwrap();
    assert_eq!(top(&registry, "weather forecast for a city"), "get_weather");
}

#[test]
fn the_index_follows_register_and_remove() {
    let registry = big_registry();
    assert_eq!(top(&registry, "send email"), "send_email");
    registry.remove("send_email");
    assert_ne!(top(&registry, "send email"), "send_email");
    registry
        .register(
            Tool::builder("send_email")
                .description("Send an email.")
                .version("2.0.0")
                .handler(|_| async { "ok" })
                .build()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(top(&registry, "send email"), "send_email");
}
