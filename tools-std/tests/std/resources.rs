//! The workspace's files as resources (`file:///{+path}`), against an attacker: `..` raw and
//! encoded, encoded slashes, absolute paths, links out, a directory link, a FIFO, a hard link,
//! a huge file, Unicode lookalikes of `.` and `/`.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;
use toolwright_core::{
    CompletionRequest, ResourceBody, ResourceContents, ResourceRequest, ToolContext, ToolError,
    ToolState,
};
use toolwright_runtime::ToolRegistry;
use toolwright_std::Workspace;

struct Files {
    dir: TempDir,
    registry: ToolRegistry,
    state: Arc<ToolState>,
}

impl Files {
    fn new() -> Files {
        Files::with(|ws| ws)
    }

    fn with(configure: impl FnOnce(Workspace) -> Workspace) -> Files {
        let dir = tempfile::tempdir().unwrap();
        let workspace = configure(Workspace::new(dir.path()).unwrap());
        let registry = toolwright_std::registry().unwrap();
        toolwright_std::register_resources(&registry, Some(&workspace)).unwrap();
        let mut state = ToolState::new();
        state.insert(workspace);
        Files {
            dir,
            registry,
            state: Arc::new(state),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, path: &str, content: &[u8]) {
        let full = self.root().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }

    /// A read of `uri` as a server does it: resolved in the registry, then read. `Ok(None)`
    /// when no resource matches the URI.
    async fn read(&self, uri: &str) -> Result<Option<Vec<ResourceContents>>, ToolError> {
        let Some((resource, variables)) = self.registry.resolve_resource(uri) else {
            return Ok(None);
        };
        let request = ResourceRequest {
            uri: uri.to_owned(),
            variables,
        };
        let ctx = ToolContext::for_primitive(uri).with_state(Arc::clone(&self.state));
        resource.read(request, ctx).await.map(Some)
    }

    async fn text(&self, uri: &str) -> String {
        let contents = self.read(uri).await.unwrap().expect("no resource matched");
        match &contents[0].body {
            ResourceBody::Text(text) => text.clone(),
            ResourceBody::Blob(_) => panic!("{uri} was read as a blob"),
        }
    }

    /// Asserts that reading `uri` gives nothing: no resource matched, or the read failed.
    /// Returns the failure's message ("" when nothing matched).
    async fn refused(&self, uri: &str) -> String {
        match self.read(uri).await {
            Ok(None) => String::new(),
            Err(error) => error.to_string(),
            Ok(Some(contents)) => panic!("{uri} was read: {contents:?}"),
        }
    }
}

/// A directory outside the workspace holding a secret.
fn outside() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret.txt"), "OUTSIDE SECRET").unwrap();
    dir
}

#[tokio::test]
async fn files_are_read_whole_as_text_or_blob_with_their_type() {
    let f = Files::new();
    f.write("README.md", b"# Hello\n");
    f.write("src/main.rs", b"fn main() {}\n");
    f.write("dir with space/é.txt", "accent\n".as_bytes());
    f.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0");
    f.write("data", b"\0\x01\x02");
    assert_eq!(f.text("file:///README.md").await, "# Hello\n");
    assert_eq!(f.text("file:///src/main.rs").await, "fn main() {}\n");
    // A decoded `/` is a path separator like any other.
    assert_eq!(f.text("file:///src%2Fmain.rs").await, "fn main() {}\n");
    assert_eq!(
        f.text("file:///dir%20with%20space/%C3%A9.txt").await,
        "accent\n"
    );
    let png = f.read("file:///logo.png").await.unwrap().unwrap();
    assert_eq!(png[0].mime_type.as_deref(), Some("image/png"));
    assert!(matches!(png[0].body, ResourceBody::Blob(_)));
    assert_eq!(png[0].uri, "file:///logo.png");
    let data = f.read("file:///data").await.unwrap().unwrap();
    assert_eq!(
        (data[0].mime_type.as_deref(), &data[0].body),
        (
            Some("application/octet-stream"),
            &ResourceBody::Blob(vec![0, 1, 2])
        )
    );
    let md = f.read("file:///README.md").await.unwrap().unwrap();
    assert_eq!(md[0].mime_type.as_deref(), Some("text/markdown"));
    // Not listed (a workspace can be huge), only the template.
    let all = toolwright_runtime::ToolFilter::new();
    assert!(
        f.registry
            .resources(&all)
            .iter()
            .all(|r| !r.uri().as_str().starts_with("file:"))
    );
    assert_eq!(f.registry.resource_templates(&all).len(), 1);
}

