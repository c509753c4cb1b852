//! Prompts, resources (fixed URIs and templates) and skills in the same registry as tools:
//! register, look up, resolve a URI, enable, disable, remove, each change sent as an event.

use toolwright_core::{Prompt, Resource, Skill, UriVariables};
use toolwright_names::did_you_mean;

use super::error::RegistryError;
use super::events::{ChangeKind, PrimitiveState};
use super::filter::ToolFilter;
use super::kind::Primitive;
use super::storage::{Entry, State, ToolRegistry};

fn prompt_state(entry: &Entry<Prompt>) -> PrimitiveState {
    PrimitiveState::Prompt {
        prompt: entry.item.clone(),
        enabled: entry.enabled,
    }
}

fn resource_state(entry: &Entry<Resource>) -> PrimitiveState {
    PrimitiveState::Resource {
        resource: entry.item.clone(),
        enabled: entry.enabled,
    }
}

fn unknown<'a>(
    primitive: Primitive,
    key: &str,
    known: impl Iterator<Item = &'a String>,
) -> RegistryError {
    RegistryError::UnknownPrimitive {
        primitive,
        key: key.to_owned(),
        suggestion: did_you_mean(key, known.map(String::as_str)).map(str::to_owned),
    }
}

/// How specific a template is: more literal characters first (`file:///docs/{id}` before
/// `file:///{+path}`), then fewer `{+var}`s, then the text; the order templates are tried in.
fn specificity(template: &str) -> (std::cmp::Reverse<usize>, usize, &str) {
    let mut literal = 0;
    let mut depth = 0;
    for c in template.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => literal += 1,
            _ => {}
        }
    }
    (
        std::cmp::Reverse(literal),
        template.matches("{+").count(),
        template,
    )
}

impl ToolRegistry {
    /// Registers a prompt under its name. As for tools: the same definition again changes
    /// nothing; another version replaces it (enabled); the same version with another
    /// definition is [`RegistryError::PrimitiveConflict`].
    ///
    /// ```
    /// use toolwright_core::Prompt;
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let registry = ToolRegistry::new();
    /// let hello = Prompt::builder("hello").description("Say hello.")
    ///     .handler(|_, _| async { Ok("Hello!") }).build().unwrap();
    /// registry.register_prompt(hello.clone()).unwrap();
    /// registry.register_prompt(hello).unwrap(); // the same again: nothing changes
    /// assert_eq!(registry.prompts(&ToolFilter::new()).len(), 1);
    /// ```
    ///
    /// # Errors
    ///
    /// [`RegistryError::PrimitiveConflict`] as said.
    pub fn register_prompt(&self, prompt: Prompt) -> Result<(), RegistryError> {
        let mut state = self.write();
        let key = prompt.name().to_owned();
        let before = match state.prompts.get(&key) {
            Some(existing) if existing.item.same_definition(&prompt) => return Ok(()),
            Some(existing) if existing.item.version() == prompt.version() => {
                return Err(RegistryError::PrimitiveConflict {
                    primitive: Primitive::Prompt,
                    key,
                    version: prompt.version().map(str::to_owned),
                    first: Box::new(existing.item.source().clone()),
                    second: Box::new(prompt.source().clone()),
                });
            }
            existing => existing.map(prompt_state),
        };
        let entry = Entry {
            item: prompt,
            enabled: true,
            created_at: self.now(),
        };
        let after = prompt_state(&entry);
        state.prompts.insert(key.clone(), entry);
        let kind = if before.is_some() {
            ChangeKind::Replaced
        } else {
            ChangeKind::Added
        };
        self.emit_primitive(
            &mut state,
            kind,
            Primitive::Prompt,
            &key,
            before,
            Some(after),
        );
        Ok(())
    }

