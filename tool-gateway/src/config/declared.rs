//! The resources and prompts a configuration declares (`[[resources]]`, `[[prompts]]`):
//! checked and built at load (their files read once, beside the configuration only, bounded),
//! registered by [`GatewayConfig::register_declared`]. A template's variables and a prompt's
//! arguments are substituted into text in one pass, each value only at its own place: a
//! value is never read as a placeholder again, and in `json` it is a JSON string's content,
//! escaped when the document is serialized.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine;
use toolwright_core::{
    Completions, Content, EmbeddedResource, Image, Prompt, PromptArgument, PromptMessage,
    PromptRole, Resource, ResourceContents, ToolError, ToolSource, UriTemplate,
};
use toolwright_runtime::{RegistryError, ToolRegistry};

use super::error::ConfigError;
use super::file::{
    Declared, GatewayConfig, MessageConfig, PromptConfig, ResourceConfig, RoleConfig, line_of,
};

/// The most bytes of a file a declaration names (`file`, `image`).
pub(crate) const MAX_DECLARED_FILE_BYTES: u64 = 8 << 20;

/// A declared resource's body.
enum Body {
    Text(String),
    Json(serde_json::Value),
    Bytes(Vec<u8>),
}

/// A declared prompt message's content, before its arguments are substituted.
enum Message {
    Text(String),
    Image(Image),
    Resource {
        uri: String,
        text: String,
        mime_type: Option<String>,
    },
}

impl GatewayConfig {
    /// Registers the resources and prompts the file declares into `registry`; how many.
    ///
    /// ```
    /// use toolwright_gateway::GatewayConfig;
    /// use toolwright_runtime::{ToolFilter, ToolRegistry};
    ///
    /// let dir = std::env::temp_dir().join(format!("tw-declared-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("gateway.toml");
    /// std::fs::write(&path, "[[resources]]\nuri = \"test://hello\"\nname = \"hello\"\ntext = \"hi\"\n").unwrap();
    /// let config = GatewayConfig::load(&path).unwrap();
    /// let registry = ToolRegistry::new();
    /// assert_eq!(config.register_declared(&registry).unwrap(), 1);
    /// assert_eq!(registry.resources(&ToolFilter::new()).len(), 1);
    /// ```
    ///
    /// # Errors
    ///
    /// [`RegistryError::PrimitiveConflict`] when the registry holds another definition at a
    /// declared URI or name (the error names both places).
    pub fn register_declared(&self, registry: &ToolRegistry) -> Result<usize, RegistryError> {
        for resource in &self.declared.resources {
            registry.register_resource(resource.clone())?;
        }
        for prompt in &self.declared.prompts {
            registry.register_prompt(prompt.clone())?;
        }
        Ok(self.declared.resources.len() + self.declared.prompts.len())
    }
}

/// Builds the declarations of `config` (read from `text` at `path`, files taken from `base`)
/// and checks that no two share a URI or name.
pub(crate) fn build(
    config: &GatewayConfig,
    path: &Path,
    text: &str,
    base: &Path,
) -> Result<Declared, ConfigError> {
    let invalid = |line: usize, message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: Some(line),
        message,
    };
    let source = |line: usize, table: &'static str| ToolSource {
        crate_name: Cow::Borrowed("configuration"),
        module_path: Cow::Borrowed(table),
        file: Cow::Owned(path.display().to_string()),
        line: u32::try_from(line).unwrap_or(u32::MAX),
    };
    // The configuration and its secret files are never served, whatever a declaration names.
    let secrets: Vec<PathBuf> = std::iter::once(path.to_path_buf())
        .chain(config.secret_files(None).into_iter().map(|(_, file)| file))
        .filter_map(|file| std::fs::canonicalize(file).ok())
        .collect();
    let files = Files {
        base,
        secrets: &secrets,
    };
    // Two declarations of one URI or name are refused as the registry refuses them.
    let scratch = ToolRegistry::new();
    let mut declared = Declared::default();
    for resource in &config.resources {
        let line = line_of(text, resource.span().start);
        let built = build_resource(resource.get_ref(), &files, source(line, "[[resources]]"))
            .map_err(|message| invalid(line, message))?;
        scratch
            .register_resource(built.clone())
            .map_err(|error| invalid(line, error.to_string()))?;
        declared.resources.push(built);
    }
    for prompt in &config.prompts {
        let line = line_of(text, prompt.span().start);
        let built = build_prompt(prompt.get_ref(), &files, source(line, "[[prompts]]"))
            .map_err(|message| invalid(line, message))?;
        scratch
            .register_prompt(built.clone())
            .map_err(|error| invalid(line, error.to_string()))?;
        declared.prompts.push(built);
    }
    Ok(declared)
}

