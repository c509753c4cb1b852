//! `[serve]` of a gateway configuration (`--config`): `serve`'s own options in the file,
//! named as on the command line without the dashes, so one file describes the whole
//! server. Options given on the command line win over the file's.
//!
//! ```toml
//! [serve]
//! http = "127.0.0.1:8080"
//! max_safety = "cautious"
//! allow_origin = ["https://app.example.com"]   # repeated options take lists
//! insecure_no_auth = false                     # flags are true or false
//!
//! [serve.code_mode]                            # a switch with its options:
//! max_calls = 20                               # --code-mode --code-mode-max-calls 20
//! ```
//!
//! The file's options become command-line arguments, checked by the same parser; a mistake
//! names the file and the line of its key.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

use clap::{CommandFactory, FromArgMatches};
use serde::Deserialize;
use toml::Spanned;
use toolwright_gateway::config::line_of;

use crate::cli::Cli;
use crate::ending::UsageError;

/// The `[serve]` table of a configuration, each key with its place.
#[derive(Deserialize)]
struct ServeSection {
    #[serde(default)]
    serve: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// The tables in `[serve]`, each key with its place (the other values are skipped).
#[derive(Deserialize)]
struct ServeTables {
    #[serde(default)]
    serve: BTreeMap<String, TableKeys>,
}

/// The keys of a table, with their places; empty for a value that is not a table.
#[derive(Default)]
struct TableKeys(Vec<Spanned<String>>);

impl<'de> Deserialize<'de> for TableKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let keys = BTreeMap::<Spanned<String>, serde::de::IgnoredAny>::deserialize(deserializer)
            .map(|table| table.into_keys().collect())
            .unwrap_or_default();
        Ok(TableKeys(keys))
    }
}

/// One option of the file, as arguments, with the line of its key.
struct FileOption {
    key: String,
    long: String,
    line: usize,
    args: Vec<OsString>,
}

