//! JSON snapshots: `tests/snapshots/<name>.json`, rewritten when `UPDATE_SNAPSHOTS=1`.

use std::path::PathBuf;

use serde_json::Value;

pub fn assert_json_snapshot(name: &str, actual: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.json"));
    let rendered = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &rendered).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot at {}; run `UPDATE_SNAPSHOTS=1 cargo test -p integration-tests` and review it",
            path.display()
        )
    });
    assert_eq!(
        rendered, expected,
        "snapshot {name} changed; if the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review the diff"
    );
}