    /// Registers a resource under its URI, or a template under the template as written, with
    /// the rules of [`register_prompt`](Self::register_prompt).
    ///
    /// ```
    /// use toolwright_core::Resource;
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let registry = ToolRegistry::new();
    /// let note = Resource::builder("note", "notes://{id}")
    ///     .handler(|req, _| async move { Ok(format!("note {}", req.variable("id")?)) }).build().unwrap();
    /// registry.register_resource(note).unwrap();
    /// let (found, vars) = registry.resolve_resource("notes://7").unwrap();
    /// assert_eq!((found.name(), vars.get("id")), ("note", Some("7")));
    /// assert!(registry.resources(&ToolFilter::new()).is_empty()); // a template, not a fixed URI
    /// assert_eq!(registry.resource_templates(&ToolFilter::new()).len(), 1);
    /// ```
    ///
    /// # Errors
    ///
    /// [`RegistryError::PrimitiveConflict`] when another definition holds the URI at the
    /// same version (a mounted upstream's resource cannot take ours).
    pub fn register_resource(&self, resource: Resource) -> Result<(), RegistryError> {
        let mut state = self.write();
        let key = resource.uri().as_str().to_owned();
        let before = match state.resources.get(&key) {
            Some(existing) if existing.item.same_definition(&resource) => return Ok(()),
            Some(existing) if existing.item.version() == resource.version() => {
                return Err(RegistryError::PrimitiveConflict {
                    primitive: Primitive::Resource,
                    key,
                    version: resource.version().map(str::to_owned),
                    first: Box::new(existing.item.source().clone()),
                    second: Box::new(resource.source().clone()),
                });
            }
            existing => existing.map(resource_state),
        };
        let entry = Entry {
            item: resource,
            enabled: true,
            created_at: self.now(),
        };
        let after = resource_state(&entry);
        state.resources.insert(key.clone(), entry);
        let kind = if before.is_some() {
            ChangeKind::Replaced
        } else {
            ChangeKind::Added
        };
        self.emit_primitive(
            &mut state,
            kind,
            Primitive::Resource,
            &key,
            before,
            Some(after),
        );
        Ok(())
    }

    /// Registers a skill's listing under the URI of its `SKILL.md` (its files are resources,
    /// registered with [`register_resource`](Self::register_resource)). The same listing
    /// again changes nothing; another replaces it.
    ///
    /// ```
    /// use toolwright_core::Skill;
    /// use toolwright_runtime::ToolRegistry;
    ///
    /// let registry = ToolRegistry::new();
    /// registry.register_skill(Skill::new("skill://review/SKILL.md", "review", "Review code.")).unwrap();
    /// assert_eq!(registry.skills().len(), 1);
    /// assert!(registry.skill("skill://review/SKILL.md").is_some());
    /// ```
    ///
    /// # Errors
    ///
    /// None today; the `Result` leaves room for checks of the listing.
    pub fn register_skill(&self, skill: Skill) -> Result<(), RegistryError> {
        let mut state = self.write();
        let key = skill.uri.clone();
        let before = state.skills.get(&key).cloned();
        if before.as_ref() == Some(&skill) {
            return Ok(());
        }
        state.skills.insert(key.clone(), skill.clone());
        let kind = if before.is_some() {
            ChangeKind::Replaced
        } else {
            ChangeKind::Added
        };
        self.emit_primitive(
            &mut state,
            kind,
            Primitive::Skill,
            &key,
            before.map(PrimitiveState::Skill),
            Some(PrimitiveState::Skill(skill)),
        );
        Ok(())
    }

    /// The prompt named `name`, enabled or not.
    pub fn prompt(&self, name: &str) -> Option<Prompt> {
        self.read().prompts.get(name).map(|e| e.item.clone())
    }

    /// Whether the prompt named `name` is registered and enabled.
    pub fn is_prompt_enabled(&self, name: &str) -> bool {
        self.read().prompts.get(name).is_some_and(|e| e.enabled)
    }

    /// The prompts `filter` lets through, sorted by name.
    pub fn prompts(&self, filter: &ToolFilter) -> Vec<Prompt> {
        self.read()
            .prompts
            .values()
            .filter(|e| filter.matches_prompt(&e.item, e.enabled))
            .map(|e| e.item.clone())
            .collect()
    }

    /// The resource (or template) registered under `key` (its URI, or its template as
    /// written), enabled or not.
    pub fn resource(&self, key: &str) -> Option<Resource> {
        self.read().resources.get(key).map(|e| e.item.clone())
    }

    /// Whether the resource (or template) under `key` is registered and enabled.
    pub fn is_resource_enabled(&self, key: &str) -> bool {
        self.read().resources.get(key).is_some_and(|e| e.enabled)
    }

    fn resources_where(&self, filter: &ToolFilter, templates: bool) -> Vec<Resource> {
        self.read()
            .resources
            .values()
            .filter(|e| e.item.uri().is_template() == templates)
            .filter(|e| filter.matches_resource(&e.item, e.enabled))
            .map(|e| e.item.clone())
            .collect()
    }

    /// The resources at fixed URIs `filter` lets through, sorted by URI.
    pub fn resources(&self, filter: &ToolFilter) -> Vec<Resource> {
        self.resources_where(filter, false)
    }

    /// The resource templates `filter` lets through, sorted by template.
    pub fn resource_templates(&self, filter: &ToolFilter) -> Vec<Resource> {
        self.resources_where(filter, true)
    }

