//! What a client sees of a mounted tool's input schema accepts exactly what the upstream's
//! accepts, and our argument check at call time agrees: the upstream's schema is served as
//! it is (bounded and checked when listed), never rebuilt. The two losses the gateway had
//! (a closed object without properties served open; a `required` key outside `properties`
//! refused at mount), then a property test over generated schemas and instances, each
//! validated by an independent engine (the `jsonschema` crate). The client is a real MCP
//! client listing the gateway's tools in process; no sleeps, every wait has a deadline.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use toolwright_core::{SafetyLevel, ToolCall};
use toolwright_gateway::upstream::MountOptions;
use toolwright_mcp::McpServer;
use toolwright_runtime::Executor;

#[path = "support/in_process.rs"]
mod in_process;
use in_process::{registry_with, serve, upstream_of, within};

/// An upstream with one tool `t` of a given input schema, recording the arguments of each
/// call it runs.
#[derive(Clone)]
struct OneTool {
    schema: Map<String, Value>,
    calls: Arc<Mutex<Vec<Map<String, Value>>>>,
}

impl ServerHandler for OneTool {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![McpTool::new(
            "t",
            "The tool under test.",
            self.schema.clone(),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls
            .lock()
            .unwrap()
            .push(request.arguments.unwrap_or_default());
        Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into())
    }
}

/// The upstream behind a gateway, and an MCP client of the gateway.
struct Bench {
    calls: Arc<Mutex<Vec<Map<String, Value>>>>,
    executor: Executor,
    /// The mounted tool's input schema as the gateway's client read it in `tools/list`.
    served: Value,
    /// Why the mount skipped the tool, if it did.
    skipped: Option<String>,
    _client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
}

async fn bench(schema: &Value) -> Bench {
    let Value::Object(schema) = schema.clone() else {
        panic!("the upstream schema is an object");
    };
    let upstream_server = OneTool {
        schema,
        calls: Arc::default(),
    };
    let calls = upstream_server.calls.clone();
    let upstream = upstream_of("one-tool", upstream_server).await;
    let (registry, mount) = registry_with(
        &upstream,
        MountOptions::new("up").default_safety(SafetyLevel::Safe),
    )
    .await;
    let skipped = mount
        .report()
        .skipped
        .first()
        .map(|skipped| format!("{:?}", skipped.reason));
    let executor = Executor::builder(registry.clone()).build();
    // The gateway as its clients see it: our MCP server over the registry, a client of it.
    let client = within(
        "the gateway handshake",
        ().serve(serve(McpServer::new(executor.clone()))),
    )
    .await
    .unwrap();
    let listed = within("tools/list", client.list_all_tools()).await.unwrap();
    let served = listed
        .iter()
        .find(|tool| tool.name == "up_t")
        .map_or(Value::Null, |tool| {
            Value::Object((*tool.input_schema).clone())
        });
    Bench {
        calls,
        executor,
        served,
        skipped,
        _client: client,
    }
}

impl Bench {
    /// Calls the mounted tool with `arguments`: whether it ran upstream, and with what.
    async fn call(&self, arguments: &Map<String, Value>) -> Option<Map<String, Value>> {
        let before = self.calls.lock().unwrap().len();
        let result = within(
            "a call",
            self.executor
                .execute(ToolCall::new("1", "up_t", Value::Object(arguments.clone()))),
        )
        .await;
        let calls = self.calls.lock().unwrap();
        if result.success {
            assert_eq!(calls.len(), before + 1, "one success is one upstream call");
            calls.last().cloned()
        } else {
            assert_eq!(
                calls.len(),
                before,
                "a refused call reached the upstream: {result:?}"
            );
            None
        }
    }
}

fn accepts(schema: &Value, instance: &Value) -> bool {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|error| panic!("{schema} is not a schema: {error}"))
        .is_valid(instance)
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("{other} is not an object"),
    }
}

#[tokio::test]
async fn a_closed_object_without_properties_is_served_closed() {
    let upstream = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let bench = bench(&upstream).await;
    // It used to be served as `{"type":"object","properties":{}}`: open to any key.
    assert_eq!(bench.served, upstream);
    assert!(!accepts(&bench.served, &json!({"x": 1})));
    assert_eq!(bench.call(&object(json!({"x": 1}))).await, None);
    assert_eq!(bench.call(&Map::new()).await, Some(Map::new()));
}

