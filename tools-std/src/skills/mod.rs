//! Skills (SEP-2640) read from a directory of `SKILL.md` folders, for `toolwright serve
//! --skills DIR`.
//!
//! Each folder below the directory that holds a `SKILL.md` is a skill, at
//! `skill://<path>/SKILL.md` (the path from the directory, so nested folders give
//! multi-segment paths, each segment percent-encoded). Its `SKILL.md` starts with a YAML
//! frontmatter block with `name` (equal to the folder's name, 1 to 64 lowercase letters, digits
//! and inner hyphens) and `description`; every other field is kept as written. Every file of
//! the folder is a resource at `skill://<path>/<file>`, listed with its size and `sha256:`
//! digest. A skill folder inside another is a skill of its own, and its files are its own.
//!
//! The directory is read once, when loaded, through directory handles (cap-std): folders are
//! entered without following links; a file is opened beneath its skill's folder by the kernel
//! (`openat2` with `RESOLVE_BENEATH`), so a link that stays inside the folder is followed and
//! one that leads out is left out and reported, as are links to directories, FIFOs, sockets,
//! devices, files with more than one hard link, names that are not UTF-8, and hidden entries
//! (names starting with `.`, left out silently). A skill over a limit ([`SkillLimits`]: per file,
//! per skill, number of files) or whose `SKILL.md` has no valid frontmatter is left out whole
//! and reported. Nothing is ever served that was not read at load.
//!
//! The bytes are kept in memory and served from there, not read again: the digest a client
//! was given then always matches what it reads, whatever happens to the files afterwards (a
//! re-read would have to check the digest and fail when it differs), and the limits bound the
//! memory this takes. Load again to pick up changes.

// The layers, lowest first (no module imports one listed after it): frontmatter, load.
mod frontmatter;
mod load;

use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use toolwright_core::{Resource, ResourceContents, Skill, SkillFile, ToolError};
use toolwright_runtime::{RegistryError, ToolRegistry};

/// The scheme of skill URIs (SEP-2640).
const SCHEME: &str = "skill://";

/// Why a skills directory could not be read at all (a problem with one skill leaves that
/// skill out instead, reported by [`SkillSet::problems`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillsError {
    /// The directory could not be opened.
    #[error(
        "cannot read the skills directory `{path}`: {source}; give a directory that holds one \
         folder per skill, each with a SKILL.md"
    )]
    Open {
        /// The directory as given.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The path is not a directory.
    #[error(
        "`{0}` is not a directory; give a directory that holds one folder per skill, each with \
         a SKILL.md"
    )]
    NotADirectory(PathBuf),
}

/// The limits a load works within; what is over one is left out and reported.
///
/// ```
/// let limits = toolwright_std::skills::SkillLimits::default().file_bytes(1 << 20);
/// # let _ = limits;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SkillLimits {
    inner: load::Limits,
}

impl Default for SkillLimits {
    /// 8 MiB per file, 16 MiB and 512 files per skill, 64 MiB over all skills, 1,000 skills,
    /// folders 16 deep, 100,000 entries looked at.
    fn default() -> Self {
        SkillLimits {
            inner: load::Limits {
                file_bytes: 8 << 20,
                skill_bytes: 16 << 20,
                skill_files: 512,
                total_bytes: 64 << 20,
                skills: 1000,
                depth: 16,
                entries: 100_000,
            },
        }
    }
}

impl SkillLimits {
    /// The largest file a skill may hold; a skill with a larger one is left out.
    pub fn file_bytes(mut self, bytes: u64) -> Self {
        self.inner.file_bytes = bytes;
        self
    }

    /// The most bytes one skill's files may hold together.
    pub fn skill_bytes(mut self, bytes: u64) -> Self {
        self.inner.skill_bytes = bytes;
        self
    }

    /// The most files one skill may hold.
    pub fn skill_files(mut self, files: usize) -> Self {
        self.inner.skill_files = files;
        self
    }

    /// The most bytes all skills may hold together (they are kept in memory).
    pub fn total_bytes(mut self, bytes: u64) -> Self {
        self.inner.total_bytes = bytes;
        self
    }

    /// The most entries (files and folders) looked at below the directory, and within one
    /// skill's folder: a tree larger than this is not walked further.
    pub fn entries(mut self, entries: usize) -> Self {
        self.inner.entries = entries;
        self
    }

    /// The most skills loaded; later ones (by path) are left out.
    pub fn skills(mut self, skills: usize) -> Self {
        self.inner.skills = skills;
        self
    }
}

/// Something of the skills directory that was left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillProblem {
    inner: load::Problem,
}