    /// The enabled resource that `uri` names, with the template's variables: a fixed URI
    /// first, then the templates, most specific first (more literal characters, then fewer
    /// `{+var}`s, then the template's text), so the answer is the same on every run.
    pub fn resolve_resource(&self, uri: &str) -> Option<(Resource, UriVariables)> {
        self.resolve_resource_filtered(uri, &ToolFilter::new())
    }

    /// [`resolve_resource`](Self::resolve_resource) among the resources `filter` lets
    /// through: what a hidden resource would have matched falls to the next that matches.
    pub fn resolve_resource_filtered(
        &self,
        uri: &str,
        filter: &ToolFilter,
    ) -> Option<(Resource, UriVariables)> {
        let state = self.read();
        let visible = |e: &&Entry<Resource>| filter.matches_resource(&e.item, e.enabled);
        if let Some(entry) = state.resources.get(uri).filter(visible)
            && !entry.item.uri().is_template()
        {
            return Some((entry.item.clone(), UriVariables::new()));
        }
        let mut templates: Vec<&Entry<Resource>> = state
            .resources
            .values()
            .filter(|e| e.item.uri().is_template())
            .filter(visible)
            .collect();
        templates.sort_by(|a, b| {
            specificity(a.item.uri().as_str()).cmp(&specificity(b.item.uri().as_str()))
        });
        templates
            .into_iter()
            .find_map(|e| Some((e.item.clone(), e.item.matches(uri)?)))
    }

    /// Every skill, sorted by URI.
    pub fn skills(&self) -> Vec<Skill> {
        self.read().skills.values().cloned().collect()
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub fn skill(&self, uri: &str) -> Option<Skill> {
        self.read().skills.get(uri).cloned()
    }

    /// Removes the prompt named `name`, returning it.
    pub fn remove_prompt(&self, name: &str) -> Option<Prompt> {
        let mut state = self.write();
        let removed = state.prompts.remove(name)?;
        let before = prompt_state(&removed);
        self.emit_primitive(
            &mut state,
            ChangeKind::Removed,
            Primitive::Prompt,
            name,
            Some(before),
            None,
        );
        Some(removed.item)
    }

    /// Removes the resource (or template) under `key`, returning it.
    pub fn remove_resource(&self, key: &str) -> Option<Resource> {
        let mut state = self.write();
        let removed = state.resources.remove(key)?;
        let before = resource_state(&removed);
        self.emit_primitive(
            &mut state,
            ChangeKind::Removed,
            Primitive::Resource,
            key,
            Some(before),
            None,
        );
        Some(removed.item)
    }

    /// Removes the skill whose `SKILL.md` is at `uri` (not its files' resources), returning it.
    pub fn remove_skill(&self, uri: &str) -> Option<Skill> {
        let mut state = self.write();
        let removed = state.skills.remove(uri)?;
        self.emit_primitive(
            &mut state,
            ChangeKind::Removed,
            Primitive::Skill,
            uri,
            Some(PrimitiveState::Skill(removed.clone())),
            None,
        );
        Some(removed)
    }

    /// Enables or disables the prompt named `name`; doing it twice is harmless.
    ///
    /// # Errors
    ///
    /// [`RegistryError::UnknownPrimitive`] (with the closest name) when there is none.
    pub fn set_prompt_enabled(&self, name: &str, enabled: bool) -> Result<(), RegistryError> {
        let mut state = self.write();
        let state: &mut State = &mut state;
        let Some(entry) = state.prompts.get_mut(name) else {
            return Err(unknown(Primitive::Prompt, name, state.prompts.keys()));
        };
        if entry.enabled == enabled {
            return Ok(());
        }
        let before = prompt_state(entry);
        entry.enabled = enabled;
        let after = prompt_state(entry);
        self.emit_primitive(
            state,
            enabled_kind(enabled),
            Primitive::Prompt,
            name,
            Some(before),
            Some(after),
        );
        Ok(())
    }

    /// Enables or disables the resource (or template) under `key`; doing it twice is harmless.
    ///
    /// # Errors
    ///
    /// [`RegistryError::UnknownPrimitive`] (with the closest key) when there is none.
    pub fn set_resource_enabled(&self, key: &str, enabled: bool) -> Result<(), RegistryError> {
        let mut state = self.write();
        let state: &mut State = &mut state;
        let Some(entry) = state.resources.get_mut(key) else {
            return Err(unknown(Primitive::Resource, key, state.resources.keys()));
        };
        if entry.enabled == enabled {
            return Ok(());
        }
        let before = resource_state(entry);
        entry.enabled = enabled;
        let after = resource_state(entry);
        self.emit_primitive(
            state,
            enabled_kind(enabled),
            Primitive::Resource,
            key,
            Some(before),
            Some(after),
        );
        Ok(())
    }

    /// Says that the contents at `uri` changed: sends a [`ChangeKind::Updated`] event named
    /// `uri` (servers turn it into `notifications/resources/updated` for the sessions
    /// subscribed to it). `uri` need not be a registered key: an instance of a template is
    /// named by its own URI. Returns whether an enabled resource resolves `uri`; nothing is
    /// sent when none does.
    ///
    /// ```
    /// use toolwright_core::Resource;
    /// use toolwright_runtime::ToolRegistry;
    /// use toolwright_runtime::registry::{ChangeKind, Primitive};
    ///
    /// let registry = ToolRegistry::new();
    /// registry.register_resource(Resource::builder("note", "notes://{id}")
    ///     .handler(|_, _| async { Ok("text") }).build().unwrap()).unwrap();
    /// let mut changes = registry.subscribe_changes();
    /// assert!(registry.notify_resource_updated("notes://7"));
    /// assert!(!registry.notify_resource_updated("other://7"));
    /// let change = changes.try_recv().unwrap();
    /// assert_eq!((change.kind, change.primitive, change.name.as_str()), (ChangeKind::Updated, Primitive::Resource, "notes://7"));
    /// assert!(changes.try_recv().is_err());
    /// ```
    pub fn notify_resource_updated(&self, uri: &str) -> bool {
        let Some((resource, _)) = self.resolve_resource(uri) else {
            return false;
        };
        let mut state = self.write();
        let current = state
            .resources
            .get(resource.uri().as_str())
            .map(resource_state);
        self.emit_primitive(
            &mut state,
            ChangeKind::Updated,
            Primitive::Resource,
            uri,
            current.clone(),
            current,
        );
        true
    }
}

impl ToolRegistry {
    /// Whether a set's bound prompts and resources may take their places: each name (URI) is
    /// free or holds the same definition (the link-time form of the same method).
    pub(super) fn check_set_primitives(
        &self,
        prompts: &[Prompt],
        resources: &[Resource],
    ) -> Result<(), RegistryError> {
        let state = self.read();
        for prompt in prompts {
            if let Some(existing) = state.prompts.get(prompt.name())
                && !existing.item.same_definition(prompt)
            {
                return Err(RegistryError::PrimitiveConflict {
                    primitive: Primitive::Prompt,
                    key: prompt.name().to_owned(),
                    version: prompt.version().map(str::to_owned),
                    first: Box::new(existing.item.source().clone()),
                    second: Box::new(prompt.source().clone()),
                });
            }
        }
        for resource in resources {
            let key = resource.uri().as_str();
            if let Some(existing) = state.resources.get(key)
                && !existing.item.same_definition(resource)
            {
                return Err(RegistryError::PrimitiveConflict {
                    primitive: Primitive::Resource,
                    key: key.to_owned(),
                    version: resource.version().map(str::to_owned),
                    first: Box::new(existing.item.source().clone()),
                    second: Box::new(resource.source().clone()),
                });
            }
        }
        Ok(())
    }

