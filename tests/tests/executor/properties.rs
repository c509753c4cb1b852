//! Whatever a model sends, the executor answers each call exactly once, well-formed.

use proptest::prelude::*;
use serde_json::{Map, Value};
use toolwright::ToolCall;

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
        let results = runtime.block_on(executor.execute_batch(calls, Default::default()));
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
    use toolwright::model::BoxFuture;
    use toolwright::runtime::executor::{CallVerdict, GuardedCall, Guardrail, Outcome};
    use toolwright::runtime::{ApprovalDecision, ApprovalRequest, CallOptions, ToolFilter};
    use toolwright::{Executor, SafetyLevel, ToolCall, tool};

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
        _ctx: &toolwright::ToolContext,
        _case: &u64,
        n: &i64,
    ) -> toolwright::model::ApprovalNeed {
        if *n < 0 {
            toolwright::model::ApprovalNeed::Required
        } else {
            toolwright::model::ApprovalNeed::NotRequired
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
                let report = runtime.block_on(executor.execute_with(
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

/// Partial approvals: whatever the texts and whichever hunks the approver takes, the executor
/// runs the edit with exactly those hunks, each whole or not at all, and the text written is
/// the previewed one with just them applied: always a subset of the previewed change.
mod partial_approvals {
    use std::sync::{Arc, Mutex};

    use proptest::prelude::*;
    use serde_json::json;
    use toolwright::model::Preview;
    use toolwright::model::file_change::{FileChange, Hunk, LineKind};
    use toolwright::runtime::{ApprovalDecision, ApprovalRequest};
    use toolwright::{Executor, SafetyLevel, Tool, ToolCall, ToolError, ToolRegistry};

    /// The document the tool edits.
    struct Doc(Mutex<String>);

    /// An old text and a new one: sometimes unrelated, mostly the old one with a few edits
    /// far enough apart to make several hunks.
    fn texts() -> impl Strategy<Value = (String, String)> {
        let text =
            |ids: Vec<u16>| -> String { ids.into_iter().map(|i| format!("l{i}\n")).collect() };
        let unrelated = (
            prop::collection::vec(0u16..5, 0..30),
            prop::collection::vec(0u16..5, 0..30),
        )
            .prop_map(move |(a, b)| (text(a), text(b)));
        let edited = (
            prop::collection::vec(0u16..40, 0..80),
            prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, 40u16..60), 0..8),
        )
            .prop_map(move |(old, edits)| {
                let mut new = old.clone();
                for (at, op, line) in edits {
                    let i = if new.is_empty() {
                        0
                    } else {
                        at.index(new.len())
                    };
                    match op {
                        0 if !new.is_empty() => new[i] = line,
                        1 if !new.is_empty() => {
                            new.remove(i);
                        }
                        _ => new.insert(i, line),
                    }
                }
                (text(old), text(new))
            });
        prop_oneof![1 => unrelated, 3 => edited]
    }

    /// The oracle: the old text with the hunks in `accepted` applied, from the hunks' public
    /// data only (start, line counts, lines), not from the runtime's own application.
    fn oracle(old: &str, hunks: &[Hunk], accepted: &[usize]) -> String {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut at = 0;
        for hunk in hunks {
            let start = if hunk.old_lines == 0 {
                hunk.old_start
            } else {
                hunk.old_start - 1
            };
            for line in &old_lines[at..start] {
                out.push_str(line);
            }
            let take = accepted.contains(&hunk.index);
            for line in &hunk.lines {
                let keep = match line.kind {
                    LineKind::Context => true,
                    LineKind::Added => take,
                    LineKind::Removed => !take,
                };
                if keep {
                    out.push_str(&line.text);
                    out.push('\n');
                }
            }
            at = start + hunk.old_lines;
        }
        for line in &old_lines[at..] {
            out.push_str(line);
        }
        out
    }

    fn executor(doc: Arc<Doc>, picks: Vec<bool>, seen: Arc<Mutex<Option<FileChange>>>) -> Executor {
        let tool = Tool::builder("set_doc")
            .description("Replace the document.")
            .safety(SafetyLevel::Dangerous)
            .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
            .needs_state::<Doc>()
            .preview(|ctx, args| {
                let doc = ctx.require_state::<Doc>()?;
                let old = doc.0.lock().unwrap().clone();
                let new = args["text"].as_str().unwrap_or_default();
                Ok::<_, ToolError>(Preview::hunks(FileChange::between("doc", &old, new)))
            })
            .sync_handler(|ctx, args| -> Result<String, ToolError> {
                let doc = ctx.require_state::<Doc>()?;
                let mut text = doc.0.lock().unwrap();
                let new = match ctx.approved_change() {
                    Some(approved) => approved.apply(&text)?,
                    None => args["text"].as_str().unwrap_or_default().to_owned(),
                };
                *text = new;
                Ok("done".to_owned())
            })
            .build()
            .unwrap();
        let registry = ToolRegistry::new();
        registry.register(tool).unwrap();
        Executor::builder(Arc::new(registry))
            .shared_state(doc)
            .approval(move |request: ApprovalRequest| {
                let picks = picks.clone();
                let seen = Arc::clone(&seen);
                async move {
                    let change = request.change.unwrap();
                    let hunks = change
                        .hunks
                        .iter()
                        .filter(|hunk| picks.get(hunk.index).copied().unwrap_or(false))
                        .map(|hunk| hunk.index)
                        .collect();
                    *seen.lock().unwrap() = Some(change);
                    ApprovalDecision::ApprovedHunks { hunks }
                }
            })
            .build()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn the_written_text_is_the_previewed_one_with_just_the_accepted_hunks(
            (old, new) in texts(),
            picks in prop::collection::vec(any::<bool>(), 0..12),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let doc = Arc::new(Doc(Mutex::new(old.clone())));
            let seen = Arc::new(Mutex::new(None));
            let executor = executor(Arc::clone(&doc), picks.clone(), Arc::clone(&seen));
            let result = runtime.block_on(executor.execute(ToolCall::new("1", "set_doc", json!({"text": new}))));
            let written = doc.0.lock().unwrap().clone();
            let change = seen.lock().unwrap().clone().unwrap();

            // The previewed change, applied in full, is the new text; the hunks are numbered.
            prop_assert_eq!(oracle(&old, &change.hunks, &(0..change.hunks.len()).collect::<Vec<_>>()), new.clone());
            for (i, hunk) in change.hunks.iter().enumerate() {
                prop_assert_eq!(hunk.index, i);
            }
            let accepted: Vec<usize> = (0..change.hunks.len())
                .filter(|i| picks.get(*i).copied().unwrap_or(false))
                .collect();
            if accepted.is_empty() {
                // Nothing accepted: denied, nothing written.
                prop_assert!(!result.success, "{:?}", result);
                prop_assert_eq!(written, old);
            } else {
                prop_assert!(result.success, "{:?}", result);
                prop_assert_eq!(&written, &oracle(&old, &change.hunks, &accepted));
                let selection = result.metadata.hunks.unwrap();
                prop_assert_eq!(&selection.applied, &accepted);
                prop_assert_eq!(selection.applied.len() + selection.rejected.len(), change.hunks.len());
                // And the change from the old text to what was written is made only of lines
                // the accepted hunks remove and add.
                let made = FileChange::between("doc", &old, &written);
                let allowed = |kind: LineKind| -> Vec<String> {
                    accepted.iter().flat_map(|i| change.hunks[*i].lines.iter())
                        .filter(|l| l.kind == kind).map(|l| l.text.clone()).collect()
                };
                let (removable, addable) = (allowed(LineKind::Removed), allowed(LineKind::Added));
                let made_lines = |kind: LineKind| -> Vec<String> {
                    made.hunks.iter().flat_map(|h| h.lines.iter())
                        .filter(|l| l.kind == kind).map(|l| l.text.clone()).collect()
                };
                prop_assert!(made_lines(LineKind::Removed).len() <= removable.len());
                prop_assert!(made_lines(LineKind::Added).len() <= addable.len());
            }
        }
    }
}