/// The command line `argv` of `toolwright serve --config FILE ...` with the options of
/// `FILE`'s `[serve]` table added, parsed again; `None` when `argv` is not such a command
/// or the table is empty or missing.
///
/// # Errors
///
/// A key `serve` does not take, a value of the wrong kind, or an option's value the parser
/// refuses, each named with the file and line.
pub(crate) fn reparse(argv: &[OsString], config: &Path) -> Result<Option<Cli>, UsageError> {
    let text = std::fs::read_to_string(config).map_err(|error| {
        UsageError(format!(
            "cannot read the configuration `{}`: {error}",
            config.display()
        ))
    })?;
    // The rest of the file is checked by the gateway's own loading.
    let Ok(section) = toml::from_str::<ServeSection>(&text) else {
        return Ok(None);
    };
    if section.serve.is_empty() {
        return Ok(None);
    }
    let command = Cli::command();
    let Some(serve) = command.find_subcommand("serve") else {
        return Ok(None);
    };
    // The keys of each table in `[serve]` (`[serve.code_mode]`), with their places.
    let tables = toml::from_str::<ServeTables>(&text)
        .map(|tables| tables.serve)
        .unwrap_or_default();
    let mut options = Vec::new();
    for (key, value) in &section.serve {
        let line = line_of(&text, key.span().start);
        let name = key.get_ref().replace('-', "_");
        if name == "config" {
            return Err(UsageError(format!(
                "{}:{line}: `[serve]` cannot name another configuration (`config`)",
                config.display()
            )));
        }
        let toml::Value::Table(_) = value.get_ref() else {
            options.push(file_option(
                serve,
                config,
                &name,
                None,
                value.get_ref(),
                line,
            )?);
            continue;
        };
        // A table of a switch's options (`[serve.code_mode]`): the switch on, each key the
        // option `SWITCH_KEY`. Only a switch that has such options takes a table.
        let long = name.replace('_', "-");
        let prefix = format!("{long}-");
        let switch = serve
            .get_arguments()
            .find(|arg| arg.get_long() == Some(long.as_str()));
        let has_options = serve
            .get_arguments()
            .any(|arg| arg.get_long().is_some_and(|long| long.starts_with(&prefix)));
        match switch {
            Some(arg) if !arg.get_action().takes_values() && has_options => {}
            other => {
                let takes = match other {
                    Some(arg) if !arg.get_action().takes_values() => "true or false",
                    Some(_) => "a value",
                    None => {
                        return Err(UsageError(format!(
                            "{}:{line}: `serve` has no option `{name}` (see `toolwright serve \
                             --help`)",
                            config.display()
                        )));
                    }
                };
                return Err(UsageError(format!(
                    "{}:{line}: `{name}` takes {takes}, not a table",
                    config.display()
                )));
            }
        }
        options.push(FileOption {
            key: name.clone(),
            long: long.clone(),
            line,
            args: vec![OsString::from(format!("--{long}"))],
        });
        let keys = tables.get(key.get_ref()).map(|table| &table.0);
        let toml::Value::Table(table) = value.get_ref() else {
            continue;
        };
        for (inner, inner_value) in table {
            let inner_line = keys
                .and_then(|keys| keys.iter().find(|spanned| spanned.get_ref() == inner))
                .map_or(line, |spanned| line_of(&text, spanned.span().start));
            options.push(file_option(
                serve,
                config,
                &name,
                Some(&inner.replace('-', "_")),
                inner_value,
                inner_line,
            )?);
        }
    }
    let Some(at) = argv.iter().skip(1).position(|arg| arg == "serve") else {
        return Ok(None);
    };
    let mut args: Vec<OsString> = argv[..at + 2].to_vec();
    for option in &options {
        args.extend(option.args.iter().cloned());
    }
    args.extend(argv[at + 2..].iter().cloned());
    let matches = Cli::command()
        .args_override_self(true)
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    match matches {
        Ok(cli) => Ok(Some(cli)),
        Err(error) => {
            let rendered = error.render().to_string();
            // The error's paragraph, without the usage that follows it.
            let message = rendered
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
                .trim_start_matches("error: ")
                .to_owned();
            // The option clap names, as `--max-safety <LEVEL>`.
            let named = match error.get(clap::error::ContextKind::InvalidArg) {
                Some(clap::error::ContextValue::String(arg)) => Some(arg.clone()),
                Some(clap::error::ContextValue::Strings(args)) => args.first().cloned(),
                _ => None,
            };
            let named = named
                .as_deref()
                .and_then(|arg| arg.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            // Or the option that needs a missing switch (`code_mode_max_calls` without
            // `code_mode`).
            let culprit = options
                .iter()
                .find(|option| named == format!("--{}", option.long))
                .or_else(|| {
                    options.iter().find(|option| {
                        !named.is_empty()
                            && format!("--{}", option.long).starts_with(&format!("{named}-"))
                    })
                });
            Err(UsageError(match culprit {
                Some(option) => format!(
                    "{}:{}: `[serve]` `{}`: {message}",
                    config.display(),
                    option.line,
                    option.key
                ),
                None => format!("{}: with `[serve]`'s options: {message}", config.display()),
            }))
        }
    }
}

/// The arguments of one option of `[serve]`: `name = value`, or `inner = value` in the
/// table `[serve.name]` (the option `name_inner`); a mistake names the file and `line`.
fn file_option(
    serve: &clap::Command,
    config: &Path,
    name: &str,
    inner: Option<&str>,
    value: &toml::Value,
    line: usize,
) -> Result<FileOption, UsageError> {
    let at = format!("{}:{line}", config.display());
    let (key, option) = match inner {
        Some(inner) => (format!("{name}.{inner}"), format!("{name}_{inner}")),
        None => (name.to_owned(), name.to_owned()),
    };
    let long = option.replace('_', "-");
    let Some(arg) = serve
        .get_arguments()
        .find(|arg| arg.get_long() == Some(long.as_str()))
    else {
        // Within a table, its own options (`max_calls` of `[serve.code_mode]`).
        let prefix = inner.map(|_| format!("{}-", name.replace('_', "-")));
        let known: Vec<String> = serve
            .get_arguments()
            .filter_map(|arg| arg.get_long())
            .filter(|long| *long != "config" && *long != "help")
            .filter_map(|long| match &prefix {
                Some(prefix) => long.strip_prefix(prefix.as_str()),
                None => Some(long),
            })
            .map(|long| long.replace('-', "_"))
            .collect();
        let asked = inner.unwrap_or(name);
        let hint = toolwright_names::did_you_mean(asked, known.iter().map(String::as_str))
            .map(|close| format!("; did you mean `{close}`?"))
            .unwrap_or_default();
        let table = match inner {
            Some(_) => format!("`[serve.{name}]`"),
            None => "`serve`".to_owned(),
        };
        return Err(UsageError(format!(
            "{at}: {table} has no option `{asked}`{hint} (see `toolwright serve --help`)"
        )));
    };
    let takes_value = arg.get_action().takes_values();
    let repeated = matches!(arg.get_action(), clap::ArgAction::Append);
    let flag = format!("--{long}");
    let wrong = |expected: &str| {
        UsageError(format!(
            "{at}: `{key}` takes {expected}, not {}",
            describe(value)
        ))
    };
    let scalar = |value: &toml::Value| match value {
        toml::Value::String(text) => Some(OsString::from(text)),
        toml::Value::Integer(n) => Some(OsString::from(n.to_string())),
        toml::Value::Float(x) => Some(OsString::from(x.to_string())),
        _ => None,
    };
    let args = match (value, takes_value) {
        (toml::Value::Boolean(on), false) => {
            if *on {
                vec![OsString::from(&flag)]
            } else {
                Vec::new()
            }
        }
        (_, false) => return Err(wrong("true or false")),
        (toml::Value::Array(items), true) if repeated => {
            let mut args = Vec::new();
            for item in items {
                let item = scalar(item).ok_or_else(|| wrong("a list of values"))?;
                args.push(OsString::from(&flag));
                args.push(item);
            }
            args
        }
        (value, true) => {
            let single = scalar(value).ok_or_else(|| {
                wrong(if repeated {
                    "a value or a list of values"
                } else {
                    "one value"
                })
            })?;
            vec![OsString::from(&flag), single]
        }
    };
    Ok(FileOption {
        key,
        long,
        line,
        args,
    })
}

/// A TOML value's kind, for messages.
fn describe(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "a number",
        toml::Value::Float(_) => "a number",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}
