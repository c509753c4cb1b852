//! An upstream's prompts, resources, resource templates and skills, mounted into the
//! registry beside its tools as runtime-built `Prompt`s, `Resource`s and `Skill`s whose
//! handlers forward upstream (`requests`), and brought up to the upstream's lists on each
//! refresh: the names and URIs they get (`names`, `uris`), collisions, fingerprints and
//! pins as for tools; what an upstream's `resources/updated` becomes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use rmcp::model::{
    Prompt as McpPrompt, Resource as McpResource, ResourceTemplate as McpTemplate,
    Skill as McpSkill,
};
use toolwright_runtime::ToolRegistry;

use super::fingerprint::Fingerprint;
use super::list::ListLimits;
use super::mountable::{Context, Mountable};
use super::report::{
    FingerprintChange, MountedPrimitive, PrimitiveKind, PrimitivesReport, SkipReason, Skipped,
};
use super::uris::mounted_uri;

/// What a mount keeps of the upstream's prompts, resources, templates and skills.
#[derive(Default)]
pub(super) struct Shelf {
    /// Mounted now, by kind and the name or URI they are served under.
    items: BTreeMap<(PrimitiveKind, String), Held>,
    /// The last fingerprint seen under each key, kept after it is gone.
    seen: HashMap<(PrimitiveKind, String), Fingerprint>,
}

/// One mounted primitive and what it registered.
#[derive(Clone)]
struct Held {
    mounted: MountedPrimitive,
    /// The resources a skill registered for its files (their mounted URIs).
    files: Vec<String>,
}

/// The upstream's resources our clients subscribed to (upstream URIs, each with how many
/// subscriptions of ours hold it): an upstream's `resources/updated` for any other URI is
/// dropped.
#[derive(Default)]
pub(super) struct Subscriptions {
    held: Mutex<HashMap<String, usize>>,
}

impl Subscriptions {
    /// Counts one more subscription of `uri`; `true` when it is the first (subscribe
    /// upstream).
    pub(super) fn add(&self, uri: &str) -> bool {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(uri.to_owned()).or_default();
        *count += 1;
        *count == 1
    }

    /// Counts one subscription of `uri` less; `true` when it was the last (unsubscribe
    /// upstream).
    pub(super) fn remove(&self, uri: &str) -> bool {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        match held.get_mut(uri) {
            Some(count) if *count > 1 => {
                *count -= 1;
                false
            }
            Some(_) => {
                held.remove(uri);
                true
            }
            None => false,
        }
    }

    /// Whether one of our clients subscribed to `uri`.
    pub(super) fn holds(&self, uri: &str) -> bool {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(uri)
    }
}

/// The plan of one listed definition.
struct Planned<T> {
    key: String,
    definition: T,
    fingerprint: Fingerprint,
}

impl Shelf {
    fn lock(shelf: &Mutex<Shelf>) -> std::sync::MutexGuard<'_, Shelf> {
        shelf.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What is mounted now.
    pub(super) fn mounted(shelf: &Mutex<Shelf>) -> Vec<MountedPrimitive> {
        Shelf::lock(shelf)
            .items
            .values()
            .map(|held| held.mounted.clone())
            .collect()
    }

    /// Removes everything mounted from the registry.
    pub(super) fn unmount(shelf: &Mutex<Shelf>, registry: &ToolRegistry) -> Vec<MountedPrimitive> {
        let items = std::mem::take(&mut Shelf::lock(shelf).items);
        items
            .into_iter()
            .map(|((kind, key), held)| {
                remove(registry, kind, &key, &held.files);
                held.mounted
            })
            .collect()
    }

    /// Lists each kind the upstream declares and brings the registry up to it.
    pub(super) async fn refresh(
        shelf: &Mutex<Shelf>,
        cx: &Context<'_>,
        limits: ListLimits,
    ) -> PrimitivesReport {
        let mut report = PrimitivesReport::default();
        let declared = cx.declared;
        if declared.prompts {
            refresh_kind::<McpPrompt>(shelf, cx, limits, &mut report).await;
        }
        if declared.resources {
            refresh_kind::<McpResource>(shelf, cx, limits, &mut report).await;
            refresh_kind::<McpTemplate>(shelf, cx, limits, &mut report).await;
        }
        if declared.skills {
            refresh_kind::<McpSkill>(shelf, cx, limits, &mut report).await;
        }
        report
    }
}