/// Where declared files are read from, and what they may not be.
struct Files<'a> {
    /// The configuration's directory.
    base: &'a Path,
    /// The configuration and its secret files, resolved.
    secrets: &'a [PathBuf],
}

fn build_resource(
    config: &ResourceConfig,
    files: &Files<'_>,
    source: ToolSource,
) -> Result<Resource, String> {
    let uri = &config.uri;
    let variables: Vec<String> = if toolwright_names::uri_template::is_template(uri) {
        UriTemplate::parse(uri)
            .map_err(|error| format!("the resource's `uri` `{uri}`: {error}"))?
            .variables()
            .map(|variable| variable.name.clone())
            .collect()
    } else {
        Vec::new()
    };
    let given = [
        config.text.is_some(),
        config.json.is_some(),
        config.file.is_some(),
        config.base64.is_some(),
    ];
    if given.into_iter().filter(|given| *given).count() != 1 {
        return Err(format!(
            "the resource `{uri}` needs exactly one of `text`, `json`, `file` (a path beside \
             the configuration) or `base64`"
        ));
    }
    let (body, mime_type) = if let Some(text) = &config.text {
        check_placeholders(text, &variables, "`text`", "variable of the URI")?;
        (Body::Text(text.clone()), config.mime_type.clone())
    } else if let Some(json) = &config.json {
        let value = json_of(json).ok_or_else(|| {
            format!("the resource `{uri}`'s `json` holds a number JSON cannot (NaN or infinite)")
        })?;
        check_json_placeholders(&value, &variables)?;
        let mime = config
            .mime_type
            .clone()
            .unwrap_or_else(|| "application/json".to_owned());
        (Body::Json(value), Some(mime))
    } else if let Some(file) = &config.file {
        let bytes = read_beside(files, file)?;
        let mime = config.mime_type.clone().or_else(|| mime_of(file));
        (Body::Bytes(bytes), mime)
    } else {
        let encoded = config.base64.as_deref().unwrap_or_default();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|error| format!("the resource `{uri}`'s `base64` does not decode: {error}"))?;
        (Body::Bytes(bytes), config.mime_type.clone())
    };
    for variable in config.completions.keys() {
        if !variables.contains(variable) {
            return Err(format!(
                "`completions` names `{variable}`, which is not a variable of the URI `{uri}`"
            ));
        }
    }
    let body = Arc::new(body);
    let mut builder = Resource::builder(config.name.clone(), uri.clone()).source(source);
    if let Some(title) = &config.title {
        builder = builder.title(title.clone());
    }
    if let Some(description) = &config.description {
        builder = builder.description(description.clone());
    }
    if let Some(mime) = &mime_type {
        builder = builder.mime_type(mime.clone());
    }
    if let Some(safety) = config.safety {
        builder = builder.safety(safety);
    }
    for (variable, values) in &config.completions {
        let values = values.clone();
        builder = builder.completion(variable.clone(), move |request| {
            Completions::matching(values.iter().map(String::as_str), &request.value)
        });
    }
    builder
        .handler(move |request, _ctx| {
            let body = Arc::clone(&body);
            async move {
                let value = |name: &str| request.variables.get(name);
                let contents = match &*body {
                    Body::Text(text) => {
                        ResourceContents::text(&request.uri, substitute(text, value))
                    }
                    Body::Json(json) => {
                        let text = serde_json::to_string(&substitute_json(json, &value)).map_err(
                            |error| ToolError::with_context("the JSON did not serialize", error),
                        )?;
                        ResourceContents::text(&request.uri, text)
                    }
                    Body::Bytes(bytes) => ResourceContents::blob(&request.uri, bytes.clone()),
                };
                Ok(contents)
            }
        })
        .build()
        .map_err(|error| error.to_string())
}

