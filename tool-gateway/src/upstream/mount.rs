//! Mounting an upstream's tools into a registry: the plan of names, the runtime tools that
//! forward their calls, the report, and `refresh`.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::Tool as McpTool;
use serde_json::Value;
use toolwright_core::{SafetyLevel, Tool, ToolError};
use toolwright_runtime::{RegisterOptions, ToolRegistry};

use super::error::UpstreamError;
use super::fingerprint::Fingerprint;
use super::limits::Limiter;
use super::mountable::{Context, ForwardSubscription};
use super::names::mounted_name;
use super::options::MountOptions;
use super::report::{
    FingerprintChange, MountReport, MountedPrimitive, MountedTool, SkipReason, Skipped,
};
use super::session::Upstream;
use super::shelf::{Shelf, Subscriptions, update_sink};
use super::uris::upstream_uri;

/// The most bytes of an upstream's description kept in a mounted tool's.
const MAX_DESCRIPTION: usize = 4096;

/// [`MountUpstream::mount`](super::MountUpstream::mount). It keeps the mapping of names both
/// ways, and [`refresh`](Self::refresh) brings the registry up to the upstream's list.
pub struct Mount {
    registry: Arc<ToolRegistry>,
    upstream: Upstream,
    options: MountOptions,
    /// Its calls at once and per period, shared by every tool of the mount.
    limiter: Arc<Limiter>,
    /// The mounted tools by mounted name.
    tools: Mutex<BTreeMap<String, MountedTool>>,
    /// The last fingerprint seen under each mounted name, kept after a tool is gone: one
    /// that comes back (under any spelling) with another definition is a change.
    seen: Mutex<HashMap<String, Fingerprint>>,
    /// The upstream's prompts, resources, templates and skills mounted.
    shelf: Mutex<Shelf>,
    /// The upstream's resources our clients subscribed to.
    subscriptions: Arc<Subscriptions>,
    /// What mounted resources' subscription hooks call: [`forward_subscription`] here.
    forward_subscription: ForwardSubscription,
    /// Held across a refresh, so two refreshes do not interleave their plans.
    refreshing: tokio::sync::Mutex<()>,
    report: MountReport,
}

impl fmt::Debug for Mount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mount")
            .field("upstream", &self.upstream)
            .field("namespace", &self.options.namespace)
            .finish_non_exhaustive()
    }
}

/// Mounting into a registry: `registry.mount(&upstream, options).await`.
///
/// Implemented for `Arc<ToolRegistry>` (the registry an `Executor` runs), in this crate
/// because the registry's crate does not know MCP.
pub trait MountUpstream {
    /// Lists `upstream`'s tools and registers each as a runtime tool under
    /// `options`' namespace; see the [module](super) for the rules.
    ///
    /// # Errors
    ///
    /// [`UpstreamError::Namespace`] for a namespace that is not one, or the upstream's
    /// error when its list cannot be read. A tool that cannot be mounted is not an error:
    /// it is in the [`MountReport`].
    fn mount(
        &self,
        upstream: &Upstream,
        options: MountOptions,
    ) -> impl Future<Output = Result<Mount, UpstreamError>> + Send;
}

