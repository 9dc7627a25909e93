# scripts/bench-cli.sh: the CLI cases of scripts/bench (sourced by it; not run on its own).
# `transfertop --no-tui` beside `curl` and `aria2c -j 6 -x 1`, each a separate process under
# /usr/bin/time (wall clock, user+sys, peak RSS), against the same nginx, alternating clients.
# clih2 is clismall over HTTPS/HTTP2 (nginx with a self-signed certificate; curl --http2 and
# aria2c trust it with --cacert / --ca-certificate, transfertop with --cacert).
# climonitor runs the monitor (not --no-tui) in a tmux pane on BENCH_MONITOR_COUNT (default
# 10,000) URLs in one session, presses a key every 150 ms, stays 2 s after the last download,
# and reads the monitor's own timings (TRANSFERTOP_FRAME_LOG): median and p99 frame time
# (snapshot + layout + terminal update) and key latency (key read to the end of the frame that
# shows it: a key is drawn at once, not at the next 10 fps tick).
# After every run the output directory is checked: the right number of files, the right total
# size, the bulk file byte-exact (first run), and no partial file left (.ttpart, .aria2).

# The binary as scripts/install builds it (scripts/release-build: the Swift runtime linked in,
# DECISIONS 145 and 197), in a scratch of its own: its flags would rebuild everything
# transferbench shares with it.
# BENCH_TT=PATH measures a binary already built that way (a copied scratch rebuilds from zero).
TT_SCRATCH="$SCRATCH-static"
TT="${BENCH_TT:-$TT_SCRATCH/release/transfertop}"
if [ -n "${BENCH_TT:-}" ]; then
    [ -x "$TT" ] || { log "BENCH_TT=$TT is not an executable"; exit 2; }
    log "measuring $TT (BENCH_TT), not building"
else
    log "building transfertop (scripts/release-build, scratch $TT_SCRATCH)"
    if ! "$ROOT/scripts/release-build" --scratch-path "$TT_SCRATCH" --product transfertop > "$WORK/build-tt.log" 2>&1; then
        grep -E "error" "$WORK/build-tt.log" | head -10 >&2 || true
        log "transfertop did not build"; exit 2
    fi
fi
CLI_CLIENTS="curl tt aria2"
# aria2c needs ~3 ms per URL here: above this many URLs it is skipped (shown as "-").
ARIA2_MAX=${BENCH_ARIA2_MAX:-10000}
CLI_RESULTS="$WORK/cli-results.txt"
: > "$CLI_RESULTS"
mkdir -p "$SHM"

# Distinct 1 KiB files s/1 … s/MAX (distinct names: no client pays for name collisions).
MAX_FILES=$COUNT
for n in $SCALE_COUNTS; do [ "$n" -gt "$MAX_FILES" ] && MAX_FILES=$n; done
[[ " $CLI_CASES " == *" climonitor "* ]] && [ "${BENCH_MONITOR_COUNT:-10000}" -gt "$MAX_FILES" ] && MAX_FILES=${BENCH_MONITOR_COUNT:-10000}
log "generating $MAX_FILES distinct 1 KiB files"
python3 - "$WORK/www/s" "$MAX_FILES" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)
body = os.urandom(1024)
for i in range(1, n + 1):
    with open(f"{d}/{i}", "wb") as f:
        f.write(body)
PY

# The URL lists of the first N files, for each client ($3 = h2: the HTTPS server).
make_lists() {
    local n=$1 dir=$2 base="http://127.0.0.1:$PORT/s/" tag=$1
    [ "${3:-}" = h2 ] && base="https://127.0.0.1:$TLS_PORT/s/" && tag="h2-$1"
    [ -f "$WORK/list-$tag.txt" ] || seq 1 "$n" | sed "s|^|$base|" > "$WORK/list-$tag.txt"
    LIST="$WORK/list-$tag.txt"
    awk -v d="$dir" '{ n = $0; sub(".*/", "", n); printf "url = \"%s\"\noutput = \"%s/%s\"\n", $0, d, n }' \
        "$LIST" > "$WORK/list-$tag.curlrc"
    CURLRC="$WORK/list-$tag.curlrc"
}

