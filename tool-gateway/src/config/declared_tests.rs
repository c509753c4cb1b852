use std::path::{Path, PathBuf};

use toolwright_core::{Content, ResourceBody, ResourceRequest, ToolContext};
use toolwright_runtime::{ToolFilter, ToolRegistry};

use super::substitute;
use crate::config::{ConfigError, GatewayConfig};

/// A fresh directory of its own for one test.
fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tw-declared-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn load(dir: &Path, text: &str) -> Result<GatewayConfig, ConfigError> {
    let path = dir.join("gateway.toml");
    std::fs::write(&path, text).unwrap();
    GatewayConfig::load(&path)
}

fn registry(config: &GatewayConfig) -> ToolRegistry {
    let registry = ToolRegistry::new();
    config.register_declared(&registry).unwrap();
    registry
}

async fn read(registry: &ToolRegistry, uri: &str) -> ResourceBody {
    let Some((resource, variables)) = registry.resolve_resource(uri) else {
        panic!("no resource at {}", &uri[..uri.len().min(80)]);
    };
    let request = ResourceRequest {
        uri: uri.to_owned(),
        variables,
    };
    let read = resource.read(request, ToolContext::new()).await.unwrap();
    read[0].body.clone()
}

const TEMPLATE: &str = r#"
[[resources]]
uri = "test://template/{id}/data"
name = "template-data"
json = { id = "{id}", templateTest = true, data = "Data for ID: {id}" }

[[resources]]
uri = "test://dated"
name = "dated"
json = { on = 2026-11-27, n = [1, 2.5] }

[[resources]]
uri = "test://text/{id}"
name = "text"
text = "id={id} {"
"#;

#[tokio::test]
async fn a_hostile_template_value_stays_in_its_place() {
    let dir = dir("hostile");
    let config = load(&dir, TEMPLATE).unwrap();
    let registry = registry(&config);
    // As long as a URI may be (8 KiB), percent-encoded.
    let huge = "\"".repeat(2_700);
    for hostile in [
        "\"",
        "\\",
        "{id}",
        "\", \"templateTest\": false, \"x\": \"",
        "é→\u{202e}",
        huge.as_str(),
    ] {
        let encoded: String = hostile.bytes().map(|byte| format!("%{byte:02X}")).collect();
        let ResourceBody::Text(text) =
            read(&registry, &format!("test://template/{encoded}/data")).await
        else {
            panic!("not text");
        };
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["id"], hostile, "{text}");
        assert_eq!(json["templateTest"], true);
        assert_eq!(json["data"], format!("Data for ID: {hostile}"));
        assert_eq!(json.as_object().unwrap().len(), 3);
    }
    let ResourceBody::Text(dated) = read(&registry, "test://dated").await else {
        panic!("not text");
    };
    assert_eq!(dated, r#"{"n":[1,2.5],"on":"2026-11-27"}"#);
    // In text, a value is copied once and never read for placeholders again.
    let ResourceBody::Text(text) = read(&registry, "test://text/%7Bid%7D").await else {
        panic!("not text");
    };
    assert_eq!(text, "id={id} {");
}

#[test]
fn substitution_is_one_pass() {
    let value = |name: &str| (name == "a").then_some("{a}{b}");
    assert_eq!(substitute("<{a}|{b}|{a>", value), "<{a}{b}|{b}|{a>");
}

