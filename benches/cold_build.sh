#!/usr/bin/env bash
# Cold build: a new crate with one two-integer tool, built from nothing (debug), written
# with the `toolwright` facade (what a user adds) and with rmcp. Not run in CI (its numbers depend on the machine).
# Usage:
#   bash benches/cold_build.sh [--features LIST] [--keep]
#     --features LIST   features of the toolwright facade for the first crate (comma-separated,
#                       e.g. `schema-validation`, `mcp`); default: none
#     --keep            keep the temporary directory (crates, target directories, logs)
#
# It writes two crates in a temporary directory outside the workspace:
# - `cold_ours`: the `toolwright` facade (path dependency on this checkout) and tokio
#   (`rt-multi-thread`, `macros`); one `#[tool]` function adding two
#   integers, and a main that registers every tool and calls it as a model would;
# - `cold_rmcp`: rmcp 3.11 (`server`, `macros`), schemars, serde and tokio (same features);
#   the same tool in a `#[tool_router]` impl, and a main that lists the router's tools
#   and calls the function.
# Both start from a copy of this workspace's Cargo.lock, so the crates they share (tokio,
# serde, schemars, ...) are the same versions, and the run is repeatable. Each is built
# with `cargo build` in its own fresh CARGO_TARGET_DIR, one after the other (no other
# build should run meanwhile). Printed for each: crates compiled (cargo's "Compiling"
# lines, build scripts and proc macros included), wall and CPU (user + system) seconds,
# and the binary's size; then the ratios toolwright / rmcp, and a markdown table.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

fail() { echo "cold_build.sh: $*" >&2; exit 1; }
note() { echo "cold_build.sh: $*" >&2; }

features=""
keep=""
while [ "$#" -gt 0 ]; do
    case "$1" in
        --features) [ "$#" -ge 2 ] || fail "--features needs a value"; features="$2"; shift 2 ;;
        --features=*) features="${1#--features=}"; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) fail "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$features" =~ ^[a-z0-9_,-]*$ ]] || fail "--features takes a comma-separated list of feature names, not '$features'"
[ -x /usr/bin/time ] || fail "needs GNU time at /usr/bin/time (Debian: apt-get install time)"

work="$(mktemp -d)"
if [ -n "$keep" ]; then
    note "keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM

feature_list=""
if [ -n "$features" ]; then
    feature_list=", features = [$(echo "$features" | sed 's/[^,][^,]*/"&"/g; s/,/, /g')]"
fi

# The manifest's head: a package of its own, outside this workspace.
package() { # name
    cat <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

TOML
}

mkdir -p "$work/cold_ours/src" "$work/cold_rmcp/src"
{
    package cold_ours
    cat <<TOML
[dependencies]
toolwright = { path = "$here/toolwright"$feature_list }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
TOML
} > "$work/cold_ours/Cargo.toml"
cat > "$work/cold_ours/src/main.rs" <<'RUST'
use toolwright::{register_all_tools, serde_json, tool};

/// Add two integers.
#[tool]
fn add(
    /// The first
    a: i64,
    /// The second
    b: i64,
) -> i64 {
    a + b
}

#[tokio::main]
async fn main() {
    let registry = register_all_tools().expect("the tools register");
    let tool = registry.get("add").expect("the tool is registered");
    let mut args = serde_json::Map::new();
    args.insert("a".into(), 1.into());
    args.insert("b".into(), 2.into());
    let output = tool.call(args).await.expect("the call succeeds");
    println!("{output:?}");
}
RUST

{
    package cold_rmcp
    cat <<'TOML'
[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
TOML
} > "$work/cold_rmcp/Cargo.toml"
cat > "$work/cold_rmcp/src/main.rs" <<'RUST'
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first
    a: i64,
    /// The second
    b: i64,
}

#[derive(Clone)]
struct Server {
    tool_router: ToolRouter<Server>,
}