# One CLI measurement: "case n client run wall cpu rss_kb status" to $CLI_RESULTS.
measure_cli() {
    local case=$1 n=$2 client=$3 run=$4
    # A fresh directory per measurement, deleted only at the end: ext4 makes inode allocation
    # slow for some 30 s after many deletions (recently_deleted), which would penalise
    # whichever client runs after a deletion.
    local dir="$WORK/cliout/$case-$n-$client-$run" tf="$WORK/cli-time.txt" expect_files=$n expect_bytes=$((n * 1024)) status=ok
    [ "$case" = clishm ] && dir="$SHM/out"
    [ "$case" = clismallshm ] && dir="$SHM/small-$client-$run"
    rm -rf "$WORK/state"; mkdir -p "$dir"; sync
    local -a cmd
    case "$case:$client" in
    clibulk:curl | clishm:curl) cmd=(curl -sf -o "$dir/big.bin" "$BIG_URL") ;;
    clibulk:aria2 | clishm:aria2)
        cmd=(aria2c -q -x 1 -j 1 --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -d "$dir" "$BIG_URL") ;;
    clibulk:tt | clishm:tt) cmd=("$TT" --no-tui -o "$dir" "$BIG_URL") ;;
    cliupload:curl) cmd=(curl -sf -o /dev/null -T "$WORK/www/big.bin" "http://127.0.0.1:$PORT/up/$client-$run.bin") ;;
    cliupload:tt) cmd=("$TT" --no-tui -o "$dir" -T "$WORK/www/big.bin" "http://127.0.0.1:$PORT/up/$client-$run.bin") ;;
    # cliupseg: one server that takes both (transferbench serve): curl -T and transfertop -T
    # to /echo, transfertop --segments 4 to /segments/ (the aria2 slot: aria2 has no upload).
    cliupseg:curl) cmd=(curl -sf -o /dev/null -T "$WORK/www/big.bin" "$SEG_BASE/echo") ;;
    cliupseg:tt) cmd=("$TT" --no-tui -T "$WORK/www/big.bin" "$SEG_BASE/echo") ;;
    cliupseg:aria2) cmd=("$TT" --no-tui -T "$WORK/www/big.bin" --segments "$SEG_N" "$SEG_BASE/segments/big") ;;
    clih2:curl)
        make_lists "$n" "$dir" h2
        cmd=(curl --parallel --parallel-max 6 --http2 --cacert "$CERT" -sf --no-progress-meter --config "$CURLRC") ;;
    clih2:aria2)
        make_lists "$n" "$dir" h2
        cmd=(aria2c -q -j 6 -x 1 --ca-certificate="$CERT" --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -d "$dir" -i "$LIST") ;;
    clih2:tt)
        make_lists "$n" "$dir" h2
        cmd=("$TT" --no-tui --max-connections-per-host 6 --cacert "$CERT" -o "$dir" -i "$LIST") ;;
    *:curl)
        make_lists "$n" "$dir"
        cmd=(curl --parallel --parallel-max 6 -sf --no-progress-meter --config "$CURLRC") ;;
    *:aria2)
        make_lists "$n" "$dir"
        cmd=(aria2c -q -j 6 -x 1 --file-allocation=none --allow-overwrite=true --auto-file-renaming=false -d "$dir" -i "$LIST") ;;
    *:tt)
        make_lists "$n" "$dir"
        cmd=("$TT" --no-tui --max-connections-per-host 6 -o "$dir" -i "$LIST") ;;
    esac
    case "$case" in clibulk | clishm) expect_files=1; expect_bytes=$BIG_BYTES ;; cliupseg) expect_files=0; expect_bytes=0 ;; esac
    XDG_STATE_HOME="$WORK/state" /usr/bin/time -f '%e %U %S %M' -o "$tf" "${cmd[@]}" > "$WORK/cli-stdout.txt" 2> "$WORK/cli-stderr.txt" \
        || status=FAIL
    local files bytes left
    if [ "$case" = cliupload ]; then  # what the server stored, then nothing in the output directory
        local stored="$WORK/www/up/$client-$run.bin"
        [ "$(stat -c %s "$stored" 2> /dev/null)" = "$BIG_BYTES" ] || status=FAIL
        [ "$status" = ok ] && [ "$run" = 1 ] && ! cmp -s "$stored" "$WORK/www/big.bin" && status=FAIL
        rm -f "$stored"
        expect_files=0; expect_bytes=0
    fi
    files=$(find "$dir" -maxdepth 1 -type f ! -name '.*' | wc -l)
    bytes=$(find "$dir" -maxdepth 1 -type f ! -name '.*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    left=$(find "$dir" -maxdepth 1 \( -name '*.ttpart' -o -name '*.aria2' \) | wc -l)
    [ "$files" = "$expect_files" ] && [ "$bytes" = "$expect_bytes" ] && [ "$left" = 0 ] || status=FAIL
    if [ "$status" = ok ] && [ "$run" = 1 ] && [ "$expect_files" = 1 ] && ! cmp -s "$dir/big.bin" "$WORK/www/big.bin"; then status=FAIL; fi
    if [ "$status" = FAIL ]; then
        FAILURES=$((FAILURES + 1))
        log "FAIL $client $case n=$n run $run: files=$files bytes=$bytes partials_left=$left"
        head -3 "$WORK/cli-stderr.txt" >&2 || true
    fi
    local wall u s m; read -r wall u s m < <(tail -1 "$tf")
    local cpu; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    echo "$case $n $client $run $wall $cpu $m $status" >> "$CLI_RESULTS"
    log "$(printf '%-8s n=%-6s %-6s run %s  wall %8ss  cpu %7ss  rss %8s KiB  %s' "$case" "$n" "$client" "$run" "$wall" "$cpu" "$m" "$status")"
    # Large files go at once (one inode each; the disk is not unlimited), small ones at the end
    # (on tmpfs at once: no inode allocator there remembers a deletion).
    case "$case" in clibulk | clishm | clismallshm) rm -rf "$dir" ;; esac
}

