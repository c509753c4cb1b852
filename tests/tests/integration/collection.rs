//! Link-time collection across crates.

use toolwright::runtime::ToolFilter;
use toolwright::{SafetyLevel, ToolRegistry, register_all_tools};

const LOCAL: [&str; 6] = [
    "always_fails",
    "do_nothing",
    "echo",
    "search_records",
    "sort_numbers",
    "summarize_numbers",
];
const WEATHER: [&str; 2] = ["convert_temperature", "get_forecast"];
const ADMIN: [&str; 2] = ["purge_cache", "restart_service"];
const RENAMED: [&str; 1] = ["reverse_text"];

#[test]
fn collects_tools_from_every_linked_crate() {
    // Calling a fixture function directly is the ordinary way a crate gets linked.
    assert_eq!(
        weather_tools::convert_temperature(100.0, weather_tools::Unit::Fahrenheit),
        212.0
    );
    assert_eq!(renamed_core_tools::reverse_text("abc".into()), "cba");

    let registry = register_all_tools().unwrap();
    let mut expected: Vec<&str> = LOCAL
        .iter()
        .chain(&WEATHER)
        .chain(&ADMIN)
        .chain(&RENAMED)
        .copied()
        .collect();
    expected.sort_unstable();
    assert_eq!(registry.names(), expected);
    assert_eq!(registry.len(), expected.len());
}

#[test]
fn sources_name_the_defining_crate_file_and_line() {
    let registry = register_all_tools().unwrap();
    let forecast = registry.get("get_forecast").unwrap();
    let source = forecast.source();
    assert_eq!(source.crate_name, "weather-tools");
    assert_eq!(source.module_path, "weather_tools");
    assert!(
        source.file.ends_with("weather-tools/src/lib.rs"),
        "{}",
        source.file
    );
    // The line of the `fn` (the attribute is on the line before).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/weather-tools/src/lib.rs"
    ))
    .unwrap();
    let fn_line = text
        .lines()
        .position(|line| line.contains("pub async fn get_forecast"))
        .unwrap()
        + 1;
    assert_eq!(source.line as usize, fn_line);

    let purge = registry.get("purge_cache").unwrap();
    assert_eq!(purge.source().crate_name, "admin-tools");
    let local = registry.get("echo").unwrap();
    assert_eq!(local.source().crate_name, "integration-tests");
}

#[test]
fn register_all_tools_is_repeatable_and_caches_schemas() {
    let first = register_all_tools().unwrap();
    let second = register_all_tools().unwrap();
    assert_eq!(first.names(), second.names());
    for name in first.names() {
        let a = first.get(&name).unwrap();
        let b = second.get(&name).unwrap();
        assert_eq!(a.spec(), b.spec());
        // Built once per process: both registries hold the very same schema.
        assert!(std::ptr::eq(a.input_schema(), b.input_schema()), "{name}");
    }
}

#[test]
fn register_all_adds_to_an_existing_registry() {
    let mut registry = ToolRegistry::new();
    let count = registry.register_all().unwrap();
    assert_eq!(count, register_all_tools().unwrap().len());
    assert_eq!(registry.register_all().unwrap(), count);
}

#[test]
fn attribute_options_reach_the_tool() {
    let registry = register_all_tools().unwrap();
    let search = registry.get("search_records").unwrap();
    assert_eq!(
        search.description(),
        "Search the records store. Use for questions about stored records."
    );
    assert_eq!(search.safety(), SafetyLevel::Safe);
    assert_eq!(search.categories(), ["search"]);
    assert_eq!(search.tags(), ["records", "query"]);
    assert_eq!(search.version(), Some("2.0.0"));
    assert_eq!(search.priority(), toolwright::model::priority::OFFICIAL);
    assert_eq!(search.required(), ["query"]);
    assert!(search.is_async());
    let key = search
        .params()
        .iter()
        .find(|p| p.name() == "api_key")
        .unwrap();
    assert!(key.is_secret());
    assert!(!key.is_required());

    let purge = registry.get("purge_cache").unwrap();
    assert_eq!(purge.safety(), SafetyLevel::Dangerous);
    assert!(!purge.is_async());
    assert_eq!(
        purge.description(),
        "Empty the application's cache. Everything cached is lost."
    );
    let echo = registry.get("echo").unwrap();
    assert_eq!(echo.priority(), toolwright::model::priority::COMMUNITY);
    assert_eq!(echo.version(), None);
}

#[test]
fn list_filters_by_safety_and_categories_with_and_between_them() {
    let registry = register_all_tools().unwrap();
    let names = |filter: ToolFilter| -> Vec<String> {
        registry
            .list(&filter)
            .iter()
            .map(|t| t.name().to_owned())
            .collect()
    };

    // Safety ceiling alone.
    let safe = names(ToolFilter::new().max_safety(SafetyLevel::Safe));
    assert!(safe.contains(&"echo".to_owned()));
    assert!(!safe.contains(&"always_fails".to_owned()));
    assert!(!safe.contains(&"purge_cache".to_owned()));
    let cautious = names(ToolFilter::new().max_safety(SafetyLevel::Cautious));
    assert!(cautious.contains(&"always_fails".to_owned()));
    assert!(cautious.contains(&"restart_service".to_owned()));
    assert!(!cautious.contains(&"purge_cache".to_owned()));
    assert_eq!(
        names(ToolFilter::new().max_safety(SafetyLevel::Dangerous)).len(),
        registry.len()
    );

    // Categories alone: any of.
    let mut weather_or_admin = names(ToolFilter::new().categories(["weather", "admin"]));
    weather_or_admin.sort();
    assert_eq!(
        weather_or_admin,
        [
            "convert_temperature",
            "get_forecast",
            "purge_cache",
            "restart_service"
        ]
    );

    // Both: AND.
    assert_eq!(
        names(
            ToolFilter::new()
                .max_safety(SafetyLevel::Cautious)
                .categories(["admin"])
        ),
        ["restart_service"]
    );
    assert!(
        names(
            ToolFilter::new()
                .max_safety(SafetyLevel::Safe)
                .categories(["admin"])
        )
        .is_empty()
    );
    assert!(names(ToolFilter::new().categories(["no_such_category"])).is_empty());
}

#[test]
fn list_orders_by_priority_then_name() {
    let registry = register_all_tools().unwrap();
    let listed: Vec<(i32, String)> = registry
        .list(&ToolFilter::new())
        .iter()
        .map(|t| (t.priority(), t.name().to_owned()))
        .collect();
    let mut sorted = listed.clone();
    sorted.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    assert_eq!(listed, sorted);
    // priority 50 tools first.
    assert_eq!(listed[0].1, "convert_temperature");
    assert_eq!(listed[1].1, "search_records");
}