/// Removes what `key` of `kind` registered.
fn remove(registry: &ToolRegistry, kind: PrimitiveKind, key: &str, files: &[String]) {
    match kind {
        PrimitiveKind::Prompt => drop(registry.remove_prompt(key)),
        PrimitiveKind::Resource | PrimitiveKind::ResourceTemplate => {
            drop(registry.remove_resource(key));
        }
        PrimitiveKind::Skill => {
            drop(registry.remove_skill(key));
            for uri in files {
                drop(registry.remove_resource(uri));
            }
        }
    }
}

/// Enables or disables what `key` of `kind` registered.
fn set_enabled(
    registry: &ToolRegistry,
    kind: PrimitiveKind,
    key: &str,
    files: &[String],
    on: bool,
) {
    match kind {
        PrimitiveKind::Prompt => drop(registry.set_prompt_enabled(key, on)),
        PrimitiveKind::Resource | PrimitiveKind::ResourceTemplate => {
            drop(registry.set_resource_enabled(key, on));
        }
        // A skill is its files: disabled, none can be read.
        PrimitiveKind::Skill => {
            for uri in files {
                drop(registry.set_resource_enabled(uri, on));
            }
        }
    }
}

/// Whether something not of this mount is registered under `key`.
fn taken(registry: &ToolRegistry, kind: PrimitiveKind, key: &str) -> bool {
    match kind {
        PrimitiveKind::Prompt => registry.prompt(key).is_some(),
        PrimitiveKind::Resource | PrimitiveKind::ResourceTemplate => {
            registry.resource(key).is_some()
        }
        PrimitiveKind::Skill => registry.skill(key).is_some(),
    }
}