#[test]
fn a_placeholder_that_is_no_variable_is_refused_with_its_line() {
    let dir = dir("unknown");
    let error = load(
        &dir,
        "[serve]\n\n[[resources]]\nuri = \"test://t/{id}\"\nname = \"t\"\ntext = \"{idd}\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("gateway.toml:3:"), "{error}");
    assert!(
        error.contains("`{idd}`") && error.contains("did you mean `{id}`"),
        "{error}"
    );
}

#[tokio::test]
async fn files_are_read_beside_the_configuration() {
    let dir = dir("files");
    std::fs::write(dir.join("pixel.png"), b"\x89PNG fake").unwrap();
    let config = load(
        &dir,
        "[[resources]]\nuri = \"test://static-binary\"\nname = \"b\"\nfile = \"pixel.png\"\n\n\
         [[prompts]]\nname = \"p\"\narguments = [{ name = \"uri\", required = true }]\n\
         messages = [{ image = \"pixel.png\" }, { resource = { uri = \"{uri}\", text = \"t\" } }, \
         { role = \"assistant\", text = \"about {uri}\" }]\n",
    )
    .unwrap();
    let registry = registry(&config);
    assert_eq!(
        read(&registry, "test://static-binary").await,
        ResourceBody::Blob(b"\x89PNG fake".to_vec())
    );
    let resource = registry.resolve_resource("test://static-binary").unwrap().0;
    assert_eq!(resource.mime_type(), Some("image/png"));
    let prompt = registry.prompts(&ToolFilter::new()).pop().unwrap();
    let args = [("uri".to_owned(), "\"}{uri}".to_owned())].into();
    let out = prompt.get(args, ToolContext::new()).await.unwrap();
    assert!(
        matches!(&out.messages[0].content, Content::Image(image) if image.mime_type == "image/png")
    );
    assert!(
        matches!(&out.messages[1].content, Content::Resource(embedded) if embedded.uri == "\"}{uri}")
    );
    assert_eq!(out.messages[2].content.as_text(), Some("about \"}{uri}"));
}

#[test]
fn a_missing_file_is_refused_with_its_line() {
    let dir = dir("missing");
    let error = load(
        &dir,
        "\n[[resources]]\nuri = \"test://x\"\nname = \"x\"\nfile = \"nowhere.png\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("gateway.toml:2:") && error.contains("nowhere.png"),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_directory_is_refused() {
    let dir = dir("link");
    let outside = dir.with_extension("secret");
    std::fs::write(&outside, "secret").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("inside.txt")).unwrap();
    for key in [
        "file = \"inside.txt\"",
        "file = \"../tw-declared-link-x\"",
        "file = \"/etc/hostname\"",
    ] {
        let error = load(
            &dir,
            &format!("[[resources]]\nuri = \"test://x\"\nname = \"x\"\n{key}\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("gateway.toml:1:"), "{error}");
        assert!(
            error.contains("outside the configuration's directory")
                || error.contains("cannot read"),
            "{error}"
        );
    }
    let error = load(
        &dir,
        "[[resources]]\nuri = \"test://x\"\nname = \"x\"\nfile = \"inside.txt\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("outside the configuration's directory"),
        "{error}"
    );
    let _ = std::fs::remove_file(outside);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = dir("fifo");
    let fifo = dir.join("pipe.png");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let error = load(
        &dir,
        "[[prompts]]\nname = \"p\"\nmessages = [{ image = \"pipe.png\" }]\n",
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("not a regular file"), "{error}");
}

/// A hard link inside the directory to a secret file (here the configuration's token file)
/// is a second path the path checks cannot recognise: a file with two names is refused.
#[cfg(unix)]
#[test]
fn a_hard_link_to_a_secret_is_refused() {
    let dir = dir("hardlink");
    std::fs::write(dir.join("token.txt"), "s3cret").unwrap();
    std::fs::hard_link(dir.join("token.txt"), dir.join("notes.txt")).unwrap();
    let error = load(
        &dir,
        "[[resources]]\nuri = \"test://x\"\nname = \"x\"\nfile = \"notes.txt\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("gateway.toml:1:"), "{error}");
    assert!(error.contains("hard links"), "{error}");
}

#[test]
fn two_resources_at_one_uri_name_both_lines() {
    let dir = dir("twice");
    let error = load(
        &dir,
        "[[resources]]\nuri = \"test://x\"\nname = \"x\"\ntext = \"a\"\n\n\
         [[resources]]\nuri = \"test://x\"\nname = \"y\"\ntext = \"b\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("gateway.toml:6:"), "{error}");
    assert!(
        error.contains("gateway.toml:1") && error.contains("`test://x`"),
        "{error}"
    );
}

#[test]
fn a_body_is_exactly_one_of_its_kinds() {
    let dir = dir("bodies");
    for body in ["", "text = \"a\"\nbase64 = \"YQ==\""] {
        let error = load(
            &dir,
            &format!("[[resources]]\nuri = \"test://x\"\nname = \"x\"\n{body}\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("exactly one of"), "{error}");
    }
}

#[test]
fn the_configuration_itself_is_not_served() {
    let dir = dir("itself");
    let error = load(
        &dir,
        "[[resources]]\nuri = \"test://x\"\nname = \"x\"\nfile = \"gateway.toml\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("never served"), "{error}");
}
