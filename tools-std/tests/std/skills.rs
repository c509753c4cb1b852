//! Skills read from a directory (`toolwright_std::skills`), against an author's mistakes and an
//! attacker's links, special files and sizes.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use toolwright_std::skills::{self, SkillLimits, SkillSet};

fn write(root: &Path, path: &str, content: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, content).unwrap();
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things\n---\n# {name}\n")
}

fn load(root: &Path) -> SkillSet {
    skills::load_dir(root).unwrap()
}

fn names(set: &SkillSet) -> Vec<&str> {
    set.skills().iter().map(|s| s.name()).collect()
}

/// The problems reported for paths containing `fragment`.
fn problems_about<'a>(set: &'a SkillSet, fragment: &str) -> Vec<&'a str> {
    set.problems()
        .iter()
        .filter(|p| p.path().contains(fragment))
        .map(|p| p.reason())
        .collect()
}

#[test]
fn folders_with_a_skill_md_are_skills_with_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("ignored-top-file.txt"),
        "not in any skill, not served",
    )
    .unwrap();
    write(
        root,
        "pdf/SKILL.md",
        "---\nname: pdf\ndescription: Read PDFs\nlicense: MIT\nmetadata:\n  version: 2\nallowed-tools: [Read, Bash]\n---\nBody\n",
    );
    write(root, "pdf/scripts/extract.py", "print('hi')\n");
    write(root, "pdf/docs/a b.md", "spaces\n");
    write(root, "pdf/.hidden", "never served\n");
    // A nested skill is its own, and its files are not its parent's.
    write(root, "pdf/forms/SKILL.md", &skill_md("forms"));
    write(root, "pdf/forms/fill.md", "fill\n");
    write(root, "team/tools/git/SKILL.md", &skill_md("git"));
    let set = load(root);
    assert_eq!(names(&set), ["pdf", "forms", "git"], "{:?}", set.problems());
    assert!(set.problems().is_empty(), "{:?}", set.problems());

    let pdf = &set.skills()[0];
    assert_eq!(pdf.uri(), "skill://pdf/SKILL.md");
    assert_eq!(pdf.description(), "Read PDFs");
    assert_eq!(pdf.frontmatter()["license"], "MIT");
    assert_eq!(pdf.frontmatter()["metadata"]["version"], 2);
    assert_eq!(
        pdf.frontmatter()["allowed-tools"],
        serde_json::json!(["Read", "Bash"])
    );
    assert_eq!(
        pdf.file_uris().collect::<Vec<_>>(),
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/docs/a%20b.md",
            "skill://pdf/scripts/extract.py"
        ]
    );
    assert_eq!(
        pdf.file("skill://pdf/scripts/extract.py"),
        Some(&b"print('hi')\n"[..])
    );
    assert_eq!(set.skills()[1].uri(), "skill://pdf/forms/SKILL.md");
    assert_eq!(
        set.skills()[1].file_uris().collect::<Vec<_>>(),
        ["skill://pdf/forms/SKILL.md", "skill://pdf/forms/fill.md"]
    );
    // Multi-segment paths (SEP-2640).
    assert_eq!(set.skills()[2].uri(), "skill://team/tools/git/SKILL.md");
}

#[test]
fn a_skill_md_without_frontmatter_or_with_a_wrong_name_leaves_the_skill_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "plain/SKILL.md",
        "# Just markdown\nNo frontmatter here.\n",
    );
    write(root, "nodesc/SKILL.md", "---\nname: nodesc\n---\n");
    write(root, "other/SKILL.md", &skill_md("different"));
    write(root, "Upper/SKILL.md", &skill_md("Upper"));
    write(root, "good/SKILL.md", &skill_md("good"));
    write(root, "SKILL.md", &skill_md("top"));
    let set = load(root);
    assert_eq!(names(&set), ["good"]);
    assert!(problems_about(&set, "plain")[0].contains("does not start with a `---`"));
    assert!(problems_about(&set, "nodesc")[0].contains("no `description` field"));
    assert!(problems_about(&set, "other")[0].contains("differs from its folder"));
    assert!(problems_about(&set, "Upper")[0].contains("not valid"));
    assert!(
        set.problems()
            .iter()
            .any(|p| p.path() == "SKILL.md" && p.skill_left_out())
    );
}

