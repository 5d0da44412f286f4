# The release and the action's set-up step (docs/ci.md): scripts/build-release.sh makes a
# byte-stable archive of static binaries; ci/github/setup.sh downloads it over HTTP (a real
# server on localhost standing in for GitHub's releases), checks it and puts it on PATH
# without building anything; the static CLI passes the artifact fault catalogue
# (t_faults.sh); a damaged, missing or unpinned download and bad inputs fail with one
# annotation and install nothing; from-source: true builds from the action's source.
. "$(dirname "$0")/lib.sh"
cd "$T"
version=$(sed -n 's/^#define SHARDCC_VERSION "\(.*\)"/\1/p' "$SHARDCC_SRC/src/common/version.h")
name=shardcc-$version-linux-$(uname -m)

"$SHARDCC_SRC/scripts/build-release.sh" --out rel/v$version >build1.log 2>&1 ||
    fail "build-release.sh: $(tail -5 build1.log)"
"$SHARDCC_SRC/scripts/build-release.sh" --out again >build2.log 2>&1 || fail "build-release.sh, twice"
expect_eq "two release builds give the same archive" "$(cut -d' ' -f1 again/$name.tar.gz.sha256)" \
    "$(cut -d' ' -f1 rel/v$version/$name.tar.gz.sha256)"
(cd rel/v$version && sha256sum -c --status $name.tar.gz.sha256) || fail "the .sha256 does not match"
mkdir x && tar -xzf rel/v$version/$name.tar.gz -C x
for f in shardcc shardcc-wrap; do
    file -b "x/$name/bin/$f" | grep "statically linked" >/dev/null || fail "$f: $(file -b "x/$name/bin/$f")"
done
ok "$name.tar.gz: static shardcc and shardcc-wrap, $(stat -c %s rel/v$version/$name.tar.gz) bytes"

# a real HTTP server for the release files
python3 - "$T/rel" "$T/port" <<'PY' &
import functools, http.server, os, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
s.serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s port ] && break; sleep 0.1; done
[ -s port ] || fail "the HTTP server did not start"
url=http://127.0.0.1:$(cat port)

# setup: a fresh runner (no shardcc on PATH, no SHARDCC_* but the inputs)
setup() { # setup RUNNER_TEMP [NAME=VALUE...]: runs the set-up step; its output in $1.log
    local rt=$1
    shift
    rm -rf "$rt" && mkdir -p "$rt"
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME" RUNNER_TEMP="$T/$rt" GITHUB_PATH="$T/$rt/path" \
        SHARDCC_ACTION_PATH="$SHARDCC_SRC" "$@" bash "$SHARDCC_SRC/ci/github/setup.sh" >"$rt.log" 2>&1
}
setup rt SHARDCC_RELEASE_URL="$url/v$version" || fail "setup: $(cat rt.log)"
bin=$T/rt/shardcc/$name/bin
expect_eq "setup put the release's bin on GITHUB_PATH" "$(cat rt/path)" "$bin"
expect_eq "setup: the release's shardcc" "$("$bin/shardcc" --version)" "shardcc $version"
grep -F "shardcc: shardcc $version from $url/v$version/$name.tar.gz (sha256 $(cut -d' ' -f1 rel/v$version/$name.tar.gz.sha256))" \
    rt.log >/dev/null || fail "setup did not name what it installed: $(cat rt.log)"
[ ! -e rt/shardcc/build ] || fail "setup built shardcc although a release was there"
ok "setup downloaded and checked the release and built nothing"
pin=$(cut -d' ' -f1 rel/v$version/$name.tar.gz.sha256)
setup rt SHARDCC_RELEASE_URL="$url/v$version" SHARDCC_IN_SHA256="$pin" || fail "setup with the right pin: $(cat rt.log)"
ok "setup with the sha256 input pinned to the archive's"

# the static CLI through the artifact fault catalogue
SHARDCC_BIN=$bin bash "$SHARDCC_SRC/tests/e2e/t_faults.sh" >faults.log 2>&1 || fail "t_faults.sh with the release's binaries: $(tail -5 faults.log)"
ok "the release's binaries pass t_faults.sh ($(grep -c '^ok ' faults.log) checks)"

# failures: one annotation, the documented status, nothing installed
refused() { # refused WHAT STATUS MESSAGE [NAME=VALUE...]
    local what=$1 want=$2 msg=$3 rc=0
    shift 3
    setup bad "$@" || rc=$?
    [ "$rc" = "$want" ] || fail "$what: exit $rc, expected $want: $(cat bad.log)"
    grep -F "::error title=shardcc setup::" bad.log | grep -F -- "$msg" >/dev/null ||
        fail "$what: no annotation saying \"$msg\": $(cat bad.log)"
    [ ! -e "bad/shardcc/$name" ] && [ ! -s bad/path ] || fail "$what: something was installed"
    ok "$what: exit $want, '$msg'"
}
mkdir -p rel/v9.9.9 && cp -R rel/v$version rel/damaged
printf 'x' | dd of=rel/damaged/$name.tar.gz bs=1 seek=5000 conv=notrunc status=none
refused "a damaged archive" 4 "does not match its .sha256 (a damaged or altered download)" \
    SHARDCC_RELEASE_URL="$url/damaged"
refused "no release at the URL" 2 "no release of shardcc $version for linux-$(uname -m) at $url/v9.9.9" \
    SHARDCC_RELEASE_URL="$url/v9.9.9"
refused "another sha256 pinned" 4 "not the sha256 input's $(printf '0%.0s' $(seq 64))" \
    SHARDCC_RELEASE_URL="$url/v$version" SHARDCC_IN_SHA256="$(printf '0%.0s' $(seq 64))"
refused "a sha256 input that is not one" 2 "sha256 is 64 lowercase hex digits" \
    SHARDCC_RELEASE_URL="$url/v$version" SHARDCC_IN_SHA256=abc
cp -R rel/v$version rel/renamed && echo "$pin  other.tar.gz" >rel/renamed/$name.tar.gz.sha256
refused "a .sha256 for another file" 4 "is not one SHA-256 line for $name.tar.gz" SHARDCC_RELEASE_URL="$url/renamed"
refused "from-source neither true nor false" 2 "from-source is true or false" SHARDCC_IN_FROM_SOURCE=yes
refused "a local action without a repository" 2 "no repository to download shardcc $version from"

# a runner that has this shardcc already: nothing downloaded
setup rt2 PATH="$bin:/usr/local/bin:/usr/bin:/bin" SHARDCC_RELEASE_URL="$url/v9.9.9" || fail "setup with shardcc on PATH: $(cat rt2.log)"
grep -F "already on PATH ($bin/shardcc)" rt2.log >/dev/null || fail "setup did not keep the shardcc on PATH: $(cat rt2.log)"
ok "a runner with this shardcc on PATH: kept, nothing downloaded"

# from-source: true builds from the action's source
setup src SHARDCC_IN_FROM_SOURCE=true || fail "setup from source: $(tail -20 src.log)"
expect_eq "from-source: built into RUNNER_TEMP/shardcc/bin" "$(cat src/path)" "$T/src/shardcc/bin"
expect_eq "from-source: its version" "$("$T/src/shardcc/bin/shardcc" --version)" "shardcc $version"
summary