cli_points() {
    local c
    for c in $CLI_CASES; do
        case $c in
        clibulk | clishm | cliupload | cliupseg) echo "$c 1" ;;
        clismall | clismallshm | clih2) echo "$c $COUNT" ;;
        cliscale) for n in $SCALE_COUNTS; do echo "$c $n"; done ;;
        esac
    done
}

# cliupseg needs a server that stores segmented PUTs (nginx answers Content-Range PUTs 501):
# the tests' loopback server, in its own process (transferbench serve).
SEG_N=${BENCH_SEGMENTS:-4}
if [[ " $CLI_CASES " == *" cliupseg "* ]]; then
    log "building transferbench (release, scratch $SCRATCH) for cliupseg's server"
    (cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --product transferbench > "$WORK/build-serve.log" 2>&1) \
        || { log "transferbench did not build"; exit 2; }
    "$SCRATCH/release/transferbench" serve > "$WORK/serve.txt" 2> "$WORK/serve.err" &
    SEG_PID=$!
    for _ in $(seq 100); do [ -s "$WORK/serve.txt" ] && break; sleep 0.1; done
    SEG_BASE=$(head -1 "$WORK/serve.txt")
    [ -n "$SEG_BASE" ] || { log "transferbench serve did not start"; cat "$WORK/serve.err" >&2; exit 2; }
fi

log "CLI cases: $CLI_CASES (runs=$RUNS)"
for run in $(seq "$RUNS"); do
    while read -r c n; do
        clients=($CLI_CLIENTS)
        for i in 0 1 2; do
            k=${clients[$(( (i + run - 1) % 3 ))]}
            [ "$k" = aria2 ] && [ "$n" -gt "$ARIA2_MAX" ] && continue
            [ "$k" = aria2 ] && [ "$c" = cliupload ] && continue  # aria2 does not upload
            measure_cli "$c" "$n" "$k" "$run"
        done
    done < <(cli_points)
done