impl MountUpstream for Arc<ToolRegistry> {
    async fn mount(
        &self,
        upstream: &Upstream,
        options: MountOptions,
    ) -> Result<Mount, UpstreamError> {
        options.check()?;
        let subscriptions = Arc::new(Subscriptions::default());
        upstream.on_resource_updates(update_sink(
            Arc::downgrade(self),
            Arc::downgrade(&subscriptions),
            options.namespace.clone(),
        ));
        let forward_subscription: ForwardSubscription = {
            let (upstream, subscriptions, namespace) = (
                upstream.clone(),
                Arc::clone(&subscriptions),
                Arc::<str>::from(options.namespace.as_str()),
            );
            Arc::new(move |uri: String, start: bool| {
                let (upstream, subscriptions, namespace) = (
                    upstream.clone(),
                    Arc::clone(&subscriptions),
                    namespace.clone(),
                );
                Box::pin(async move {
                    forward_subscription(&upstream, &subscriptions, &namespace, &uri, start)
                        .await
                        .map_err(|error| ToolError::new(error.to_string()))
                })
            })
        };
        let mut mount = Mount {
            registry: self.clone(),
            upstream: upstream.clone(),
            limiter: Limiter::new(&options.namespace, options.call_limits),
            options,
            tools: Mutex::new(BTreeMap::new()),
            seen: Mutex::new(HashMap::new()),
            shelf: Mutex::new(Shelf::default()),
            subscriptions,
            forward_subscription,
            refreshing: tokio::sync::Mutex::new(()),
            report: MountReport::default(),
        };
        mount.report = mount.refresh().await?;
        Ok(mount)
    }
}

/// One upstream tool with the name it gets.
struct Planned {
    name: String,
    tool: McpTool,
    fingerprint: Fingerprint,
}

impl Mount {
    /// What the mount did when it was made.
    pub fn report(&self) -> &MountReport {
        &self.report
    }

    /// The upstream.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// The options it was mounted with.
    pub fn options(&self) -> &MountOptions {
        &self.options
    }

    /// The tools mounted now, by mounted name.
    pub fn tools(&self) -> Vec<MountedTool> {
        self.lock().values().cloned().collect()
    }

    /// The upstream's name of the mounted tool `name`.
    pub fn upstream_name(&self, name: &str) -> Option<String> {
        self.lock().get(name).map(|tool| tool.upstream_name.clone())
    }