fn build_prompt(
    config: &PromptConfig,
    files: &Files<'_>,
    source: ToolSource,
) -> Result<Prompt, String> {
    let name = &config.name;
    let arguments: Vec<String> = config
        .arguments
        .iter()
        .map(|arg| arg.name.clone())
        .collect();
    if config.messages.is_empty() {
        return Err(format!(
            "the prompt `{name}` needs at least one of `messages`"
        ));
    }
    let mut messages = Vec::new();
    for message in &config.messages {
        messages.push((
            role(message),
            build_message(message, files, &arguments, name)?,
        ));
    }
    let messages = Arc::new(messages);
    let mut builder = Prompt::builder(name.clone()).source(source);
    if let Some(title) = &config.title {
        builder = builder.title(title.clone());
    }
    if let Some(description) = &config.description {
        builder = builder.description(description.clone());
    }
    for argument in &config.arguments {
        let mut declared = PromptArgument::new(argument.name.clone()).required(argument.required);
        if let Some(description) = &argument.description {
            declared = declared.description(description.clone());
        }
        builder = builder.argument(declared);
        if !argument.completions.is_empty() {
            let values = argument.completions.clone();
            builder = builder.completion(argument.name.clone(), move |request| {
                Completions::matching(values.iter().map(String::as_str), &request.value)
            });
        }
    }
    builder
        .handler(move |args, _ctx| {
            let messages = Arc::clone(&messages);
            async move {
                // An optional argument not given is empty text.
                let value = |name: &str| Some(args.get(name).map_or("", String::as_str));
                let out: Vec<PromptMessage> = messages
                    .iter()
                    .map(|(role, message)| {
                        let content = match message {
                            Message::Text(text) => Content::from(substitute(text, value)),
                            Message::Image(image) => Content::Image(image.clone()),
                            Message::Resource {
                                uri,
                                text,
                                mime_type,
                            } => {
                                let mut embedded = EmbeddedResource::text(
                                    substitute(uri, value),
                                    substitute(text, value),
                                );
                                if let Some(mime) = mime_type {
                                    embedded = embedded.with_mime_type(mime.clone());
                                }
                                Content::from(embedded)
                            }
                        };
                        PromptMessage::new(*role, content)
                    })
                    .collect();
                Ok::<_, ToolError>(out)
            }
        })
        .build()
        .map_err(|error| error.to_string())
}

fn role(message: &MessageConfig) -> PromptRole {
    match message.role {
        RoleConfig::User => PromptRole::User,
        RoleConfig::Assistant => PromptRole::Assistant,
    }
}

fn build_message(
    message: &MessageConfig,
    files: &Files<'_>,
    arguments: &[String],
    prompt: &str,
) -> Result<Message, String> {
    let what = "argument of the prompt";
    match (&message.text, &message.image, &message.resource) {
        (Some(text), None, None) => {
            check_placeholders(text, arguments, "`text`", what)?;
            Ok(Message::Text(text.clone()))
        }
        (None, Some(file), None) => {
            let bytes = read_beside(files, file)?;
            let mime = message
                .mime_type
                .clone()
                .or_else(|| mime_of(file))
                .ok_or_else(|| {
                    format!(
                        "the image `{}` of the prompt `{prompt}` needs a `mime_type` (its \
                     extension is not .png, .jpg, .gif or .webp)",
                        file.display()
                    )
                })?;
            Ok(Message::Image(Image::new(bytes, mime)))
        }
        (None, None, Some(resource)) => {
            check_placeholders(&resource.uri, arguments, "`resource.uri`", what)?;
            check_placeholders(&resource.text, arguments, "`resource.text`", what)?;
            Ok(Message::Resource {
                uri: resource.uri.clone(),
                text: resource.text.clone(),
                mime_type: resource.mime_type.clone(),
            })
        }
        _ => Err(format!(
            "each message of the prompt `{prompt}` is exactly one of `text`, `image` (a file \
             beside the configuration) or `resource` (`{{ uri, text }}`)"
        )),
    }
}

/// The `{name}` placeholders of `text` (a name is letters, digits and `_`; other braces are
/// text, as in JSON).
fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.split('{').skip(1).filter_map(|after| {
        let (name, _) = after.split_once('}')?;
        is_name(name).then_some(name)
    })
}

fn is_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Refuses a placeholder of `text` that names none of `known`.
fn check_placeholders(text: &str, known: &[String], key: &str, what: &str) -> Result<(), String> {
    match placeholders(text).find(|name| !known.iter().any(|known| known == name)) {
        Some(unknown) => {
            let hint = toolwright_names::did_you_mean(unknown, known.iter().map(String::as_str))
                .map(|close| format!("; did you mean `{{{close}}}`?"))
                .unwrap_or_default();
            Err(format!(
                "{key} uses `{{{unknown}}}`, which names no {what}{hint}"
            ))
        }
        None => Ok(()),
    }
}

fn check_json_placeholders(value: &serde_json::Value, known: &[String]) -> Result<(), String> {
    match value {
        serde_json::Value::String(text) => {
            check_placeholders(text, known, "`json`", "variable of the URI")
        }
        serde_json::Value::Array(items) => items
            .iter()
            .try_for_each(|item| check_json_placeholders(item, known)),
        serde_json::Value::Object(map) => map
            .values()
            .try_for_each(|item| check_json_placeholders(item, known)),
        _ => Ok(()),
    }
}

