//! Safety levels are honest: a change here is visible in review.

use toolwright_core::SafetyLevel;

#[test]
fn every_std_tool_with_its_safety_level_and_category() {
    let registry = toolwright_std::registry().unwrap();
    let listed: Vec<(String, SafetyLevel, Vec<String>)> = toolwright_std::TOOL_NAMES
        .iter()
        .map(|name| {
            let tool = registry.get(name).unwrap();
            (
                tool.name().to_owned(),
                tool.safety(),
                tool.categories().iter().map(|c| c.to_string()).collect(),
            )
        })
        .collect();
    use SafetyLevel::*;
    let expected: Vec<(&str, SafetyLevel, &str)> = vec![
        ("read_file", Safe, "filesystem"),
        ("list_directory", Safe, "filesystem"),
        ("file_info", Safe, "filesystem"),
        ("search_files", Safe, "filesystem"),
        ("find_files", Safe, "filesystem"),
        ("write_file", Dangerous, "filesystem"),
        ("edit_file", Dangerous, "filesystem"),
        ("create_directory", Cautious, "filesystem"),
        ("delete_path", Dangerous, "filesystem"),
        ("run_command", Dangerous, "execution"),
        ("run_code", Dangerous, "execution"),
        ("calculate", Safe, "data"),
        ("json_query", Safe, "data"),
        ("current_time", Safe, "data"),
        ("list_tools", Safe, "introspection"),
        ("describe_tool", Safe, "introspection"),
        ("search_tools", Safe, "introspection"),
    ];
    let expected: Vec<(String, SafetyLevel, Vec<String>)> = expected
        .into_iter()
        .map(|(n, s, c)| (n.to_owned(), s, vec![c.to_owned()]))
        .collect();
    assert_eq!(listed, expected);
    // Nothing else is in the crate.
    let all = registry.names();
    assert_eq!(all.len(), toolwright_std::TOOL_NAMES.len(), "{all:?}");
}

#[test]
fn every_tool_and_parameter_is_described() {
    let registry = toolwright_std::registry().unwrap();
    for name in toolwright_std::TOOL_NAMES {
        let tool = registry.get(name).unwrap();
        assert!(
            tool.description().len() > 40,
            "{name}: {}",
            tool.description()
        );
        for param in tool.params() {
            assert!(
                param.description().is_some_and(|d| d.len() > 5),
                "{name}.{}",
                param.name()
            );
        }
    }
}