    /// The mounted name of the upstream's tool `upstream_name`.
    pub fn mounted_name(&self, upstream_name: &str) -> Option<String> {
        self.lock()
            .values()
            .find(|tool| tool.upstream_name == upstream_name)
            .map(|tool| tool.name.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, MountedTool>> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Follows the upstream's `notifications/tools/list_changed` in a task of its own: after
    /// each, [`refresh`](Self::refresh), and `on_report` gets what it did (or why it
    /// failed). The task ends when the upstream is [closed](Upstream::close), or when it is
    /// aborted.
    pub fn follow<F>(self: &Arc<Self>, mut on_report: F) -> tokio::task::JoinHandle<()>
    where
        F: FnMut(Result<MountReport, UpstreamError>) + Send + 'static,
    {
        let mount = self.clone();
        let mut changes = mount.upstream.tool_list_changes();
        tokio::spawn(async move {
            while changes.changed().await {
                on_report(mount.refresh().await);
            }
        })
    }

    /// The prompts, resources, resource templates and skills mounted now.
    pub fn primitives(&self) -> Vec<MountedPrimitive> {
        Shelf::mounted(&self.shelf)
    }

    /// Subscribes to the mounted resource `uri` for one of our clients: the first
    /// subscription of a URI subscribes upstream; from then on the upstream's
    /// `notifications/resources/updated` for it becomes
    /// `ToolRegistry::notify_resource_updated` of `uri` (and for a URI nobody subscribed
    /// to, nothing).
    ///
    /// # Errors
    ///
    /// [`UpstreamError::NotMounted`] for a URI that is not in this mount's namespace;
    /// the upstream's error when it refuses (the subscription is then not counted).
    pub async fn subscribe(&self, uri: &str) -> Result<(), UpstreamError> {
        forward_subscription(
            &self.upstream,
            &self.subscriptions,
            &self.options.namespace,
            uri,
            true,
        )
        .await
    }

    /// Ends one subscription of `uri` ([`subscribe`](Self::subscribe)); the last one
    /// unsubscribes upstream.
    ///
    /// # Errors
    ///
    /// As [`subscribe`](Self::subscribe).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), UpstreamError> {
        forward_subscription(
            &self.upstream,
            &self.subscriptions,
            &self.options.namespace,
            uri,
            false,
        )
        .await
    }

    /// Removes every mounted tool from the registry, and every prompt, resource and skill
    /// (the connection stays open).
    pub fn unmount(&self) -> Vec<MountedTool> {
        drop(Shelf::unmount(&self.shelf, &self.registry));
        let tools = std::mem::take(&mut *self.lock());
        tools
            .into_values()
            .inspect(|tool| drop(self.registry.remove(&tool.name)))
            .collect()
    }

    /// Lists the upstream's tools (and its prompts, resources, resource templates and
    /// skills, unless [`MountOptions::primitives`] is off) again and brings the registry up
    /// to them: new ones registered, vanished ones removed, changed ones registered again
    /// (disabled when their pin differs), each in the report. Call it when
    /// [`Upstream::tool_list_changes`] says a list changed.
    ///
    /// # Errors
    ///
    /// The upstream's error when its list cannot be read; the registry is then unchanged.
    pub async fn refresh(&self) -> Result<MountReport, UpstreamError> {
        let _refreshing = self.refreshing.lock().await;
        let mut report = self.refresh_tools().await?;
        if self.options.primitives {
            let cx = Context {
                registry: &self.registry,
                upstream: &self.upstream,
                options: &self.options,
                declared: self.upstream.declared(),
                forward_subscription: &self.forward_subscription,
                limiter: &self.limiter,
            };
            report.primitives = Shelf::refresh(&self.shelf, &cx, self.options.limits()).await;
        }
        Ok(report)
    }

    /// [`refresh`](Self::refresh) of the tools.
    async fn refresh_tools(&self) -> Result<MountReport, UpstreamError> {
        // An upstream of prompts or resources only has no tools to list (it would answer
        // `-32601`).
        let listing = if self.upstream.declared().tools {
            self.upstream.list_tools(self.options.limits()).await?
        } else {
            super::list::Listing {
                tools: Vec::new(),
                cut: None,
                refused: Vec::new(),
            }
        };
        let mut report = MountReport {
            cut: listing.cut,
            ..MountReport::default()
        };
        for refused in listing.refused {
            let limit = if refused.total {
                self.options.max_mount_bytes
            } else {
                self.options.max_tool_bytes
            };
            let reason = if refused.total {
                SkipReason::MountFull {
                    bytes: refused.bytes,
                    limit,
                }
            } else {
                SkipReason::TooLarge {
                    bytes: refused.bytes,
                    limit,
                }
            };
            report.skipped.push(Skipped {
                name: mounted_name(&self.options.namespace, &refused.upstream_name),
                upstream_name: refused.upstream_name,
                reason,
            });
        }
        let planned = self.plan(listing.tools, &mut report);
        let mut tools = self.lock();
        // Vanished (or now skipped) tools.
        let keep: std::collections::HashSet<(&str, &str)> = planned
            .iter()
            .map(|p| (p.name.as_str(), p.tool.name.as_ref()))
            .collect();
        let gone: Vec<String> = tools
            .values()
            .filter(|t| !keep.contains(&(t.name.as_str(), t.upstream_name.as_str())))
            .map(|t| t.name.clone())
            .collect();
        for name in gone {
            if let Some(tool) = tools.remove(&name) {
                drop(self.registry.remove(&name));
                report.removed.push(tool);
            }
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        for plan in planned {
            let previous = tools.get(&plan.name).cloned();
            if previous
                .as_ref()
                .is_some_and(|p| p.fingerprint == plan.fingerprint)
            {
                continue;
            }
            // What was last seen under this name, mounted now or gone since.
            let before = seen.insert(plan.name.clone(), plan.fingerprint);
            if previous.is_none() && self.registry.get(&plan.name).is_some() {
                report.skipped.push(Skipped {
                    upstream_name: plan.tool.name.to_string(),
                    name: Some(plan.name),
                    reason: SkipReason::AlreadyRegistered,
                });
                continue;
            }
            // Every pin naming the tool must match (two spellings may name one tool).
            let pin = self
                .options
                .pins_of(&plan.name)
                .find(|pin| *pin != plan.fingerprint)
                .or_else(|| self.options.pins_of(&plan.name).next());
            let pin_differs = pin.is_some_and(|pin| pin != plan.fingerprint);
            let enabled = !pin_differs;
            let safety = self.options.safety_for(&plan.name, &plan.tool);
            let tool = match self.build(&plan, safety) {
                Ok(tool) => tool,
                Err(reason) => {
                    // The old definition does not stay behind the new one's back.
                    if let Some(previous) = tools.remove(&plan.name) {
                        drop(self.registry.remove(&plan.name));
                        report.removed.push(previous);
                    }
                    report.skipped.push(Skipped {
                        upstream_name: plan.tool.name.to_string(),
                        name: Some(plan.name),
                        reason: SkipReason::InvalidDefinition(reason),
                    });
                    continue;
                }
            };
            let registered = self.registry.register_with(
                tool,
                RegisterOptions::new()
                    .enabled(enabled)
                    .replace(previous.is_some()),
            );
            if let Err(error) = registered {
                report.skipped.push(Skipped {
                    upstream_name: plan.tool.name.to_string(),
                    name: Some(plan.name),
                    reason: SkipReason::Registry(error.to_string()),
                });
                continue;
            }
            if previous.is_some() && enabled {
                // A replacement keeps the registration's enabled flag; a pin that matches
                // again enables it.
                drop(self.registry.set_enabled(&plan.name, true));
            }
            let mounted = MountedTool {
                name: plan.name.clone(),
                upstream_name: plan.tool.name.to_string(),
                fingerprint: plan.fingerprint,
                safety,
                enabled,
            };
            match (&previous, pin) {
                (_, Some(pin)) if pin_differs => report.changed.push(FingerprintChange {
                    name: plan.name.clone(),
                    upstream_name: mounted.upstream_name.clone(),
                    expected: pin,
                    actual: plan.fingerprint,
                    pinned: true,
                }),
                (Some(previous), _) => report.changed.push(FingerprintChange {
                    name: plan.name.clone(),
                    upstream_name: mounted.upstream_name.clone(),
                    expected: previous.fingerprint,
                    actual: plan.fingerprint,
                    pinned: false,
                }),
                // Gone and back (or renamed) with another definition: a change too.
                (None, _) => {
                    if let Some(before) = before.filter(|before| *before != plan.fingerprint) {
                        report.changed.push(FingerprintChange {
                            name: plan.name.clone(),
                            upstream_name: mounted.upstream_name.clone(),
                            expected: before,
                            actual: plan.fingerprint,
                            pinned: false,
                        });
                    }
                }
            }
            if previous.is_none() {
                report.added.push(mounted.clone());
            } else if !enabled {
                drop(self.registry.set_enabled(&plan.name, false));
            }
            tools.insert(plan.name, mounted);
        }
        Ok(report)
    }

    /// The name each listed tool gets; the ones that get none or share one are reported.
    fn plan(&self, listed: Vec<McpTool>, report: &mut MountReport) -> Vec<Planned> {
        let mut by_name: BTreeMap<String, Vec<McpTool>> = BTreeMap::new();
        for tool in listed {
            match mounted_name(&self.options.namespace, &tool.name) {
                Some(name) => by_name.entry(name).or_default().push(tool),
                None => report.skipped.push(Skipped {
                    upstream_name: tool.name.to_string(),
                    name: None,
                    reason: SkipReason::UnusableName,
                }),
            }
        }
        let mut planned = Vec::with_capacity(by_name.len());
        for (name, mut group) in by_name {
            if group.len() == 1
                && let Some(tool) = group.pop()
            {
                let fingerprint = Fingerprint::of(&tool);
                planned.push(Planned {
                    name,
                    tool,
                    fingerprint,
                });
                continue;
            }
            let names: Vec<String> = group.iter().map(|t| t.name.to_string()).collect();
            for (i, tool) in group.iter().enumerate() {
                let others = names
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, n)| n.clone())
                    .collect();
                report.skipped.push(Skipped {
                    upstream_name: tool.name.to_string(),
                    name: Some(name.clone()),
                    reason: SkipReason::SameName { others },
                });
            }
        }
        planned
    }