/// `text` with each `{name}` that `value` knows replaced by its value, in one pass: a value
/// is copied as it is and never read for placeholders itself.
pub(crate) fn substitute<'v>(text: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let known = after
            .split_once('}')
            .filter(|(name, _)| is_name(name))
            .and_then(|(name, tail)| Some((value(name)?, tail)));
        match known {
            Some((found, tail)) => {
                out.push_str(found);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `json` with its string values substituted (keys and other values kept).
fn substitute_json<'v>(
    json: &serde_json::Value,
    value: &impl Fn(&str) -> Option<&'v str>,
) -> serde_json::Value {
    match json {
        serde_json::Value::String(text) => serde_json::Value::String(substitute(text, value)),
        serde_json::Value::Array(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|item| substitute_json(item, value))
                .collect(),
        ),
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), substitute_json(item, value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A TOML value as JSON: a date is its text (serde would make it a private table).
fn json_of(value: &toml::Value) -> Option<serde_json::Value> {
    Some(match value {
        toml::Value::String(text) => serde_json::Value::String(text.clone()),
        toml::Value::Integer(n) => serde_json::Value::from(*n),
        toml::Value::Float(x) => serde_json::Value::Number(serde_json::Number::from_f64(*x)?),
        toml::Value::Boolean(on) => serde_json::Value::Bool(*on),
        toml::Value::Datetime(date) => serde_json::Value::String(date.to_string()),
        toml::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(json_of).collect::<Option<_>>()?)
        }
        toml::Value::Table(table) => serde_json::Value::Object(
            table
                .iter()
                .map(|(key, item)| Some((key.clone(), json_of(item)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

/// A MIME type from a file's extension, for the common images and text.
fn mime_of(file: &Path) -> Option<String> {
    let extension = file.extension()?.to_str()?.to_ascii_lowercase();
    let mime = match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "json" => "application/json",
        _ => return None,
    };
    Some(mime.to_owned())
}

/// The bytes of `file` (relative to `base`, the configuration's directory), read once: a
/// regular file inside that directory, at most [`MAX_DECLARED_FILE_BYTES`]. A link that
/// leads out is refused (it could be pointed at anything of ours later), and so is a FIFO,
/// device or directory (opened without blocking, checked on the opened file).
fn read_beside(files: &Files<'_>, file: &Path) -> Result<Vec<u8>, String> {
    let shown = file.display();
    let base = files.base;
    let base = std::fs::canonicalize(base).map_err(|error| {
        format!(
            "cannot resolve the configuration's directory `{}`: {error}",
            base.display()
        )
    })?;
    let joined: PathBuf = base.join(file);
    let real = std::fs::canonicalize(&joined).map_err(|error| {
        format!(
            "cannot read the file `{shown}` (from `{}`): {error}",
            base.display()
        )
    })?;
    if !real.starts_with(&base) {
        return Err(format!(
            "the file `{shown}` leads to `{}`, outside the configuration's directory `{}`: \
             files served are read from beside the configuration only; copy it there",
            real.display(),
            base.display()
        ));
    }
    if files.secrets.contains(&real) {
        return Err(format!(
            "the file `{shown}` is the configuration or one of its secret files (a token or \
             client secret), which are never served"
        ));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    let opened = options
        .open(&real)
        .map_err(|error| format!("cannot open the file `{shown}`: {error}"))?;
    let metadata = opened
        .metadata()
        .map_err(|error| format!("cannot read the file `{shown}`: {error}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "`{shown}` is not a regular file (a FIFO, device or directory): give a file"
        ));
    }
    // A second name of a file (a hard link) could be a secret's under another path; the
    // path checks above cannot see it, the link count can.
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if metadata.nlink() > 1 {
            return Err(format!(
                "the file `{shown}` has {} names (hard links): a declared file must have one,                  so that it cannot be a secret file under another name; copy it",
                metadata.nlink()
            ));
        }
    }
    if metadata.len() > MAX_DECLARED_FILE_BYTES {
        return Err(format!(
            "the file `{shown}` has {} bytes, more than the {MAX_DECLARED_FILE_BYTES} a \
             declared resource or image may have",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    opened
        .take(MAX_DECLARED_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read the file `{shown}`: {error}"))?;
    if bytes.len() as u64 > MAX_DECLARED_FILE_BYTES {
        return Err(format!(
            "the file `{shown}` grew past {MAX_DECLARED_FILE_BYTES} bytes"
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
#[path = "declared_tests.rs"]
mod tests;
