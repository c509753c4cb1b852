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

// ---- every layer of the call policy: a tool runs only when each allowed it

mod layered {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{LazyLock, Mutex};

    use proptest::prelude::*;
    use serde_json::json;
    use tool_runtime::executor::{CallVerdict, GuardedCall, Guardrail, Outcome};
    use tool_runtime::{
        ApprovalDecision, ApprovalRequest, BoxFuture, CallOptions, Executor, SafetyLevel, ToolCall,
        ToolFilter, tool,
    };

    use crate::contract::assert_contract_result;
    use crate::tools::registry;

    /// Runs per (case, tool), recorded by the tools below.
    static RAN: LazyLock<Mutex<HashMap<String, Vec<i64>>>> = LazyLock::new(Mutex::default);
    static CASE: AtomicU64 = AtomicU64::new(0);

    fn record(case: u64, tool: &str, n: i64) -> i64 {
        RAN.lock()
            .unwrap()
            .entry(format!("{case}/{tool}"))
            .or_default()
            .push(n);
        n
    }

    /// Layered property: safe.
    #[tool]
    fn layer_safe(case: u64, n: i64) -> i64 {
        record(case, "layer_safe", n)
    }

    /// Layered property: cautious, asked about when `n` is negative (its approval rule).
    #[tool(safety = "cautious", approval = negative_needs_approval)]
    fn layer_cautious(case: u64, n: i64) -> i64 {
        record(case, "layer_cautious", n)
    }

    /// Layered property: dangerous.
    #[tool(safety = "dangerous")]
    fn layer_dangerous(case: u64, n: i64) -> i64 {
        record(case, "layer_dangerous", n)
    }

    fn negative_needs_approval(
        _ctx: &tool_runtime::ToolContext,
        _case: &u64,
        n: &i64,
    ) -> tool_runtime::Approval {
        if *n < 0 {
            tool_runtime::Approval::Required
        } else {
            tool_runtime::Approval::NotRequired
        }
    }