#[tokio::test]
async fn a_required_key_outside_properties_is_mounted_as_it_means() {
    // Valid JSON Schema: `id` is required and, not being a property, validated by
    // `additionalProperties`. It used to be refused at mount as a typo.
    let upstream = json!({
        "type": "object",
        "properties": {"note": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": {"type": "string"}
    });
    let bench = bench(&upstream).await;
    assert_eq!(bench.skipped, None);
    assert_eq!(bench.served, upstream);
    assert_eq!(bench.call(&Map::new()).await, None, "`id` is required");
    assert_eq!(
        bench.call(&object(json!({"id": 5}))).await,
        None,
        "`id` is a string"
    );
    let sent = object(json!({"id": "abc", "note": "n"}));
    assert_eq!(bench.call(&sent).await, Some(sent.clone()));
}

const KEYS: [&str; 4] = ["a", "b", "c", "d"];

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(KEYS.to_vec()).prop_map(str::to_owned)
}

/// A schema of one value: types (one or several), enums, bounds, booleans, arrays.
fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "null", "array", "object"
        ])
        .prop_map(|ty| json!({"type": ty})),
        prop::sample::subsequence(vec!["string", "integer", "null", "boolean"], 1..3)
            .prop_map(|types| json!({"type": types})),
        prop::sample::subsequence(
            vec![json!(1), json!("x"), json!(true), json!(null), json!(2.5)],
            1..4
        )
        .prop_map(|values| json!({"enum": values})),
        (0u64..3).prop_map(|n| json!({"type": "string", "minLength": n})),
        (-2i64..3).prop_map(|n| json!({"type": "integer", "minimum": n})),
        Just(json!(true)),
        Just(json!(false)),
    ]
}

/// An object schema over `inner`: properties, `required` (names inside and outside
/// `properties`), `additionalProperties` absent, a boolean or a schema.
fn object_schema(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    let additional = prop_oneof![
        Just(None),
        Just(Some(json!(false))),
        Just(Some(json!(true))),
        inner.clone().prop_map(Some),
    ];
    (
        prop::collection::btree_map(key(), inner, 0..4),
        prop::sample::subsequence(KEYS.to_vec(), 0..3),
        additional,
    )
        .prop_map(|(properties, required, additional)| {
            let mut schema = Map::new();
            schema.insert("type".into(), json!("object"));
            schema.insert(
                "properties".into(),
                Value::Object(properties.into_iter().collect()),
            );
            if !required.is_empty() {
                schema.insert("required".into(), json!(required));
            }
            if let Some(additional) = additional {
                schema.insert("additionalProperties".into(), additional);
            }
            Value::Object(schema)
        })
}

/// A value schema, objects and arrays nested.
fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            object_schema(inner.clone().boxed()),
            inner.prop_map(|items| json!({"type": "array", "items": items})),
        ]
    })
}

/// A value: scalars that the generated schemas tell apart, arrays and objects of them.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(1)),
        Just(json!(-3)),
        Just(json!(2.5)),
        Just(json!("x")),
        Just(json!("")),
    ]
    .prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(key(), value(), 0..4).prop_map(|map| map.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_served_schema_and_the_call_accept_what_the_upstream_accepts(
        upstream in object_schema(schema().boxed()),
        instances in prop::collection::vec(arguments(), 16),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let bench = bench(&upstream).await;
            assert_eq!(bench.skipped, None, "{upstream} was not mounted");
            for instance in &instances {
                let instance_value = Value::Object(instance.clone());
                let upstream_accepts = accepts(&upstream, &instance_value);
                assert_eq!(
                    accepts(&bench.served, &instance_value),
                    upstream_accepts,
                    "served {} and upstream {upstream} differ on {instance_value}",
                    bench.served
                );
                let ran = bench.call(instance).await;
                if upstream_accepts {
                    assert!(ran.is_some(), "{instance_value} valid for {upstream} was refused");
                }
                // What we forward (an optional parameter's `null` dropped, as for
                // `#[tool]`s) is what the upstream accepts.
                if let Some(sent) = ran {
                    assert!(
                        accepts(&upstream, &Value::Object(sent.clone())),
                        "{instance_value} was forwarded as {sent:?}, which {upstream} refuses"
                    );
                }
            }
        });
    }
}