impl SkillProblem {
    /// The path from the skills directory (a skill's folder, or a file in it).
    pub fn path(&self) -> &str {
        &self.inner.path
    }

    /// Why, in words.
    pub fn reason(&self) -> &str {
        &self.inner.reason
    }

    /// Whether the whole skill was left out, rather than one entry of it.
    pub fn skill_left_out(&self) -> bool {
        self.inner.skill_skipped
    }
}

impl std::fmt::Display for SkillProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.inner.skill_skipped {
            "skill left out"
        } else {
            "left out"
        };
        write!(f, "{what}: `{}`: {}", self.inner.path, self.inner.reason)
    }
}

/// Reads every skill below `dir` with the default [`SkillLimits`].
///
/// # Errors
///
/// When `dir` cannot be opened or is not a directory.
pub fn load_dir(dir: impl AsRef<Path>) -> Result<SkillSet, SkillsError> {
    load_dir_with(dir, SkillLimits::default())
}

/// Reads every skill below `dir` within `limits`.
///
/// # Errors
///
/// When `dir` cannot be opened or is not a directory.
pub fn load_dir_with(dir: impl AsRef<Path>, limits: SkillLimits) -> Result<SkillSet, SkillsError> {
    let path = dir.as_ref();
    let open = |source| SkillsError::Open {
        path: path.to_path_buf(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(open)?;
    if !metadata.is_dir() {
        return Err(SkillsError::NotADirectory(path.to_path_buf()));
    }
    let root = Dir::open_ambient_dir(path, ambient_authority()).map_err(open)?;
    let (loaded, problems) = load::load(&root, limits.inner);
    Ok(SkillSet::new(loaded, problems))
}

/// One skill read from the directory: its listing and its files.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    inner: load::Loaded,
    /// The URI of each of `inner.files`, in order (`SKILL.md` first).
    uris: Vec<String>,
}

impl LoadedSkill {
    fn new(inner: load::Loaded) -> Self {
        let base: String = inner
            .path
            .iter()
            .map(|segment| crate::mime::encode_segment(segment))
            .collect::<Vec<_>>()
            .join("/");
        let uris = inner
            .files
            .iter()
            .map(|file| {
                let relative: Vec<String> = file
                    .relative
                    .split('/')
                    .map(crate::mime::encode_segment)
                    .collect();
                format!("{SCHEME}{base}/{}", relative.join("/"))
            })
            .collect();
        LoadedSkill { inner, uris }
    }

    /// The URI of its `SKILL.md`: `skill://<path>/SKILL.md`.
    pub fn uri(&self) -> &str {
        self.uris.first().map_or("", String::as_str)
    }

    /// Its name (from the frontmatter, equal to its folder's).
    pub fn name(&self) -> &str {
        &self.inner.frontmatter.name
    }

    /// Its description (from the frontmatter).
    pub fn description(&self) -> &str {
        &self.inner.frontmatter.description
    }

    /// Every field of its frontmatter, as written (`name` and `description` included).
    pub fn frontmatter(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.inner.frontmatter.fields
    }

    /// The URIs of its files, `SKILL.md` first, then by path.
    pub fn file_uris(&self) -> impl Iterator<Item = &str> {
        self.uris.iter().map(String::as_str)
    }

    /// Its listing for `skills/list` and `skills/get`: its frontmatter, and each file's URI,
    /// media type, size and `sha256:` digest.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("review")).unwrap();
    /// std::fs::write(dir.path().join("review/SKILL.md"), "---\nname: review\ndescription: Review code.\n---\n").unwrap();
    /// let set = toolwright_std::skills::load_dir(dir.path()).unwrap();
    /// let skill = set.skills()[0].skill();
    /// assert_eq!((skill.uri.as_str(), skill.name.as_str()), ("skill://review/SKILL.md", "review"));
    /// assert!(skill.files[0].digest.starts_with("sha256:"));
    /// ```
    pub fn skill(&self) -> Skill {
        let mut skill = Skill::new(self.uri(), self.name(), self.description());
        skill.frontmatter = self.inner.frontmatter.fields.clone();
        skill.files = self
            .inner
            .files
            .iter()
            .zip(&self.uris)
            .map(|(file, uri)| SkillFile {
                uri: uri.clone(),
                mime_type: Some(file.mime.to_owned()),
                size: file.bytes.len() as u64,
                digest: file.digest.clone(),
            })
            .collect();
        skill
    }

    /// Its files as resources at fixed `skill://` URIs, served from the bytes read at load
    /// (text when their media type is text and they are UTF-8 without a NUL, else a blob).
    /// All are tagged `skill`; all but the `SKILL.md` also `skill-file`, so a server can list
    /// only the `SKILL.md`s and still serve every file.
    pub fn resources(&self) -> Vec<Resource> {
        self.inner
            .files
            .iter()
            .zip(&self.uris)
            .filter_map(|(file, uri)| {
                let is_manifest = file.relative == load::SKILL_MD;
                let name = format!("{}/{}", self.name(), file.relative);
                let bytes = std::sync::Arc::clone(&file.bytes);
                let mime = file.mime;
                let served = uri.clone();
                let mut builder = Resource::builder(name, uri.clone())
                    .mime_type(mime)
                    .size(file.bytes.len() as u64)
                    // A server that lists only each skill's SKILL.md in `resources/list` (as
                    // rmcp's catalog does) leaves out the ones tagged `skill-file`.
                    .tags(
                        if is_manifest {
                            &["skill"][..]
                        } else {
                            &["skill", "skill-file"][..]
                        }
                        .iter()
                        .copied(),
                    )
                    .handler(move |_request, _ctx| {
                        let contents = contents(&served, mime, &bytes);
                        async move { Ok::<_, ToolError>(contents) }
                    });
                if is_manifest {
                    builder = builder.title(self.name()).description(self.description());
                }
                // The load left out names with control characters, and the URI is encoded:
                // nothing here is refused.
                builder.build().ok()
            })
            .collect()
    }

    /// The bytes of its file at `uri`, as read at load.
    pub fn file(&self, uri: &str) -> Option<&[u8]> {
        let at = self.uris.iter().position(|known| known == uri)?;
        self.inner.files.get(at).map(|file| &*file.bytes)
    }
}

/// The skills of a directory, read, and what was left out.
#[derive(Debug, Clone)]
pub struct SkillSet {
    skills: Vec<LoadedSkill>,
    problems: Vec<SkillProblem>,
}

impl SkillSet {
    fn new(loaded: Vec<load::Loaded>, problems: Vec<load::Problem>) -> Self {
        SkillSet {
            skills: loaded.into_iter().map(LoadedSkill::new).collect(),
            problems: problems
                .into_iter()
                .map(|inner| SkillProblem { inner })
                .collect(),
        }
    }

    /// The skills, by path.
    pub fn skills(&self) -> &[LoadedSkill] {
        &self.skills
    }

    /// Registers every skill's listing and its files' resources into `registry`. A skill
    /// whose file's URI another resource already holds is not registered (what it registered
    /// so far is removed again), and the error says which.
    ///
    /// # Errors
    ///
    /// The first [`RegistryError`] (a URI collision), after registering the others.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("review")).unwrap();
    /// std::fs::write(dir.path().join("review/SKILL.md"), "---\nname: review\ndescription: Review code.\n---\n").unwrap();
    /// let registry = toolwright_runtime::ToolRegistry::new();
    /// toolwright_std::skills::load_dir(dir.path()).unwrap().register(&registry).unwrap();
    /// assert!(registry.skill("skill://review/SKILL.md").is_some());
    /// assert!(registry.resolve_resource("skill://review/SKILL.md").is_some());
    /// ```
    pub fn register(&self, registry: &ToolRegistry) -> Result<(), RegistryError> {
        let mut first = None;
        for skill in &self.skills {
            if let Err(error) = register_one(registry, skill) {
                first.get_or_insert(error);
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// What was left out, and why (log these: a skill an author expected may be among them).
    pub fn problems(&self) -> &[SkillProblem] {
        &self.problems
    }
}

/// The contents served for a skill file.
fn contents(uri: &str, mime: &str, bytes: &[u8]) -> ResourceContents {
    let text = crate::mime::is_textual(mime)
        .then(|| std::str::from_utf8(bytes).ok())
        .flatten()
        .filter(|text| !text.contains('\0'));
    match text {
        Some(text) => ResourceContents::text(uri, text),
        None => ResourceContents::blob(uri, bytes.to_vec()),
    }
    .with_mime_type(mime)
}

/// Registers one skill: its files, then its listing; undone when a file's URI is taken.
fn register_one(registry: &ToolRegistry, skill: &LoadedSkill) -> Result<(), RegistryError> {
    let resources = skill.resources();
    let mut done: Vec<String> = Vec::new();
    for resource in resources {
        let key = resource.uri().as_str().to_owned();
        if let Err(error) = registry.register_resource(resource) {
            for key in done {
                registry.remove_resource(&key);
            }
            return Err(error);
        }
        done.push(key);
    }
    registry.register_skill(skill.skill())
}