#[tool_router]
impl Server {
    /// Add two integers.
    #[tool]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<i64> {
        Json(a + b)
    }
}

#[tokio::main]
async fn main() {
    let server = Server { tool_router: Server::tool_router() };
    println!("{:?}", server.tool_router.list_all());
    let Json(sum) = server.add(Parameters(AddArgs { a: 1, b: 2 }));
    println!("{sum}");
}
RUST

# Fetch first (not timed), so the timed builds only compile.
for name in cold_ours cold_rmcp; do
    cp "$here/Cargo.lock" "$work/$name/Cargo.lock"
    (cd "$work/$name" && cargo fetch --quiet) || fail "cargo fetch failed for $name"
done

# Builds crate $1 from nothing; sets crates, wall, cpu, size.
measure() {
    local name="$1" dir="$work/$1"
    note "building $name from nothing${features:+ (toolwright features: $features)}"
    rm -rf "$dir/target"
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target" \
        /usr/bin/time -f '%e %U %S' -o "$dir/time.txt" \
        cargo build --offline --color never 2> "$dir/build.log") \
        || { tail -30 "$dir/build.log" >&2; fail "the build of $name failed"; }
    crates=$(grep -c '^ *Compiling ' "$dir/build.log")
    read -r wall user sys < <(tail -1 "$dir/time.txt")
    cpu=$(echo "$user + $sys" | bc -l)
    size=$(stat -c %s "$dir/target/debug/$name")
    (cd "$dir" && "$dir/target/debug/$name" > "$dir/run.log") || fail "$name did not run"
}

measure cold_ours
ours_crates=$crates ours_wall=$wall ours_cpu=$cpu ours_size=$size
measure cold_rmcp
rmcp_crates=$crates rmcp_wall=$wall rmcp_cpu=$cpu rmcp_size=$size

mb() { echo "scale=1; $1 / 1000000" | bc -l; }
ratio() { echo "scale=2; $1 / $2" | bc -l | sed 's/^\./0./'; }
label="toolwright${features:+ ($features)}"
md_label="\`toolwright\` (facade)${features:+ (\`$features\`)}"

echo
printf '%-40s %8s %10s %10s %12s\n' "crate" "crates" "wall s" "CPU s" "binary MB"
printf '%-40s %8s %10.1f %10.1f %12s\n' "$label" "$ours_crates" "$ours_wall" "$ours_cpu" "$(mb "$ours_size")"
printf '%-40s %8s %10.1f %10.1f %12s\n' "rmcp 3.11 (server, macros)" "$rmcp_crates" "$rmcp_wall" "$rmcp_cpu" "$(mb "$rmcp_size")"
printf '%-40s %8s %10s %10s %12s\n' "ratio toolwright / rmcp" \
    "$(ratio "$ours_crates" "$rmcp_crates")" "$(ratio "$ours_wall" "$rmcp_wall")" \
    "$(ratio "$ours_cpu" "$rmcp_cpu")" "$(ratio "$ours_size" "$rmcp_size")"

echo
echo "| one two-integer tool, cold debug build | crates compiled | wall | CPU | binary |"
echo "| --- | --- | --- | --- | --- |"
printf '| %s + tokio | %s | %.0f s | %.0f s | %s MB |\n' "$md_label" "$ours_crates" "$ours_wall" "$ours_cpu" "$(mb "$ours_size")"
printf '| rmcp 3.11 (`server`, `macros`) + schemars + tokio | %s | %.0f s | %.0f s | %s MB |\n' "$rmcp_crates" "$rmcp_wall" "$rmcp_cpu" "$(mb "$rmcp_size")"
printf '| ratio | %sx | %sx | %sx | %sx |\n' \
    "$(ratio "$ours_crates" "$rmcp_crates")" "$(ratio "$ours_wall" "$rmcp_wall")" \
    "$(ratio "$ours_cpu" "$rmcp_cpu")" "$(ratio "$ours_size" "$rmcp_size")"
