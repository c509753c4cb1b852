#!/usr/bin/env bash
# Compile time of N tools written with our #[tool] macro and with rmcp's #[tool] macros.
# Not run in CI. Usage: bash benches/compile_time.sh [N ...]   (default: 100 500)
#
# For each N it generates two crates in a temporary directory that share this workspace's
# dependency versions (through a copy of Cargo.lock and path dependencies), builds each
# crate's dependencies first, then times a clean build of the crate alone (`cargo build`
# after touching its source), so only the tools' own code is measured.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
counts=("${@:-100}")
if [ "$#" -eq 0 ]; then counts=(100 500); fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="$work/target"

make_crate() { # name kind count
    local dir="$work/$1" kind="$2" n="$3"
    mkdir -p "$dir/src"
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
toolwright-runtime = { path = "$here/tool-runtime" }
rmcp = { version = "3.9", default-features = false, features = ["server", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
TOML
    cp "$here/Cargo.lock" "$dir/Cargo.lock"
    {
        if [ "$kind" = ours ]; then
            echo "use toolwright_core::tool;"
            for i in $(seq 1 "$n"); do
                printf '/// Add two integers (%d).\n#[tool]\npub fn add_%d(\n    /// The first\n    a: i64,\n    /// The second\n    b: i64,\n) -> i64 { a + b + %d }\n' "$i" "$i" "$i"
            done
        else
            echo "use rmcp::{handler::server::{wrapper::Parameters, router::tool::ToolRouter}, tool, tool_router, schemars};"
            echo "#[derive(Clone)] pub struct Server { pub tool_router: ToolRouter<Server> }"
            for i in $(seq 1 "$n"); do
                printf '#[derive(serde::Deserialize, schemars::JsonSchema)]\npub struct Args%d {\n    /// The first\n    a: i64,\n    /// The second\n    b: i64,\n}\n' "$i"
            done
            echo "#[tool_router] impl Server {"
            for i in $(seq 1 "$n"); do
                printf '    /// Add two integers (%d).\n    #[tool]\n    pub fn add_%d(&self, Parameters(Args%d { a, b }): Parameters<Args%d>) -> String { (a + b + %d).to_string() }\n' "$i" "$i" "$i" "$i" "$i"
            done
            echo "}"
        fi
    } > "$dir/src/lib.rs"
}

printf '%-6s %-6s %10s %14s\n' "tools" "macros" "seconds" "ms per tool"
for n in "${counts[@]}"; do
    for kind in ours rmcp; do
        name="bench_${kind}_${n}"
        make_crate "$name" "$kind" "$n"
        (cd "$work/$name" && cargo build --quiet) # dependencies, and a warm-up
        touch "$work/$name/src/lib.rs"
        start=$(date +%s.%N)
        (cd "$work/$name" && cargo build --quiet)
        end=$(date +%s.%N)
        seconds=$(echo "$end - $start" | bc -l)
        printf '%-6s %-6s %10.2f %14.2f\n' "$n" "$kind" "$seconds" "$(echo "$seconds * 1000 / $n" | bc -l)"
    done
done
