//! URI templates of MCP resources: the subset of RFC 6570 a resource needs, parsed the same
//! way by the `#[resource]` macro at compile time and by the registry at run time.
//!
//! - `{var}` (simple expansion) matches one path segment: never a `/`, also not an encoded
//!   one (`%2F`), never empty, never `.` or `..` (also encoded: `%2e%2e`).
//! - `{+var}` (reserved expansion) may hold `/` (file paths), but none of its segments may be
//!   empty, `.` or `..`, raw or encoded.
//!
//! Matched values are percent-decoded; a value that is not UTF-8 once decoded, or that holds
//! a control character, does not match. A URI longer than [`MAX_URI_LEN`] matches nothing.
//!
//! ```
//! use toolwright_names::uri_template::UriTemplate;
//!
//! let notes = UriTemplate::parse("notes://{id}").unwrap();
//! assert_eq!(notes.matches("notes://a%20b").unwrap().get("id"), Some("a b"));
//! assert!(notes.matches("notes://a%2Fb").is_none()); // one segment only
//! let files = UriTemplate::parse("file:///{+path}").unwrap();
//! assert_eq!(files.matches("file:///src/lib.rs").unwrap().get("path"), Some("src/lib.rs"));
//! assert!(files.matches("file:///src/../../etc/passwd").is_none());
//! ```

// The layers, lowest first (no module imports one listed after it): tests.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

/// The longest URI a template matches, in bytes (longer ones match nothing: a client cannot
/// make the matcher work on megabytes).
pub const MAX_URI_LEN: usize = 8 * 1024;

/// The most variables a template may have.
pub const MAX_VARIABLES: usize = 16;

/// Why a string is not a URI template this crate accepts. Each message says what to write
/// instead; `at` is the byte offset of the problem in the template.
///
/// ```
/// use toolwright_names::uri_template::{UriTemplate, UriTemplateError};
///
/// let err = UriTemplate::parse("notes://{id").unwrap_err();
/// assert!(matches!(err, UriTemplateError::Unclosed { at: 8 }));
/// assert!(err.to_string().contains("`}`"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// The template is empty.
    Empty,
    /// The template does not start with a scheme (`notes:`, `file:`...).
    MissingScheme,
    /// A `{` has no `}`.
    Unclosed {
        /// Where the `{` is.
        at: usize,
    },
    /// A `}` has no `{`.
    StrayClose {
        /// Where the `}` is.
        at: usize,
    },
    /// A variable's name is not `[A-Za-z_][A-Za-z0-9_]*`.
    InvalidName {
        /// The name as written.
        name: String,
        /// Where the expression starts.
        at: usize,
    },
    /// An RFC 6570 operator other than `+` (`{#x}`, `{?x}`, `{/x}`...).
    UnsupportedOperator {
        /// The operator.
        operator: char,
        /// Where the expression starts.
        at: usize,
    },
    /// An expression with several variables (`{a,b}`) or a modifier (`{a*}`, `{a:3}`).
    UnsupportedExpression {
        /// The expression as written, braces included.
        expression: String,
        /// Where it starts.
        at: usize,
    },
    /// A variable appears twice.
    DuplicateVariable {
        /// Its name.
        name: String,
        /// Where the second one starts.
        at: usize,
    },
    /// Two variables with nothing between them: no URI says where one ends.
    AdjacentVariables {
        /// Where the second one starts.
        at: usize,
    },
    /// More than [`MAX_VARIABLES`] variables.
    TooManyVariables,
    /// The template is longer than [`MAX_URI_LEN`].
    TooLong,
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UriTemplateError::Empty => f.write_str("the URI template is empty"),
            UriTemplateError::MissingScheme => f.write_str(
                "the URI template does not start with a scheme: write it as `scheme://...` (e.g. `notes://{id}`)",
            ),
            UriTemplateError::Unclosed { at } => {
                write!(f, "the `{{` at byte {at} has no `}}`: close the variable")
            }
            UriTemplateError::StrayClose { at } => write!(
                f,
                "the `}}` at byte {at} closes no `{{`: remove it or open a variable before it"
            ),
            UriTemplateError::InvalidName { name, at } => write!(
                f,
                "the variable `{name}` at byte {at} is not a valid name: use letters, digits and `_`, not starting with a digit"
            ),
            UriTemplateError::UnsupportedOperator { operator, at } => write!(
                f,
                "the operator `{operator}` at byte {at} is not supported: use `{{name}}` for one path segment or `{{+name}}` for a path that may hold `/`"
            ),
            UriTemplateError::UnsupportedExpression { expression, at } => write!(
                f,
                "`{expression}` at byte {at} is not supported: one variable per `{{}}`, without modifiers"
            ),
            UriTemplateError::DuplicateVariable { name, at } => write!(
                f,
                "the variable `{name}` appears twice (again at byte {at}): give each its own name"
            ),
            UriTemplateError::AdjacentVariables { at } => write!(
                f,
                "the variable at byte {at} follows another with nothing between them: put a literal (`/`, `-`...) between them"
            ),
            UriTemplateError::TooManyVariables => {
                write!(f, "the URI template has more than {MAX_VARIABLES} variables")
            }
            UriTemplateError::TooLong => {
                write!(f, "the URI template is longer than {MAX_URI_LEN} bytes")
            }
        }
    }
}