#[tokio::test]
async fn a_missing_file_is_resource_not_found() {
    let f = Files::new();
    let error = f.read("file:///nothing.txt").await.unwrap_err();
    assert!(error.is_resource_not_found(), "{error}");
    let error = f.read("file:///no/such/dir/x").await.unwrap_err();
    assert!(error.is_resource_not_found(), "{error}");
}

#[tokio::test]
async fn dot_dot_raw_encoded_and_through_encoded_slashes_never_leaves_the_root() {
    let secret_dir = outside();
    let f = Files::new();
    f.write("sub/inner.txt", b"inside");
    // The workspace's parent holds the secret's directory: a `..` that worked would reach it.
    let up = Path::new("..").join(secret_dir.path().file_name().unwrap());
    let up = up.display();
    for uri in [
        format!("file:///../{up}/secret.txt"),
        format!("file:///sub/../../{up}/secret.txt"),
        format!("file:///%2e%2e/{up}/secret.txt"),
        format!("file:///%2E%2E%2F{up}%2Fsecret.txt"),
        format!("file:///sub%2F..%2F..%2F{up}%2Fsecret.txt"),
        format!("file:///sub/%2e%2e/%2e%2e/{up}/secret.txt"),
        format!("file:///.%2e/{up}/secret.txt"),
        format!("file:///{}/secret.txt", secret_dir.path().display()),
        format!(
            "file:///%2F{}",
            secret_dir
                .path()
                .join("secret.txt")
                .display()
                .to_string()
                .replace('/', "%2F")
        ),
        "file:////etc/passwd".to_owned(),
        "file:///%2Fetc%2Fpasswd".to_owned(),
        "file:///~/.bashrc".to_owned(),
        "file:///sub/inner.txt%00.png".to_owned(),
        "file:///sub\\..\\..\\etc\\passwd".to_owned(),
    ] {
        let message = f.refused(&uri).await;
        assert!(!message.contains("OUTSIDE SECRET"), "{uri}: {message}");
    }
    // The control: the same file read through the workspace works.
    assert_eq!(f.text("file:///sub/inner.txt").await, "inside");
}

#[tokio::test]
async fn unicode_lookalikes_of_dot_and_slash_are_plain_names() {
    let f = Files::new();
    f.write("a.txt", b"inside");
    for uri in [
        // U+2024 ONE DOT LEADER twice, U+FF0E FULLWIDTH FULL STOP twice, U+FF0F FULLWIDTH
        // SOLIDUS, U+2215 DIVISION SLASH: names, not `..` or `/`.
        "file:///%E2%80%A4%E2%80%A4/etc/passwd",
        "file:///%EF%BC%8E%EF%BC%8E/etc/passwd",
        "file:///%EF%BC%8E%EF%BC%8E%EF%BC%8Fetc%EF%BC%8Fpasswd",
        "file:///%E2%88%95etc%E2%88%95passwd",
        // Overlong UTF-8 for `.` and `/` is not UTF-8 at all.
        "file:///%C0%AE%C0%AE/etc/passwd",
        "file:///%C0%AF/etc/passwd",
    ] {
        let message = f.refused(uri).await;
        assert!(!message.contains("root:"), "{uri}: {message}");
    }
}