#[test]
fn links_out_of_a_skill_are_left_out_and_reported_links_inside_are_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "OUTSIDE SECRET").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "tricky/SKILL.md", &skill_md("tricky"));
    write(root, "tricky/real.md", "inside\n");
    write(root, "sibling/SKILL.md", &skill_md("sibling"));
    write(root, "sibling/private.md", "the sibling's\n");
    let at = root.join("tricky");
    symlink("/etc/passwd", at.join("passwd")).unwrap();
    symlink(outside.path().join("secret"), at.join("secret")).unwrap();
    symlink(outside.path(), at.join("outdir")).unwrap();
    // Relative, out of this skill's folder into another skill's: still out.
    symlink("../sibling/private.md", at.join("neighbour.md")).unwrap();
    symlink("real.md", at.join("alias.md")).unwrap();
    std::fs::create_dir(at.join("sub")).unwrap();
    symlink(".", at.join("sub/loop")).unwrap();
    let set = load(root);
    assert_eq!(names(&set), ["sibling", "tricky"], "{:?}", set.problems());
    let tricky = &set.skills()[1];
    assert_eq!(
        tricky.file_uris().collect::<Vec<_>>(),
        [
            "skill://tricky/SKILL.md",
            "skill://tricky/alias.md",
            "skill://tricky/real.md"
        ]
    );
    assert_eq!(
        tricky.file("skill://tricky/alias.md"),
        Some(&b"inside\n"[..])
    );
    for name in ["passwd", "secret", "outdir", "neighbour.md"] {
        let reasons = problems_about(&set, &format!("tricky/{name}"));
        assert!(
            reasons.len() == 1 && reasons[0].contains("leads outside the skill's folder"),
            "{name}: {reasons:?}"
        );
    }
    assert!(problems_about(&set, "tricky/sub/loop")[0].contains("link to a directory"));
    assert!(set.problems().iter().all(|p| !p.skill_left_out()));
}

#[test]
fn a_linked_skill_md_that_leads_out_leaves_the_skill_out() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("SKILL.md"), skill_md("evil")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("evil")).unwrap();
    symlink(
        outside.path().join("SKILL.md"),
        dir.path().join("evil/SKILL.md"),
    )
    .unwrap();
    // A whole skill folder that is a link is not entered.
    symlink(outside.path(), dir.path().join("linked")).unwrap();
    let set = load(dir.path());
    assert!(set.skills().is_empty(), "{:?}", names(&set));
    assert!(problems_about(&set, "evil")[0].contains("leads outside"));
}

#[test]
fn special_hard_linked_and_huge_files() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "OUTSIDE SECRET").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    write(&root, "odd/SKILL.md", &skill_md("odd"));
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("odd/pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    // A hard link needs the same file system: made only where the temporary folders share one.
    let hard = std::fs::hard_link(outside.path().join("secret"), root.join("odd/hard.md")).is_ok();
    write(&root, "huge/SKILL.md", &skill_md("huge"));
    write(&root, "huge/big.txt", &"x".repeat(2000));
    write(&root, "many/SKILL.md", &skill_md("many"));
    for i in 0..5 {
        write(&root, &format!("many/f{i}.md"), "x");
    }
    let limits = SkillLimits::default().file_bytes(1000).skill_files(4);
    // A FIFO opened for reading would wait for a writer: the load runs apart, with a deadline.
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(skills::load_dir_with(&root, limits).unwrap());
    });
    let set = result
        .recv_timeout(Duration::from_secs(120))
        .expect("loading a skill with a FIFO blocked");
    assert_eq!(names(&set), ["odd"], "{:?}", set.problems());
    assert!(problems_about(&set, "odd/pipe")[0].contains("not a regular file"));
    if hard {
        assert!(problems_about(&set, "odd/hard.md")[0].contains("hard link"));
    }
    assert_eq!(set.skills()[0].file_uris().count(), 1);
    assert!(problems_about(&set, "huge")[0].contains("larger than 1000 bytes"));
    assert!(problems_about(&set, "many")[0].contains("more than 4 files"));
}

