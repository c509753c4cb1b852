//! Whatever a model sends, the executor answers each call exactly once, well-formed.

use proptest::prelude::*;
use serde_json::{Map, Value};
use tool_runtime::ToolCall;

use crate::contract::assert_contract_result;
use crate::tools::{approve_all, executor};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Value> {
    let known_keys = prop_oneof![
        Just("key"),
        Just("n"),
        Just("path"),
        Just("ms"),
        Just("value"),
        Just("numbers"),
        Just("flag"),
        Just("name"),
        Just("token"),
        Just("count_to")
    ];
    prop_oneof![
        // Mostly objects with plausible keys and arbitrary values.
        3 => prop::collection::btree_map(known_keys.prop_map(str::to_owned), json_value(), 0..5)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        1 => json_value(),
    ]
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "read_number",
            "change_setting",
            "wipe_path",
            "fail_politely",
            "explode",
            "explode_async",
            "greet",
            "take_list",
            "sleep_async",
        ])
        .prop_map(str::to_owned),
        ".{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn one_well_formed_result_per_call(
        calls in prop::collection::vec((tool_name(), arguments(), ".{0,6}"), 0..6),
        lenient in any::<bool>(),
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let executor = executor()
            .approval(approve_all())
            .lenient_arguments(lenient)
            .timeout(std::time::Duration::from_millis(200))
            .build();
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|(name, mut arguments, id)| {
                // Keep the sleep tool short so the property runs fast.
                if let Some(ms) = arguments.get_mut("ms") { *ms = Value::from(1); }
                ToolCall::new(id, name, arguments)
            })
            .collect();
        let ids: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
        let results = runtime.block_on(executor.execute_tool_calls(calls));
        prop_assert_eq!(results.len(), ids.len());
        for (result, id) in results.iter().zip(&ids) {
            prop_assert_eq!(&result.id, id);
            assert_contract_result(result);
        }
    }
}