#[tokio::test]
async fn links_out_special_and_hard_linked_files_are_refused() {
    let secret_dir = outside();
    let f = Files::new();
    f.write("real.txt", b"inside");
    symlink("/etc/passwd", f.root().join("passwd")).unwrap();
    symlink(
        secret_dir.path().join("secret.txt"),
        f.root().join("secret"),
    )
    .unwrap();
    symlink(secret_dir.path(), f.root().join("outdir")).unwrap();
    symlink("real.txt", f.root().join("alias.txt")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        f.root().join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let hard = std::fs::hard_link(
        secret_dir.path().join("secret.txt"),
        f.root().join("hard.txt"),
    )
    .is_ok();
    for (uri, expected) in [
        ("file:///passwd", "outside the workspace"),
        ("file:///secret", "outside the workspace"),
        ("file:///outdir/secret.txt", "outside the workspace"),
        ("file:///outdir%2Fsecret.txt", "outside the workspace"),
        ("file:///pipe", "not a regular file"),
    ] {
        let message = f.refused(uri).await;
        assert!(message.contains(expected), "{uri}: {message}");
    }
    // An empty last segment matches no file.
    f.refused("file:///real.txt/").await;
    if hard {
        assert!(f.refused("file:///hard.txt").await.contains("hard links"));
    }
    // A link that stays inside is followed, as read_file follows it.
    assert_eq!(f.text("file:///alias.txt").await, "inside");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_does_not_block_the_read() {
    let f = Files::new();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        f.root().join("pipe.txt"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    // A generous deadline that fails the test instead of hanging it.
    let read = tokio::time::timeout(Duration::from_secs(120), f.read("file:///pipe.txt"))
        .await
        .expect("reading a FIFO blocked");
    assert!(read.unwrap_err().to_string().contains("not a regular file"));
}

#[tokio::test]
async fn a_file_over_the_read_limit_is_refused_not_cut() {
    let f = Files::with(|ws| ws.max_read_bytes(1024));
    f.write("fits.txt", &[b'a'; 1024]);
    f.write("huge.txt", &[b'a'; 1025]);
    assert_eq!(f.text("file:///fits.txt").await.len(), 1024);
    let message = f.refused("file:///huge.txt").await;
    assert!(
        message.contains("1025 bytes, more than the 1024"),
        "{message}"
    );
    // A sparse file that claims to be huge is refused from its size, without reading it.
    let sparse = std::fs::File::create(f.root().join("sparse.bin")).unwrap();
    sparse.set_len(1 << 40).unwrap();
    assert!(f.refused("file:///sparse.bin").await.contains("more than"));
}

#[tokio::test]
async fn without_a_workspace_the_read_says_how_to_configure_one() {
    let registry = toolwright_std::registry().unwrap();
    let (resource, variables) = registry.resolve_resource("file:///a.txt").unwrap();
    let request = ResourceRequest {
        uri: "file:///a.txt".into(),
        variables,
    };
    let error = resource
        .read(request, ToolContext::for_primitive("file:///a.txt"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no workspace is configured"));
}

#[test]
fn completions_list_only_the_workspace() {
    let secret_dir = outside();
    let f = Files::new();
    f.write("src/main.rs", b"");
    f.write("src/lib.rs", b"");
    f.write(".env", b"SECRET=1");
    symlink(secret_dir.path(), f.root().join("out")).unwrap();
    let files = f
        .registry
        .resource(toolwright_std::files::FILES_URI_TEMPLATE)
        .unwrap();
    let complete = |value: &str| {
        files
            .complete(&CompletionRequest::new("path", value))
            .unwrap()
            .values
    };
    assert_eq!(complete("src/"), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(complete(""), ["out", "src/"]);
    assert_eq!(complete("."), [".env"]);
    // Nothing above the root or through a link out.
    assert!(complete("../").is_empty());
    assert!(complete("/etc/").is_empty());
    assert!(complete("out/").is_empty());
}

/// The workspace refuses on its own what the template never hands it: a handler given `..`,
/// an absolute path or a link out by another route still reads nothing outside.
#[tokio::test]
async fn the_handler_refuses_escapes_even_past_the_template() {
    let secret_dir = outside();
    let f = Files::new();
    symlink(secret_dir.path(), f.root().join("out")).unwrap();
    let files = toolwright_std::files::workspace_files();
    let up = format!(
        "../{}/secret.txt",
        secret_dir.path().file_name().unwrap().to_str().unwrap()
    );
    let absolute = secret_dir.path().join("secret.txt").display().to_string();
    for (path, expected) in [
        (up.as_str(), "goes up with `..`"),
        ("sub/../../x", "goes up with `..`"),
        (absolute.as_str(), "absolute path"),
        ("out/secret.txt", "outside the workspace"),
        ("", "empty"),
    ] {
        let mut request = ResourceRequest::new("file:///forged");
        request.variables.insert("path", path);
        let ctx = ToolContext::for_primitive("file:///forged").with_state(Arc::clone(&f.state));
        let error = files.read(request, ctx).await.unwrap_err().to_string();
        assert!(error.contains(expected), "{path:?}: {error}");
    }
}