    /// The runtime tool that forwards calls of `plan` to the upstream.
    fn build(&self, plan: &Planned, safety: SafetyLevel) -> Result<Tool, String> {
        let server = self.upstream.server_name().to_owned();
        let namespace = self.options.namespace.clone();
        let upstream_name: Arc<str> = Arc::from(&*plan.tool.name);
        let shown_name = toolwright_names::escape::escape(&upstream_name).into_owned();
        let description = description(
            &server,
            &namespace,
            &shown_name,
            plan.tool.description.as_deref(),
        );
        let mut builder = Tool::builder(plan.name.clone())
            .description(description)
            .input_schema(Value::Object((*plan.tool.input_schema).clone()))
            // The upstream's schema, served and checked as it means (bounded when listed).
            .foreign_schema(true)
            .safety(safety);
        if let Some(output) = &plan.tool.output_schema {
            builder = builder.output_schema(Value::Object((**output).clone()));
        }
        // Called as each caller: the call's context carries the caller's token to exchange.
        if self.upstream.acts_as_caller() {
            builder = builder.receives_caller_token();
        }
        if let Some(timeout) = self.options.call_timeout {
            builder = builder.timeout(timeout);
        }
        let preview = {
            let (server, namespace, shown_name) =
                (server.clone(), namespace.clone(), shown_name.clone());
            move |_: &toolwright_core::ToolContext, arguments: &serde_json::Map<String, Value>| {
                let arguments = Value::Object(arguments.clone()).to_string();
                Ok::<_, toolwright_core::ToolError>(format!(
                    "Call `{shown_name}` on the upstream MCP server `{server}` (mounted as `{namespace}`) with {}",
                    toolwright_names::escape::escape(&arguments)
                ))
            }
        };
        let upstream = self.upstream.clone();
        // The resource links of a result name the upstream's resources where the mount
        // serves them.
        let uris_in: Option<Arc<str>> = (self.options.primitives
            && self.upstream.declared().resources)
            .then(|| Arc::from(self.options.namespace.as_str()));
        let limiter = Arc::clone(&self.limiter);
        builder
            .preview(preview)
            .handler_with_context(move |ctx, arguments| {
                // Shared, not copied: a call clones three `Arc`s.
                let upstream = upstream.clone();
                let upstream_name = upstream_name.clone();
                let uris_in = uris_in.clone();
                // The upstream's limits, before anything is sent; the place is held until
                // the call ends.
                let admitted = limiter.admit(ctx.caller().map(toolwright_core::Caller::subject));
                async move {
                    let _permit = admitted?;
                    upstream
                        .call(&ctx, &upstream_name, arguments, uris_in.as_deref())
                        .await
                }
            })
            .build()
            .map_err(|error| error.to_string())
    }
}