    const TOOLS: [(&str, SafetyLevel); 3] = [
        ("layer_safe", SafetyLevel::Safe),
        ("layer_cautious", SafetyLevel::Cautious),
        ("layer_dangerous", SafetyLevel::Dangerous),
    ];

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Guard {
        Allow,
        Deny,
        AddOne,
        Panic,
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Decision {
        Approve,
        Deny,
        Defer,
        Panic,
    }

    /// What the guardrail does per tool.
    struct Guards(HashMap<&'static str, Guard>);

    impl Guardrail for Guards {
        fn check_call(&self, call: GuardedCall) -> BoxFuture<CallVerdict> {
            let guard = self
                .0
                .get(call.tool.as_str())
                .copied()
                .unwrap_or(Guard::Allow);
            let mut arguments = call.arguments;
            Box::pin(async move {
                match guard {
                    Guard::Allow => CallVerdict::Allow,
                    Guard::Deny => CallVerdict::Deny {
                        reason: "guard".into(),
                    },
                    Guard::AddOne => {
                        arguments["n"] = json!(arguments["n"].as_i64().unwrap_or(0) + 1);
                        CallVerdict::Rewrite { arguments }
                    }
                    Guard::Panic => panic!("guardrail panics"),
                }
            })
        }
    }

    fn safety() -> impl Strategy<Value = SafetyLevel> {
        prop::sample::select(vec![
            SafetyLevel::Safe,
            SafetyLevel::Cautious,
            SafetyLevel::Dangerous,
        ])
    }

    fn guard() -> impl Strategy<Value = Guard> {
        prop::sample::select(vec![Guard::Allow, Guard::Deny, Guard::AddOne, Guard::Panic])
    }

    fn decision() -> impl Strategy<Value = Decision> {
        prop::sample::select(vec![
            Decision::Approve,
            Decision::Deny,
            Decision::Defer,
            Decision::Panic,
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn a_tool_runs_only_when_every_layer_allowed_it(
            executor_ceiling in safety(),
            caller_ceiling in prop::option::of(safety()),
            offered in prop::option::of(prop::sample::subsequence(vec![0usize, 1, 2], 0..=3)),
            guards in prop::collection::vec(guard(), 3),
            decision in decision(),
            limits in prop::collection::vec(prop::option::of(0u32..3), 3),
            enabled in prop::collection::vec(any::<bool>(), 3),
            calls in prop::collection::vec((0usize..4, -5i64..5), 0..8),
        ) {
            let case = CASE.fetch_add(1, Ordering::SeqCst);
            let registry = registry();
            for (i, (name, _)) in TOOLS.iter().enumerate() {
                registry.set_enabled(name, enabled[i]).unwrap();
            }
            let mut builder = Executor::builder(registry)
                .max_safety(executor_ceiling)
                .guardrail(Guards(TOOLS.iter().zip(&guards).map(|((n, _), g)| (*n, *g)).collect()))
                .approval(move |_: ApprovalRequest| async move {
                    match decision {
                        Decision::Approve => ApprovalDecision::Approved,
                        Decision::Deny => ApprovalDecision::Denied { reason: "no".into() },
                        Decision::Defer => ApprovalDecision::Defer,
                        Decision::Panic => panic!("approver panics"),
                    }
                });
            for (i, (name, _)) in TOOLS.iter().enumerate() {
                if let Some(limit) = limits[i] {
                    builder = builder.max_calls(*name, limit);
                }
            }
            let executor = builder.build();
            let mut options = CallOptions::new();
            if let Some(level) = caller_ceiling {
                options = options.max_safety(level);
            }
            if let Some(offered) = &offered {
                options = options.allowed_tools(ToolFilter::new().names(offered.iter().map(|i| TOOLS[*i].0)));
            }

            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let mut admitted = [0u32; 3];
            for (index, (which, n)) in calls.iter().enumerate() {
                // Index 3 names a tool that does not exist.
                let name = TOOLS.get(*which).map_or("layer_missing", |(name, _)| *name);
                let id = format!("call-{index}");
                let report = runtime.block_on(executor.execute_report(
                    ToolCall::new(id.clone(), name, json!({"case": case, "n": n})),
                    options.clone(),
                ));
                prop_assert_eq!(&report.result.id, &id);
                assert_contract_result(&report.result);

                // The model of the policy.
                let expected = TOOLS.get(*which).and_then(|(_, level)| {
                    let i = *which;
                    let offered_ok = offered.as_ref().is_none_or(|o| o.contains(&i));
                    let under = *level <= executor_ceiling && caller_ceiling.is_none_or(|c| *level <= c);
                    let guarded = matches!(guards[i], Guard::Allow | Guard::AddOne);
                    // The rule sees the arguments after the guardrail's rewrite.
                    let seen = if guards[i] == Guard::AddOne { n + 1 } else { *n };
                    let needs = *level == SafetyLevel::Dangerous || (i == 1 && seen < 0);
                    let approved = !needs || decision == Decision::Approve;
                    let room = limits[i].is_none_or(|limit| admitted[i] < limit);
                    (offered_ok && enabled[i] && under && guarded && approved && room).then(|| {
                        admitted[i] += 1;
                        if guards[i] == Guard::AddOne { n + 1 } else { *n }
                    })
                });
                let ran = RAN.lock().unwrap().get(&format!("{case}/{name}")).cloned().unwrap_or_default();
                let count = admitted.get(*which).copied().unwrap_or(0) as usize;
                prop_assert_eq!(ran.len(), count, "runs of {} after {:?}", name, report.result);
                match expected {
                    Some(value) => {
                        prop_assert!(report.result.success, "{:?}", report.result);
                        prop_assert_eq!(report.result.content.clone(), value.to_string());
                        prop_assert_eq!(ran.last().copied(), Some(value));
                    }
                    None => {
                        prop_assert!(!report.result.success, "{:?}", report.result);
                        let pending = report.outcome == Outcome::Pending;
                        prop_assert_eq!(pending, report.result.metadata.pending.is_some());
                    }
                }
            }
        }
    }
}