    /// Puts a set's bound prompts and resources in, replacing their link-time forms (keeping
    /// their enabled flags), one event each.
    pub(super) fn bind_set_primitives(&self, prompts: Vec<Prompt>, resources: Vec<Resource>) {
        let mut state = self.write();
        let state: &mut State = &mut state;
        for prompt in prompts {
            let key = prompt.name().to_owned();
            let before = state.prompts.get(&key);
            let entry = Entry {
                enabled: before.is_none_or(|e| e.enabled),
                created_at: self.now(),
                item: prompt,
            };
            let (kind, before) = match before {
                Some(e) => (ChangeKind::Replaced, Some(prompt_state(e))),
                None => (ChangeKind::Added, None),
            };
            let after = prompt_state(&entry);
            state.prompts.insert(key.clone(), entry);
            self.emit_primitive(state, kind, Primitive::Prompt, &key, before, Some(after));
        }
        for resource in resources {
            let key = resource.uri().as_str().to_owned();
            let before = state.resources.get(&key);
            let entry = Entry {
                enabled: before.is_none_or(|e| e.enabled),
                created_at: self.now(),
                item: resource,
            };
            let (kind, before) = match before {
                Some(e) => (ChangeKind::Replaced, Some(resource_state(e))),
                None => (ChangeKind::Added, None),
            };
            let after = resource_state(&entry);
            state.resources.insert(key.clone(), entry);
            self.emit_primitive(state, kind, Primitive::Resource, &key, before, Some(after));
        }
    }
}

fn enabled_kind(enabled: bool) -> ChangeKind {
    if enabled {
        ChangeKind::Enabled
    } else {
        ChangeKind::Disabled
    }
}