# clione: one 1 KiB URL per process, BENCH_ONE_RUNS (30) rounds, the clients in a rotating
# order: start-up and teardown are all a one-URL run is. Wall clock from bash's EPOCHREALTIME
# around each process (/usr/bin/time's 10 ms steps are too coarse here). transfertop runs as
# built and as scripts/install installs it (stripped); the table gives each binary's size.
# Every client but one starts each process with no state directory, as on a machine's first
# run: transfertop then makes the completion journal's directories and files (each a new inode;
# on this VM's ext4 a new inode took 0.4-1.2 ms in a loop of Python's os.mkdir, though the two
# rows have come out within noise of each other). ttkept is the stripped binary with one state
# directory kept across its runs, as a user's later runs are; it runs once before the rounds.
ONE_RESULTS="$WORK/one.txt"
: > "$ONE_RESULTS"
ONE_CLIENTS="curl tt ttstrip ttkept aria2"
if [[ " $CLI_CASES " == *" clione "* ]]; then
    TT_STRIPPED="$WORK/transfertop-stripped"
    strip -o "$TT_STRIPPED" "$TT"
    one_url="http://127.0.0.1:$PORT/s/1"
    one_clients=($ONE_CLIENTS)
    mkdir -p "$WORK/cliout/one-ttkept-0"
    XDG_STATE_HOME="$WORK/state-kept" "$TT_STRIPPED" --no-tui -o "$WORK/cliout/one-ttkept-0" "$one_url" > /dev/null 2>&1 || true
    for r in $(seq "${BENCH_ONE_RUNS:-30}"); do
        for i in "${!one_clients[@]}"; do
            k=${one_clients[$(( (i + r) % ${#one_clients[@]} ))]}
            d="$WORK/cliout/one-$k-$r"
            mkdir -p "$d"; rm -rf "$WORK/state"
            state="$WORK/state"
            case $k in
            curl) cmd=(curl -sf -o "$d/1" "$one_url") ;;
            tt) cmd=("$TT" --no-tui -o "$d" "$one_url") ;;
            ttstrip) cmd=("$TT_STRIPPED" --no-tui -o "$d" "$one_url") ;;
            ttkept) cmd=("$TT_STRIPPED" --no-tui -o "$d" "$one_url"); state="$WORK/state-kept" ;;
            aria2) cmd=(aria2c -q --file-allocation=none -d "$d" "$one_url") ;;
            esac
            status=ok t0=$EPOCHREALTIME
            XDG_STATE_HOME="$state" "${cmd[@]}" > /dev/null 2>&1 || status=FAIL
            t1=$EPOCHREALTIME
            [ "$(stat -c %s "$d/1" 2> /dev/null)" = 1024 ] || status=FAIL
            [ "$status" = FAIL ] && { FAILURES=$((FAILURES + 1)); log "FAIL clione $k run $r"; }
            echo "$k $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) * 1000 }') $status" >> "$ONE_RESULTS"
        done
    done
    log "clione: $(wc -l < "$ONE_RESULTS") processes"
fi

# The monitor with many tasks in one session (climonitor): its own frame and key timings.
MONITOR_COUNT=${BENCH_MONITOR_COUNT:-10000}
MONITOR_RESULTS="$WORK/monitor-frames.txt"
: > "$MONITOR_RESULTS"
measure_monitor() {
    local run=$1 dir="$WORK/cliout/monitor-$run" log="$WORK/frames-$run.log" sock="bench-mon-$$-$run"
    mkdir -p "$dir"; rm -rf "$WORK/state"
    make_lists "$MONITOR_COUNT" "$dir"
    tmux -L "$sock" -f /dev/null new-session -d -x 160 -y 50 \
        "env TERM=xterm-256color LANG=C.UTF-8 XDG_STATE_HOME=$WORK/state TRANSFERTOP_FRAME_LOG=$log $TT --max-connections-per-host 6 -o $dir -i $LIST" \
        > /dev/null 2>&1 < /dev/null
    local t0=$EPOCHREALTIME done=0
    while [ "$done" = 0 ]; do
        tmux -L "$sock" send-keys j 2> /dev/null || break
        sleep 0.15
        [ "$(find "$dir" -maxdepth 1 -type f ! -name '.*' | wc -l)" -ge "$MONITOR_COUNT" ] && done=1
        awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a > 300) }' && break
    done
    for _ in $(seq 13); do tmux -L "$sock" send-keys k 2> /dev/null; sleep 0.15; done  # 2 s with every task shown
    tmux -L "$sock" send-keys q 2> /dev/null || true; sleep 0.5
    tmux -L "$sock" kill-server 2> /dev/null || true
    local files; files=$(find "$dir" -maxdepth 1 -type f ! -name '.*' | wc -l)
    [ "$files" = "$MONITOR_COUNT" ] || { FAILURES=$((FAILURES + 1)); log "FAIL monitor run $run: files=$files"; }
    [ -s "$log" ] && sed "s/^/$run /" "$log" >> "$MONITOR_RESULTS"
    log "monitor run $run: $(grep -c '^frame' "$log" 2> /dev/null || echo 0) frames, $(grep -c '^key' "$log" 2> /dev/null || echo 0) keys, files $files"
}
if [[ " $CLI_CASES " == *" climonitor "* ]]; then
    if command -v tmux > /dev/null; then
        for run in $(seq "$RUNS"); do measure_monitor "$run"; done
    else
        log "tmux missing: climonitor skipped"
    fi