#[test]
fn a_missing_directory_is_an_error_that_says_what_to_give() {
    let error = skills::load_dir("/nonexistent/skills").unwrap_err();
    assert!(
        error.to_string().contains("one folder per skill"),
        "{error}"
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    let error = skills::load_dir(file.path()).unwrap_err();
    assert!(error.to_string().contains("is not a directory"), "{error}");
}

/// The listing's digests are the bytes served, and the files are served from memory: a file
/// changed (or swapped for a link out) after the load does not change what is read.
#[tokio::test]
async fn registered_skills_serve_what_their_digests_say() {
    use sha2::{Digest, Sha256};
    use toolwright_core::{ResourceBody, ResourceRequest, ToolContext};

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pdf/SKILL.md", &skill_md("pdf"));
    write(root, "pdf/ref/guide.md", "guide\n");
    std::fs::write(root.join("pdf/logo.png"), b"\x89PNG\0\x01").unwrap();
    let set = load(root);
    let registry = toolwright_runtime::ToolRegistry::new();
    set.register(&registry).unwrap();
    let skill = registry.skill("skill://pdf/SKILL.md").unwrap();
    assert_eq!(skill.name, "pdf");
    let tags = |uri: &str| registry.resource(uri).unwrap().tags().to_vec();
    assert_eq!(tags("skill://pdf/SKILL.md"), ["skill"]);
    assert_eq!(tags("skill://pdf/ref/guide.md"), ["skill", "skill-file"]);
    assert_eq!(skill.frontmatter["description"], "Does pdf things");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x"), "OUTSIDE").unwrap();
    std::fs::write(root.join("pdf/ref/guide.md"), "changed on disk\n").unwrap();
    std::fs::remove_file(root.join("pdf/logo.png")).unwrap();
    symlink(outside.path().join("x"), root.join("pdf/logo.png")).unwrap();
    let mut seen = Vec::new();
    for file in &skill.files {
        let (resource, variables) = registry.resolve_resource(&file.uri).unwrap();
        let request = ResourceRequest {
            uri: file.uri.clone(),
            variables,
        };
        let contents = resource
            .read(request, ToolContext::for_primitive(file.uri.as_str()))
            .await
            .unwrap();
        let bytes = match &contents[0].body {
            ResourceBody::Text(text) => text.as_bytes().to_vec(),
            ResourceBody::Blob(bytes) => bytes.clone(),
        };
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(file.digest, format!("sha256:{digest}"), "{}", file.uri);
        assert_eq!(file.size, bytes.len() as u64);
        assert_eq!(contents[0].mime_type, file.mime_type);
        seen.push((file.uri.clone(), contents[0].body.clone()));
    }
    assert_eq!(
        seen,
        [
            (
                "skill://pdf/SKILL.md".to_owned(),
                ResourceBody::Text(skill_md("pdf"))
            ),
            (
                "skill://pdf/logo.png".to_owned(),
                ResourceBody::Blob(b"\x89PNG\0\x01".to_vec())
            ),
            (
                "skill://pdf/ref/guide.md".to_owned(),
                ResourceBody::Text("guide\n".into())
            ),
        ]
    );
}

/// A resource already registered at a skill file's URI (another source's) is not replaced:
/// that skill is not registered at all, the others are.
#[test]
fn a_skill_whose_uri_is_taken_is_not_registered() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "taken/SKILL.md", &skill_md("taken"));
    write(dir.path(), "taken/notes.md", "ours\n");
    write(dir.path(), "free/SKILL.md", &skill_md("free"));
    let registry = toolwright_runtime::ToolRegistry::new();
    let squatter = toolwright_core::Resource::builder("squatter", "skill://taken/notes.md")
        .handler(|_, _| async { Ok::<_, toolwright_core::ToolError>("theirs".to_owned()) })
        .build()
        .unwrap();
    registry.register_resource(squatter).unwrap();
    let error = load(dir.path()).register(&registry).unwrap_err();
    assert!(
        error.to_string().contains("skill://taken/notes.md"),
        "{error}"
    );
    assert!(registry.skill("skill://taken/SKILL.md").is_none());
    assert!(registry.resource("skill://taken/SKILL.md").is_none());
    assert_eq!(
        registry.resource("skill://taken/notes.md").unwrap().name(),
        "squatter"
    );
    assert!(registry.skill("skill://free/SKILL.md").is_some());
}

/// A huge tree is not walked to its end: the walk stops at the limit and says so once.
#[test]
fn the_walk_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a/SKILL.md", &skill_md("a"));
    for i in 0..20 {
        write(dir.path(), &format!("b/c/d/{i:02}.txt"), "x");
    }
    write(dir.path(), "z/SKILL.md", &skill_md("z"));
    let set = skills::load_dir_with(dir.path(), SkillLimits::default().entries(10)).unwrap();
    assert_eq!(names(&set), ["a"], "{:?}", set.problems());
    let stops: Vec<_> = set
        .problems()
        .iter()
        .filter(|p| p.reason().contains("more than 10 entries"))
        .collect();
    assert_eq!(stops.len(), 1, "{:?}", set.problems());
    // Within one skill's folder too.
    for i in 0..20 {
        write(dir.path(), &format!("a/{i:02}.md"), "x");
    }
    let set = skills::load_dir_with(dir.path(), SkillLimits::default().entries(15)).unwrap();
    assert!(set.skills().is_empty(), "{:?}", names(&set));
    assert!(
        set.problems()
            .iter()
            .any(|p| p.path() == "a" && p.reason().contains("holds more than 15 entries")),
        "{:?}",
        set.problems()
    );
}