/// A mounted tool's description: where it comes from, then the upstream's own (characters
/// a reader must not see raw escaped, newlines and tabs kept, at most 4096 bytes).
fn description(server: &str, namespace: &str, upstream_name: &str, own: Option<&str>) -> String {
    let mut text = format!(
        "[Tool `{upstream_name}` of the upstream MCP server `{server}`, mounted as `{namespace}`.]"
    );
    let own = own.map(str::trim).unwrap_or_default();
    if !own.is_empty() {
        let mut cut = own.len().min(MAX_DESCRIPTION);
        while !own.is_char_boundary(cut) {
            cut -= 1;
        }
        let shown = toolwright_names::escape::escape_with(&own[..cut], |c, _, out| {
            if c == '\n' || c == '\t' {
                out.push(c);
            } else {
                toolwright_names::escape::write_rust_escape(c, out);
            }
        });
        text.push(' ');
        text.push_str(&shown);
        if cut < own.len() {
            text.push_str(" [...]");
        }
    }
    text
}

/// One subscription of our `uri` more (`start`) or less, counted per upstream URI: the
/// first subscribes upstream, the last unsubscribes ([`Mount::subscribe`], and the hook of
/// a mounted resource, which `McpServer` tells once per URI over its sessions).
pub(super) async fn forward_subscription(
    upstream: &Upstream,
    subscriptions: &Subscriptions,
    namespace: &str,
    uri: &str,
    start: bool,
) -> Result<(), UpstreamError> {
    let theirs = upstream_uri(namespace, uri).ok_or_else(|| UpstreamError::NotMounted {
        uri: toolwright_names::escape::escape(uri).into_owned(),
        namespace: namespace.to_owned(),
    })?;
    // An upstream that does not take subscriptions sends no updates: counted only.
    if start {
        if subscriptions.add(&theirs) && upstream.declared().subscribe {
            let subscribed = upstream.subscribe(&theirs, true).await;
            if let Err(error) = subscribed {
                subscriptions.remove(&theirs);
                return Err(upstream.request_error("resources/subscribe", error));
            }
        }
    } else if subscriptions.remove(&theirs) && upstream.declared().subscribe {
        upstream
            .subscribe(&theirs, false)
            .await
            .map_err(|error| upstream.request_error("resources/unsubscribe", error))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_say_where_and_escape() {
        let text = description("srv", "ns", "t", Some("safe\u{202e}evil\nline"));
        assert_eq!(
            text,
            "[Tool `t` of the upstream MCP server `srv`, mounted as `ns`.] safe\\u{202e}evil\nline"
        );
        let long = description("srv", "ns", "t", Some(&"é".repeat(5000)));
        assert!(long.ends_with(" [...]"));
        assert!(long.len() < MAX_DESCRIPTION + 200);
    }

    #[test]
    fn safety_by_overrides_trust_and_default() {
        let tool = |name: &str, read_only: Option<bool>, destructive: Option<bool>| {
            let mut tool = McpTool::new(name.to_owned(), "d", serde_json::Map::new());
            let mut annotations = rmcp::model::ToolAnnotations::new();
            annotations.read_only_hint = read_only;
            annotations.destructive_hint = destructive;
            tool.annotations = Some(annotations);
            tool
        };
        let options = MountOptions::new("ns");
        assert_eq!(
            options.safety_for("ns_a", &tool("a", Some(true), None)),
            SafetyLevel::Dangerous
        );
        let trusted = MountOptions::new("ns").trusted(true);
        assert_eq!(
            trusted.safety_for("ns_a", &tool("a", Some(true), None)),
            SafetyLevel::Safe
        );
        assert_eq!(
            trusted.safety_for("ns_a", &tool("a", None, Some(false))),
            SafetyLevel::Cautious
        );
        assert_eq!(
            trusted.safety_for("ns_a", &tool("a", None, None)),
            SafetyLevel::Dangerous
        );
        let globbed = MountOptions::new("ns")
            .safety("get*", SafetyLevel::Safe)
            .safety("*", SafetyLevel::Cautious)
            .safety("get_secret", SafetyLevel::Dangerous);
        assert_eq!(
            globbed.safety_for("ns_get_x", &tool("get_x", None, None)),
            SafetyLevel::Safe
        );
        assert_eq!(
            globbed.safety_for("ns_put_x", &tool("put_x", None, None)),
            SafetyLevel::Cautious
        );
        assert_eq!(
            globbed.safety_for("ns_get_secret", &tool("get_secret", None, None)),
            SafetyLevel::Dangerous
        );
    }
}
