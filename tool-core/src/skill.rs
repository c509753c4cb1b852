//! Skills (MCP's skills extension, SEP-2640): a folder of files led by a `SKILL.md`, listed
//! by `skills/list` and read file by file as resources (`skill://<path>/SKILL.md`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One file of a skill, as `skills/get` lists it.
///
/// ```
/// use toolwright_core::SkillFile;
/// let f = SkillFile {
///     uri: "skill://review/SKILL.md".into(),
///     mime_type: Some("text/markdown".into()),
///     size: 12,
///     digest: format!("sha256:{}", "0".repeat(64)),
/// };
/// assert!(f.digest.starts_with("sha256:"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillFile {
    /// Its resource URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its length in bytes.
    pub size: u64,
    /// `sha256:` and 64 lowercase hex digits of its bytes, as the SEP says.
    pub digest: String,
}

/// A skill's listing: where its `SKILL.md` is, its name and description (from the
/// frontmatter), every frontmatter field, and its files. The files are ordinary
/// [`Resource`](crate::Resource)s registered beside it; this value is the listing only.
///
/// ```
/// use toolwright_core::Skill;
/// let skill = Skill::new("skill://review/SKILL.md", "review", "Review code the team's way.");
/// assert!(skill.files.is_empty());
/// assert_eq!(skill.name, "review");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// The URI of its `SKILL.md` (`skill://<path>/SKILL.md`); the registry's key.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is for and when to use it.
    pub description: String,
    /// Every field of the `SKILL.md` frontmatter (`name` and `description` included).
    #[serde(default)]
    pub frontmatter: Map<String, Value>,
    /// Its files, `SKILL.md` included.
    #[serde(default)]
    pub files: Vec<SkillFile>,
}

impl Skill {
    /// A skill at `uri` without frontmatter fields beyond its name and description, and
    /// without files yet.
    pub fn new(
        uri: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        let (name, description) = (name.into(), description.into());
        let mut frontmatter = Map::new();
        frontmatter.insert("name".to_owned(), Value::String(name.clone()));
        frontmatter.insert("description".to_owned(), Value::String(description.clone()));
        Skill {
            uri: uri.into(),
            name,
            description,
            frontmatter,
            files: Vec::new(),
        }
    }
}
