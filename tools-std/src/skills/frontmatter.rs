//! The YAML frontmatter of a `SKILL.md`, and the rule a skill's name follows (SEP-2640, as the
//! Agent Skills format says).

use serde_json::{Map, Value};

/// Longest frontmatter block read, in bytes: real ones are a few lines; the cap bounds what the
/// YAML parser is handed.
pub(super) const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// Longest skill name, in characters.
const MAX_NAME_CHARS: usize = 64;

/// A `SKILL.md`'s frontmatter: its `name` and `description`, and every field as written.
#[derive(Debug, Clone)]
pub(super) struct Frontmatter {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) fields: Map<String, Value>,
}

/// Parses the block between the leading `---` lines of a `SKILL.md`; the message says what is
/// wrong and what a `SKILL.md` must start with.
pub(super) fn parse(bytes: &[u8]) -> Result<Frontmatter, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "SKILL.md is not UTF-8 text".to_owned())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(
            "SKILL.md does not start with a `---` line opening its YAML frontmatter \
                    (`name:` and `description:` are required)"
                .to_owned(),
        );
    }
    let start = text.find('\n').map_or(text.len(), |at| at + 1);
    let mut end = start;
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        end += line.len();
        if end - start > MAX_FRONTMATTER_BYTES {
            return Err(format!(
                "the frontmatter of SKILL.md is longer than {MAX_FRONTMATTER_BYTES} bytes"
            ));
        }
    }
    if !closed {
        return Err("the frontmatter of SKILL.md has no closing `---` line".to_owned());
    }
    let value: Value = yaml_serde::from_str(&text[start..end])
        .map_err(|error| format!("the frontmatter of SKILL.md is not valid YAML: {error}"))?;
    let Value::Object(fields) = value else {
        return Err(
            "the frontmatter of SKILL.md is not a mapping of fields (`name: ...`)".to_owned(),
        );
    };
    let text_field = |key: &str| match fields.get(key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
        Some(_) => Err(format!(
            "the frontmatter field `{key}` of SKILL.md must be a non-empty string"
        )),
        None => Err(format!(
            "the frontmatter of SKILL.md has no `{key}` field, which is required"
        )),
    };
    Ok(Frontmatter {
        name: text_field("name")?,
        description: text_field("description")?,
        fields,
    })
}

/// Checks a skill's name: 1 to 64 lowercase letters, digits and single inner hyphens, equal to
/// the name of its folder (the last segment of its URI, as SEP-2640 says).
pub(super) fn check_name(name: &str, folder: &str) -> Result<(), String> {
    let chars: Vec<char> = name.chars().collect();
    let valid = !chars.is_empty()
        && chars.len() <= MAX_NAME_CHARS
        && chars
            .iter()
            .all(|c| *c == '-' || c.is_numeric() || (c.is_alphabetic() && !c.is_uppercase()))
        && chars.first() != Some(&'-')
        && chars.last() != Some(&'-')
        && !name.contains("--");
    if !valid {
        return Err(format!(
            "the skill name `{name}` is not valid: use 1 to {MAX_NAME_CHARS} lowercase letters, \
             digits and single hyphens inside"
        ));
    }
    if name != folder {
        return Err(format!(
            "the skill name `{name}` differs from its folder `{folder}`; SEP-2640 requires them \
             to be equal (rename one)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_kept_as_written() {
        let parsed = parse(
            b"---\nname: billing\ndescription: Issue invoices\nallowed-tools: [Read]\n---\n# Hi\n",
        )
        .unwrap();
        assert_eq!(
            (parsed.name.as_str(), parsed.description.as_str()),
            ("billing", "Issue invoices")
        );
        assert_eq!(parsed.fields["allowed-tools"], serde_json::json!(["Read"]));
    }

    #[test]
    fn what_is_refused_is_named() {
        assert!(
            parse(b"# no frontmatter\n")
                .unwrap_err()
                .contains("does not start")
        );
        assert!(parse(b"---\nname: a\n").unwrap_err().contains("no closing"));
        assert!(
            parse(b"---\nname: a\n---\n")
                .unwrap_err()
                .contains("`description`")
        );
        assert!(parse(b"---\n- a\n---\n").unwrap_err().contains("mapping"));
        assert!(
            parse(b"---\nname: [a\n---\n")
                .unwrap_err()
                .contains("not valid YAML")
        );
    }

    #[test]
    fn hostile_yaml_is_refused_not_expanded() {
        // Aliases of aliases (a "billion laughs"): the parser's repetition limit refuses it.
        let mut laughs =
            String::from("---\nname: a\ndescription: b\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let previous = format!("*l{}", level - 1);
            let items = [previous.as_str(); 10].join(", ");
            laughs.push_str(&format!("l{level}: &l{level} [{items}]\n"));
        }
        laughs.push_str("---\n");
        assert!(parse(laughs.as_bytes()).is_err());
        // Nesting deeper than the parser's limit.
        let deep = format!(
            "---\nname: a\ndescription: b\nx: {}{}\n---\n",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(
            parse(deep.as_bytes())
                .unwrap_err()
                .contains("not valid YAML")
        );
        // Longer than the cap: refused before the parser sees it.
        let long = format!(
            "---\nname: a\ndescription: b\n{}---\n",
            "x: y\n".repeat(20_000)
        );
        assert!(parse(long.as_bytes()).unwrap_err().contains("longer than"));
    }

    #[test]
    fn names_follow_the_rule() {
        assert!(check_name("pdf-tools", "pdf-tools").is_ok());
        assert!(check_name("Pdf", "Pdf").is_err());
        assert!(check_name("-a", "-a").is_err());
        assert!(check_name("a--b", "a--b").is_err());
        assert!(check_name("a", "b").unwrap_err().contains("differs"));
        // A Cyrillic `і` is a lowercase letter, but not the folder's Latin `i`.
        assert!(
            check_name("b\u{456}lling", "billing")
                .unwrap_err()
                .contains("differs")
        );
    }
}