impl std::error::Error for UriTemplateError {}

/// One variable of a template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// `{+name}`: may hold `/`.
    pub reserved: bool,
    /// The byte offset of its `{` in the template (the macro points its errors there).
    pub at: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Part {
    Literal(String),
    Var(usize),
}

/// A parsed URI template (see the [module docs](self)).
///
/// ```
/// use toolwright_names::uri_template::{UriTemplate, UriVariables};
///
/// let t = UriTemplate::parse("notes://{folder}/{id}.md").unwrap();
/// assert_eq!(t.variables().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["folder", "id"]);
/// let vars = t.matches("notes://work/a.b.md").unwrap();
/// assert_eq!((vars.get("folder"), vars.get("id")), (Some("work"), Some("a.b")));
/// assert_eq!(t.expand(&vars), "notes://work/a.b.md");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    variables: Vec<Variable>,
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Whether `s` is a template rather than a fixed URI (it has a `{`).
///
/// ```
/// assert!(toolwright_names::uri_template::is_template("notes://{id}"));
/// assert!(!toolwright_names::uri_template::is_template("notes://all"));
/// ```
pub fn is_template(s: &str) -> bool {
    s.contains('{')
}

/// Checks the scheme at the start of a URI or template: `[A-Za-z][A-Za-z0-9+.-]*:`.
///
/// ```
/// assert!(toolwright_names::uri_template::has_scheme("file:///a"));
/// assert!(!toolwright_names::uri_template::has_scheme("/a"));
/// ```
pub fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl UriTemplate {
    /// Parses `template`.
    ///
    /// # Errors
    ///
    /// A [`UriTemplateError`] naming the problem and where it is.
    ///
    /// ```
    /// use toolwright_names::uri_template::UriTemplate;
    /// assert!(UriTemplate::parse("notes://{id}").is_ok());
    /// assert!(UriTemplate::parse("notes://{a}{b}").is_err());
    /// ```
    pub fn parse(template: &str) -> Result<UriTemplate, UriTemplateError> {
        if template.is_empty() {
            return Err(UriTemplateError::Empty);
        }
        if template.len() > MAX_URI_LEN {
            return Err(UriTemplateError::TooLong);
        }
        let first_brace = template.find('{').unwrap_or(template.len());
        if !has_scheme(&template[..first_brace]) {
            return Err(UriTemplateError::MissingScheme);
        }
        let mut parts = Vec::new();
        let mut variables: Vec<Variable> = Vec::new();
        let mut seen = HashSet::new();
        let mut literal = String::new();
        let mut rest = template.char_indices().peekable();
        while let Some((at, c)) = rest.next() {
            match c {
                '}' => return Err(UriTemplateError::StrayClose { at }),
                '{' => {
                    let Some(len) = template[at..].find('}') else {
                        return Err(UriTemplateError::Unclosed { at });
                    };
                    let inner = &template[at + 1..at + len];
                    if inner.contains('{') {
                        return Err(UriTemplateError::Unclosed { at });
                    }
                    // Skip the expression's characters.
                    while rest.next_if(|&(i, _)| i <= at + len).is_some() {}
                    let (reserved, name) = match inner.chars().next() {
                        Some('+') => (true, &inner[1..]),
                        Some(
                            op @ ('#' | '.' | '/' | ';' | '?' | '&' | '=' | ',' | '!' | '@' | '|'),
                        ) => {
                            return Err(UriTemplateError::UnsupportedOperator { operator: op, at });
                        }
                        _ => (false, inner),
                    };
                    if name.contains([',', '*', ':']) {
                        return Err(UriTemplateError::UnsupportedExpression {
                            expression: template[at..=at + len].to_owned(),
                            at,
                        });
                    }
                    if !is_var_name(name) {
                        return Err(UriTemplateError::InvalidName {
                            name: name.to_owned(),
                            at,
                        });
                    }
                    if !seen.insert(name.to_owned()) {
                        return Err(UriTemplateError::DuplicateVariable {
                            name: name.to_owned(),
                            at,
                        });
                    }
                    if literal.is_empty() && matches!(parts.last(), Some(Part::Var(_))) {
                        return Err(UriTemplateError::AdjacentVariables { at });
                    }
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    if variables.len() == MAX_VARIABLES {
                        return Err(UriTemplateError::TooManyVariables);
                    }
                    parts.push(Part::Var(variables.len()));
                    variables.push(Variable {
                        name: name.to_owned(),
                        reserved,
                        at,
                    });
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate {
            source: template.to_owned(),
            parts,
            variables,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Its variables, in the order they appear.
    pub fn variables(&self) -> impl ExactSizeIterator<Item = &Variable> {
        self.variables.iter()
    }

    /// The values of the variables when `uri` is an instance of the template, percent-decoded;
    /// `None` when it is not (see the [module docs](self) for what a value may hold). When
    /// several splits fit, earlier variables take the shortest value; a URI that needs more
    /// than a few thousand tries to decide matches nothing.
    ///
    /// ```
    /// use toolwright_names::uri_template::UriTemplate;
    /// let t = UriTemplate::parse("notes://{id}").unwrap();
    /// assert!(t.matches("notes://").is_none());
    /// assert!(t.matches("notes://..").is_none());
    /// assert!(t.matches("notes://%2e%2E").is_none());
    /// ```
    pub fn matches(&self, uri: &str) -> Option<UriVariables> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut matcher = Matcher {
            template: self,
            uri,
            values: vec![None; self.variables.len()],
            failed: HashSet::new(),
            budget: MATCH_BUDGET,
        };
        if !matcher.match_from(0, 0) {
            return None;
        }
        let map = self
            .variables
            .iter()
            .zip(matcher.values)
            .filter_map(|(var, value)| Some((var.name.clone(), value?)))
            .collect();
        Some(UriVariables(map))
    }

    /// The URI for `values`: `{var}` values percent-encoded but for unreserved characters,
    /// `{+var}` values also keep `/` and the other reserved characters; a variable without a
    /// value expands to nothing.
    ///
    /// ```
    /// use toolwright_names::uri_template::{UriTemplate, UriVariables};
    /// let t = UriTemplate::parse("notes://{id}").unwrap();
    /// let vars: UriVariables = [("id", "a/b c")].into_iter().collect();
    /// assert_eq!(t.expand(&vars), "notes://a%2Fb%20c");
    /// ```
    pub fn expand(&self, values: &UriVariables) -> String {
        let mut out = String::with_capacity(self.source.len());
        for part in &self.parts {
            match part {
                Part::Literal(literal) => out.push_str(literal),
                Part::Var(index) => {
                    let var = &self.variables[*index];
                    if let Some(value) = values.get(&var.name) {
                        encode_into(&mut out, value, var.reserved);
                    }
                }
            }
        }
        out
    }
}

/// How many values a match may try before it gives up (no match): a URI built so that every
/// split fits up to the last literal cannot make the matcher try them all.
const MATCH_BUDGET: u32 = 4096;

/// One run of [`UriTemplate::matches`].
struct Matcher<'a> {
    template: &'a UriTemplate,
    uri: &'a str,
    values: Vec<Option<String>>,
    /// (part, position) pairs known not to match: each is tried once.
    failed: HashSet<(usize, usize)>,
    budget: u32,
}

impl Matcher<'_> {
    fn match_from(&mut self, part: usize, pos: usize) -> bool {
        let template = self.template;
        let Some(current) = template.parts.get(part) else {
            return pos == self.uri.len();
        };
        if self.failed.contains(&(part, pos)) {
            return false;
        }
        let rest = &self.uri[pos..];
        let found = match current {
            Part::Literal(literal) => {
                rest.starts_with(literal.as_str()) && self.match_from(part + 1, pos + literal.len())
            }
            Part::Var(index) => {
                let var = &template.variables[*index];
                // A `{var}` never crosses a raw `/`: look no further than the next one.
                let limit = if var.reserved {
                    rest.len()
                } else {
                    rest.find('/').unwrap_or(rest.len())
                };
                let mut found = false;
                match template.parts.get(part + 1) {
                    None => found = self.try_value(*index, part, pos, limit, rest.len()),
                    Some(Part::Literal(next)) => {
                        for (end, _) in rest.match_indices(next.as_str()) {
                            if end > limit || self.budget == 0 {
                                break;
                            }
                            if self.try_value(*index, part, pos, limit, end) {
                                found = true;
                                break;
                            }
                        }
                    }
                    // The parser never puts two variables side by side.
                    Some(Part::Var(_)) => {}
                }
                found
            }
        };
        if !found {
            self.failed.insert((part, pos));
        }
        found
    }

    /// Tries `uri[pos..pos + end]` as the value of variable `index` (part `part`).
    fn try_value(
        &mut self,
        index: usize,
        part: usize,
        pos: usize,
        limit: usize,
        end: usize,
    ) -> bool {
        if end > limit || self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        let reserved = self.template.variables[index].reserved;
        let Some(value) = decode_value(&self.uri[pos..pos + end], reserved) else {
            return false;
        };
        self.values[index] = Some(value);
        self.match_from(part + 1, pos + end)
    }
}

/// Decodes a matched value and checks it (see the module docs); `None` when it may not match.
fn decode_value(raw: &str, reserved: bool) -> Option<String> {
    if raw.is_empty() {
        return None;
    }
    let decoded = percent_decode(raw)?;
    if decoded.chars().any(char::is_control) {
        return None;
    }
    let bad_segment = |s: &str| s.is_empty() || s == "." || s == "..";
    if reserved {
        if decoded.split('/').any(bad_segment) {
            return None;
        }
    } else if decoded.contains('/') || bad_segment(&decoded) {
        return None;
    }
    Some(decoded)
}

fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn encode_into(out: &mut String, value: &str, reserved: bool) {
    for byte in value.bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~')
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&byte));
        if keep {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(byte >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(byte & 15)]));
        }
    }
}

/// The values of a template's variables, by name (decoded).
///
/// ```
/// use toolwright_names::uri_template::UriVariables;
/// let mut vars = UriVariables::new();
/// vars.insert("id", "42");
/// assert_eq!(vars.get("id"), Some("42"));
/// assert_eq!(vars.len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UriVariables(BTreeMap<String, String>);

impl UriVariables {
    /// No values.
    pub fn new() -> Self {
        UriVariables::default()
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Sets the value of `name`.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.insert(name.into(), value.into());
    }

    /// Every value, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// How many values there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values as a map.
    pub fn into_map(self) -> BTreeMap<String, String> {
        self.0
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for UriVariables {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        UriVariables(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests;