async fn refresh_kind<T: Mountable>(
    shelf: &Mutex<Shelf>,
    cx: &Context<'_>,
    limits: ListLimits,
    report: &mut PrimitivesReport,
) {
    let kind = T::KIND;
    let listing = match cx.upstream.list_all::<T>(limits).await {
        Ok(listing) => listing,
        Err(error) => {
            report.unlisted.push((kind, error.to_string()));
            return;
        }
    };
    if let Some(cut) = listing.cut {
        report.cuts.push((kind, cut));
    }
    for refused in listing.refused {
        let reason = if refused.total {
            SkipReason::MountFull {
                bytes: refused.bytes,
                limit: limits.max_total_bytes,
            }
        } else {
            SkipReason::TooLarge {
                bytes: refused.bytes,
                limit: limits.max_tool_bytes,
            }
        };
        report.skipped.push((
            kind,
            Skipped {
                upstream_name: refused.upstream_name,
                name: None,
                reason,
            },
        ));
    }
    // Keys, and the ones two definitions share (none of them mounted).
    let mut by_key: BTreeMap<String, Vec<T>> = BTreeMap::new();
    for definition in listing.tools {
        match definition.key(cx.namespace()) {
            Some(key) => by_key.entry(key).or_default().push(definition),
            None => report.skipped.push((
                kind,
                Skipped {
                    upstream_name: definition.label().to_owned(),
                    name: None,
                    reason: if kind == PrimitiveKind::Prompt {
                        SkipReason::UnusableName
                    } else {
                        SkipReason::UnusableUri
                    },
                },
            )),
        }
    }
    let mut planned = Vec::with_capacity(by_key.len());
    for (key, mut group) in by_key {
        if group.len() == 1
            && let Some(definition) = group.pop()
        {
            let fingerprint = Fingerprint::of_definition(&kind.to_string(), &definition);
            planned.push(Planned {
                key,
                definition,
                fingerprint,
            });
            continue;
        }
        let names: Vec<String> = group.iter().map(|d| d.label().to_owned()).collect();
        for (i, definition) in group.iter().enumerate() {
            let others = names
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, n)| n.clone())
                .collect();
            report.skipped.push((
                kind,
                Skipped {
                    upstream_name: definition.label().to_owned(),
                    name: Some(key.clone()),
                    reason: SkipReason::SameName { others },
                },
            ));
        }
    }
    let mut shelf = Shelf::lock(shelf);
    let keep: BTreeSet<&str> = planned.iter().map(|p| p.key.as_str()).collect();
    let gone: Vec<(PrimitiveKind, String)> = shelf
        .items
        .keys()
        .filter(|(k, key)| *k == kind && !keep.contains(key.as_str()))
        .cloned()
        .collect();
    for entry in gone {
        if let Some(held) = shelf.items.remove(&entry) {
            remove(cx.registry, kind, &entry.1, &held.files);
            report.removed.push(held.mounted);
        }
    }
    for plan in planned {
        let entry = (kind, plan.key.clone());
        let previous = shelf.items.get(&entry).cloned();
        if previous
            .as_ref()
            .is_some_and(|p| p.mounted.fingerprint == plan.fingerprint)
        {
            continue;
        }
        let before = shelf.seen.insert(entry.clone(), plan.fingerprint);
        let upstream_name = plan.definition.label().to_owned();
        if previous.is_none() && taken(cx.registry, kind, &plan.key) {
            report.skipped.push((
                kind,
                Skipped {
                    upstream_name,
                    name: Some(plan.key),
                    reason: SkipReason::AlreadyRegistered,
                },
            ));
            continue;
        }
        let pin = match kind {
            PrimitiveKind::Prompt => cx.options.prompt_pin(&plan.key, plan.fingerprint),
            _ => cx
                .options
                .resource_pin(&upstream_name, &plan.key, plan.fingerprint),
        };
        let pin_differs = pin.is_some_and(|pin| pin != plan.fingerprint);
        // The old definition goes before the new one is registered under its key.
        if let Some(previous) = &previous {
            remove(cx.registry, kind, &plan.key, &previous.files);
            shelf.items.remove(&entry);
        }
        let files = match plan.definition.register(cx, &plan.key) {
            Ok(files) => files,
            Err(reason) => {
                if let Some(previous) = previous {
                    report.removed.push(previous.mounted);
                }
                report.skipped.push((
                    kind,
                    Skipped {
                        upstream_name,
                        name: Some(plan.key),
                        reason,
                    },
                ));
                continue;
            }
        };
        if pin_differs {
            set_enabled(cx.registry, kind, &plan.key, &files, false);
        }
        let mounted = MountedPrimitive {
            kind,
            name: plan.key.clone(),
            upstream_name: upstream_name.clone(),
            fingerprint: plan.fingerprint,
            enabled: !pin_differs,
        };
        let expected = match (&previous, pin) {
            (_, Some(pin)) if pin_differs => Some((pin, true)),
            (Some(previous), _) => Some((previous.mounted.fingerprint, false)),
            (None, _) => before
                .filter(|before| *before != plan.fingerprint)
                .map(|before| (before, false)),
        };
        if let Some((expected, pinned)) = expected {
            report.changed.push((
                kind,
                FingerprintChange {
                    name: plan.key.clone(),
                    upstream_name,
                    expected,
                    actual: plan.fingerprint,
                    pinned,
                },
            ));
        }
        if previous.is_none() {
            report.added.push(mounted.clone());
        }
        shelf.items.insert(entry, Held { mounted, files });
    }
}

/// The sink of the upstream's `resources/updated`: a URI one of our clients subscribed to
/// becomes the registry's change for its mounted URI; any other is dropped (an upstream
/// cannot make us tell clients about resources nobody asked after).
pub(super) fn update_sink(
    registry: Weak<ToolRegistry>,
    subscriptions: Weak<Subscriptions>,
    namespace: String,
) -> super::session::UpdateSink {
    Arc::new(move |uri: &str| {
        let (Some(registry), Some(subscriptions)) = (registry.upgrade(), subscriptions.upgrade())
        else {
            return;
        };
        if !subscriptions.holds(uri) {
            tracing::debug!(
                namespace = namespace.as_str(),
                "dropped a resources/updated of the upstream for a resource no client subscribed to"
            );
            return;
        }
        if let Some(ours) = mounted_uri(&namespace, uri) {
            registry.notify_resource_updated(&ours);
        }
    })
}