fi
# clirerun: the same list of COUNT files run BENCH_RERUNS (20) times into one output directory
# path, with one state directory kept across the runs, as a nightly job would: the first and the
# last run's wall time, and the state directory's size after each run. The state directory is on
# the disk, as a user's is; the output directory is on tmpfs and emptied between runs. On the
# disk, the files had to be renamed away instead (ext4's slow inode allocation after deletions
# charged the later runs), and the renamed directories' 100,000 files slowed the later runs
# in steps: the series measured the file system, not the state.
RERUNS=${BENCH_RERUNS:-20}
RERUN_RESULTS="$WORK/rerun.txt"
: > "$RERUN_RESULTS"
if [[ " $CLI_CASES " == *" clirerun "* ]]; then
    rerun_dir="$SHM/rerun" rerun_state="$WORK/rerun-state"
    rm -rf "$rerun_state"
    make_lists "$COUNT" "$rerun_dir"
    for i in $(seq "$RERUNS"); do
        rm -rf "$rerun_dir"
        mkdir -p "$rerun_dir"; sync
        status=ok
        XDG_STATE_HOME="$rerun_state" /usr/bin/time -f '%e %U %S' -o "$WORK/rerun-time.txt" \
            "$TT" --no-tui --max-connections-per-host 6 -o "$rerun_dir" -i "$LIST" > /dev/null 2> "$WORK/rerun-stderr.txt" || status=FAIL
        [ "$(find "$rerun_dir" -maxdepth 1 -type f ! -name '.*' | wc -l)" = "$COUNT" ] || status=FAIL
        [ "$status" = FAIL ] && { FAILURES=$((FAILURES + 1)); log "FAIL rerun $i"; head -3 "$WORK/rerun-stderr.txt" >&2 || true; }
        read -r wall u s < "$WORK/rerun-time.txt"
        state_kib=$(du -sk "$rerun_state" | cut -f1)
        journal_lines=$(cat "$rerun_state"/transfertop/complete/*.jsonl 2> /dev/null | wc -l)
        echo "$i $wall $state_kib $journal_lines $status" >> "$RERUN_RESULTS"
        log "$(printf 'rerun %2d of %d: wall %6ss  state %6s KiB  journal %6s lines  %s' "$i" "$RERUNS" "$wall" "$state_kib" "$journal_lines" "$status")"
    done
fi
[[ " $CLI_CASES " == *" cliphases "* ]] && . "$ROOT/scripts/bench-phases.sh"
# "median p99" of column 3 of the lines of kind $1 (frame or key), optionally only frames
# that showed at least $2 tasks.
monitor_stats() {
    awk -v k="$1" -v min="${2:-0}" '$2 == k && ($2 != "frame" || $4 >= min) { print $3 }' "$MONITOR_RESULTS" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "- -"; else printf "%.1f %.1f\n", v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)] }'
}

cli_median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cli_col() { awk -v c="$1" -v n="$2" -v k="$3" -v col="$4" '$1 == c && $2 == n && $3 == k { print $col }' "$CLI_RESULTS" | cli_median; }

# Prints the CLI table (markdown) and writes it, with date, machine and versions, to bench/RESULTS.md.
cli_table() {
    local out="$ROOT/bench/RESULTS.md" table="$WORK/cli-table.md"
    {
        echo "| case | URLs | client | wall s | per URL ms | cpu s | peak RSS MiB | speed vs curl | fails |"
        echo "|---|---:|---|---:|---:|---:|---:|---:|---:|"
        while read -r c n; do
            [ "$c" = climonitor ] && continue
            local curl_wall; curl_wall=$(cli_col "$c" "$n" curl 5)
            for k in $CLI_CLIENTS; do
                [ "$k" = aria2 ] && [ "$n" -gt "$ARIA2_MAX" ] && { echo "| $c | $n | aria2c -j 6 -x 1 | - | - | - | - | skipped (> BENCH_ARIA2_MAX) | - |"; continue; }
                [ "$k" = aria2 ] && [ "$c" = cliupload ] && { echo "| $c | $n | aria2c | - | - | - | - | no upload in aria2 | - |"; continue; }
                local label=""
                [ "$c" = cliupseg ] && [ "$k" = aria2 ] && label="transfertop --segments $SEG_N"
                [ "$c" = cliupseg ] && [ "$k" = tt ] && label="transfertop -T (one stream)"
                local wall cpu rss fails
                wall=$(cli_col "$c" "$n" "$k" 5); cpu=$(cli_col "$c" "$n" "$k" 6); rss=$(cli_col "$c" "$n" "$k" 7)
                fails=$(awk -v c="$c" -v n="$n" -v k="$k" '$1 == c && $2 == n && $3 == k && $8 == "FAIL" { f++ } END { print f + 0 }' "$CLI_RESULTS")
                awk -v c="$c" -v n="$n" -v k="$k" -v w="$wall" -v cpu="$cpu" -v r="$rss" -v cw="$curl_wall" -v f="$fails" -v label="$label" 'BEGIN {
                    name = (k == "tt") ? "transfertop --no-tui" : (k == "aria2" ? "aria2c -j 6 -x 1" : "curl")
                    if (label != "") name = label
                    printf "| %s | %d | %s | %.2f | %.3f | %.2f | %.1f | %s | %d |\n", c, n, name, w, 1000 * w / n, cpu, r / 1024,
                        (w > 0 ? sprintf("%.2fx", cw / w) : "-"), f }'
            done
        done < <(cli_points)
        if [ -s "$RERUN_RESULTS" ]; then
            echo
            # One run's time varies by a third on this VM from run to run (a single first and
            # last run gave 1.03, 1.18 and 1.29 for one build), and medians of three by a sixth:
            # the ratio judged is of a least-squares line through all the runs, at the last run
            # and at the first (growth with history shows as its slope).
            echo "| rerun: $COUNT URLs, the same command $RERUNS times, one state directory | first run s | last run s | median of runs 1-3 s | median of the last 3 s | fitted first s | fitted last s | fitted last / first | state after the last, KiB | journal lines |"
            echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            awk 'function med3(a, b, c) { return (a <= b) ? ((b <= c) ? b : ((a <= c) ? c : a)) : ((a <= c) ? a : ((b <= c) ? c : b)) }
                { w[NR] = $2; k = $3; j = $4; sx += NR; sy += $2; sxx += NR * NR; sxy += NR * $2 }
                END {
                    if (NR < 3) { f3 = w[1]; l3 = w[NR] } else { f3 = med3(w[1], w[2], w[3]); l3 = med3(w[NR - 2], w[NR - 1], w[NR]) }
                    d = NR * sxx - sx * sx; b = (d > 0) ? (NR * sxy - sx * sy) / d : 0; a = (sy - b * sx) / NR
                    ff = a + b; fl = a + b * NR
                    printf "| transfertop --no-tui -i LIST | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %d | %d |\n", w[1], w[NR], f3, l3, ff, fl, (ff > 0 ? fl / ff : 0), k, j
                }' "$RERUN_RESULTS"
        fi
        if [ -s "$ONE_RESULTS" ]; then
            echo
            echo "| one URL (1 KiB), a process each, ${BENCH_ONE_RUNS:-30} rounds | median ms | p90 ms | vs curl (median) | binary MiB |"
            echo "|---|---:|---:|---:|---:|"
            local curl_one; curl_one=$(awk '$1 == "curl" { print $2 }' "$ONE_RESULTS" | cli_median)
            for k in $ONE_CLIENTS; do
                local bin name
                case $k in
                curl) bin=$(command -v curl); name="curl -o" ;;
                tt) bin=$TT; name="transfertop --no-tui, as built (symbols)" ;;
                ttstrip) bin=$TT_STRIPPED; name="transfertop --no-tui, as scripts/install installs it (stripped)" ;;
                ttkept) bin=$TT_STRIPPED; name="the same, its state directory kept from its earlier runs" ;;
                aria2) bin=$(command -v aria2c); name="aria2c" ;;
                esac
                # The row's median as curl's (cli_median: the mean of the middle two of an even
                # count), so curl's own row reads 1.00x.
                local times med; times=$(awk -v k="$k" '$1 == k { print $2 }' "$ONE_RESULTS")
                med=$(cli_median <<< "$times")
                sort -g <<< "$times" | awk -v name="$name" -v m="$med" -v c="$curl_one" -v size="$(stat -L -c %s "$bin")" \
                    '{ v[NR] = $1 } END { printf "| %s | %.1f | %.1f | %.2fx | %.1f |\n", name, m, v[int(NR * 0.9 + 0.999)], (m > 0 ? m / c : 0), size / 1048576 }'
            done
        fi
        if [ -s "$MONITOR_RESULTS" ]; then
            echo
            echo "| monitor, $MONITOR_COUNT tasks in one session (tmux 160x50, 10 fps) | median ms | p99 ms |"
            echo "|---|---:|---:|"
            local m p
            read -r m p < <(monitor_stats frame); echo "| frame time, all frames | $m | $p |"
            read -r m p < <(monitor_stats frame "$MONITOR_COUNT"); echo "| frame time, all $MONITOR_COUNT tasks listed | $m | $p |"
            read -r m p < <(monitor_stats key); echo "| key latency (key read to the end of the frame that shows it) | $m | $p |"
        fi
    } > "$table"
    [[ " $CLI_CASES " == *" cliphases "* ]] && phases_table "$table"
    echo
    echo "CLI: transfertop vs curl vs aria2c (medians of $RUNS alternating runs; speed = curl wall / wall)"
    cat "$table"
    mkdir -p "$ROOT/bench"
    # The newest run first; earlier runs stay below it (the file is the log of runs).
    local earlier="$WORK/earlier-results.md"
    if [ -f "$out" ]; then sed '1{/^# Benchmark results/d}' "$out" > "$earlier"; else : > "$earlier"; fi
    {
        echo "# Benchmark results (scripts/bench, CLI cases)"
        echo
        echo "## Run of $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo
        echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ { print $2 }') GiB RAM, $(uname -sr)"
        echo "- load at start: $(cut -d' ' -f1-3 /proc/loadavg) (shared machine: compare ratios, not absolute times)"
        echo "- versions: transfertop $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet || echo '+changes'), $(curl --version | head -1 | cut -d' ' -f1-2), $(aria2c --version | head -1), $($NGINX -v 2>&1 | sed 's|.*/||;s|^|nginx |'), $(swift --version 2>&1 | grep -o 'Swift version [0-9.]*')"
        echo "- server: nginx on loopback, HTTP/1.1, sendfile; $RUNS run(s) per point, clients alternating"
        echo "- clismallshm = clismall into /dev/shm (tmpfs): the clients' own work, without the state of the disk's inode allocator (ext4's recently_deleted made clismall's times vary twofold between runs)"
        echo "- clih2 = clismall over HTTPS with HTTP/2 (self-signed certificate trusted with --cacert; curl --http2, which multiplexes on one connection)"
        [[ " $CLI_CASES " == *" cliphases "* ]] && echo "- phases = scripts/bench-phases.sh: one fresh process per client and round, nginx on 127.0.0.1 and 127.0.0.2; TTFB as curl's time_starttransfer (ours from the connection slot)"
        [ -s "$ONE_RESULTS" ] && echo "- clione = one 1 KiB URL per process (start-up and teardown), wall from EPOCHREALTIME; vs curl = the client's median over curl's (lower is faster); a fresh state directory for each process but the kept row's"
        [ -s "$RERUN_RESULTS" ] && echo "- clirerun = clismall's list, the same command $RERUNS times into one output directory on tmpfs (emptied between runs), one state directory on the disk kept"
        echo "- climonitor = the monitor (tmux, 10 fps) on $MONITOR_COUNT URLs in one session, a key every 150 ms; timings from TRANSFERTOP_FRAME_LOG"
        echo "- cases: clibulk = ${SIZE_MB} MiB into a directory on the disk; clishm = the same into /dev/shm (tmpfs, another file system than XDG_STATE_HOME); cliupload = the same file sent with PUT (nginx WebDAV; curl -T, transfertop -T); cliupseg = the same file to the tests' loopback server (transferbench serve): curl -T and transfertop -T to /echo, transfertop --segments $SEG_N (8 MiB segments, Content-Range + Content-Digest, checked by the server) to /segments/; clismall/cliscale = N distinct 1 KiB files, 6 connections per host"
        echo
        cat "$table"
        echo
        cat "$earlier"
    } > "$out"
    log "wrote $out"
}
